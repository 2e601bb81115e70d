import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countNodes, diffSnapshots, formatDiff, formatSnapshot, parseSnapshotLine, type SnapNode } from '../../../../src/modules/automation/browser/snapshot.ts';

const tree: SnapNode[] = [
  { role: 'heading', name: 'Sign in', level: 1 },
  {
    role: 'form',
    children: [
      { role: 'textbox', name: 'Email', ref: 'e3', states: ['required'], value: 'a@b.c' },
      { role: 'checkbox', name: 'Remember "me"', ref: 'e4', states: ['checked'] },
      { role: 'button', name: 'Sign in', ref: 'e5', states: ['disabled'] },
    ],
  },
  { role: 'list', children: [{ role: 'listitem', text: 'One' }, { role: 'listitem', text: 'Two\\three' }] },
  { role: 'iframe', name: 'Pay', children: [{ role: 'button', name: 'Pay now', ref: 'e9' }] },
  { role: 'text', text: 'Forgot your password?' },
];

test('formatSnapshot: one line per node, two spaces per level, quoted and escaped strings', () => {
  assert.equal(
    formatSnapshot(tree),
    [
      'heading "Sign in" [level=1]',
      'form',
      '  textbox "Email" [required] [ref=e3] = "a@b.c"',
      '  checkbox "Remember \\"me\\"" [checked] [ref=e4]',
      '  button "Sign in" [disabled] [ref=e5]',
      'list',
      '  listitem: "One"',
      '  listitem: "Two\\\\three"',
      'iframe "Pay"',
      '  button "Pay now" [ref=e9]',
      'text "Forgot your password?"',
    ].join('\n'),
  );
  assert.equal(formatSnapshot([]), '');
  assert.deepEqual(countNodes(tree), { lines: 11, refs: 4 });
});

test('parseSnapshotLine finds the ref outside quoted strings only', () => {
  assert.deepEqual(parseSnapshotLine('    button "Go" [ref=e12]'), { raw: '    button "Go" [ref=e12]', body: 'button "Go" [ref=e12]', depth: 2, role: 'button', ref: 'e12' });
  const tricky = parseSnapshotLine('text "looks like [ref=e7] but is text"');
  assert.equal(tricky.ref, undefined);
  assert.equal(tricky.role, 'text');
  assert.equal(parseSnapshotLine('link "a \\" [ref=e1]" [ref=e2]').ref, 'e2');
  assert.equal(parseSnapshotLine('listitem: "x"').role, 'listitem');
});

test('diffSnapshots: identical snapshots have no changes', () => {
  const text = formatSnapshot(tree);
  const d = diffSnapshots(text, text);
  assert.deepEqual(d, { added: [], removed: [], changed: [], unchanged: 11 });
  assert.equal(formatDiff(d), '(no changes)');
});

test('diffSnapshots: same ref with new content is changed, new and gone lines are added/removed', () => {
  const before = ['heading "Cart" [level=1]', 'text "Items: 1"', 'list', '  listitem: "Apple"', 'textbox "Qty" [ref=e4] = "1"', 'button "Pay" [ref=e5]', 'button "Remove" [ref=e6]'].join('\n');
  const after = ['heading "Cart" [level=1]', 'text "Items: 2"', 'list', '  listitem: "Apple"', '  listitem: "Pear"', 'textbox "Qty" [ref=e4] = "2"', 'button "Pay" [ref=e5]', 'button "Undo" [ref=e9]'].join('\n');
  const d = diffSnapshots(before, after);
  assert.deepEqual(d.added, ['listitem: "Pear"', 'button "Undo" [ref=e9]']);
  assert.deepEqual(d.removed, ['button "Remove" [ref=e6]']);
  assert.deepEqual(d.changed, [
    { before: 'textbox "Qty" [ref=e4] = "1"', after: 'textbox "Qty" [ref=e4] = "2"' },
    { before: 'text "Items: 1"', after: 'text "Items: 2"' },
  ]);
  assert.equal(d.unchanged, 4);
  assert.equal(
    formatDiff(d),
    '- button "Remove" [ref=e6]\n+ listitem: "Pear"\n+ button "Undo" [ref=e9]\n~ textbox "Qty" [ref=e4] = "1"\n  -> textbox "Qty" [ref=e4] = "2"\n~ text "Items: 1"\n  -> text "Items: 2"',
  );
});

test('diffSnapshots: a ref that moved without changing is unchanged; different roles are not paired', () => {
  const before = 'button "A" [ref=e1]\nbutton "B" [ref=e2]\ntext "x"';
  const after = 'button "B" [ref=e2]\nbutton "A" [ref=e1]\nheading "x" [level=2]';
  const d = diffSnapshots(before, after);
  assert.deepEqual(d.changed, []);
  assert.deepEqual(d.removed, ['text "x"']);
  assert.deepEqual(d.added, ['heading "x" [level=2]']);
  assert.equal(d.unchanged, 2);
});

test('diffSnapshots: against nothing, everything is added', () => {
  const d = diffSnapshots('', 'a\nb');
  assert.deepEqual(d, { added: ['a', 'b'], removed: [], changed: [], unchanged: 0 });
  assert.deepEqual(diffSnapshots('a\nb', '').removed, ['a', 'b']);
});

test('diffSnapshots: large inputs with many edits stay correct (multiset fallback)', () => {
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; i < 3000; i++) {
    a.push(`button "B${i}" [ref=e${i}]`);
    b.push(i % 2 ? `button "B${i}" [ref=e${i}]` : `button "B${i}!" [ref=e${i}]`);
  }
  b.push('text "new"');
  const d = diffSnapshots(a.join('\n'), b.join('\n'));
  assert.equal(d.changed.length, 1500);
  assert.deepEqual(d.added, ['text "new"']);
  assert.deepEqual(d.removed, []);
  assert.equal(d.unchanged, 1500);
  assert.deepEqual(d.changed[0], { before: 'button "B0" [ref=e0]', after: 'button "B0!" [ref=e0]' });
});
