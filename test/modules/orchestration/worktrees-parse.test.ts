// The pure readers of git's -z output and the review's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { capPatch, diffFiles, parseMergeTree, parseStatusPaths } from '../../../src/modules/orchestration/worktrees/parse.ts';
import { followUpTask, mergeMessage } from '../../../src/modules/orchestration/worktrees/review.ts';

test('name-status and numstat together: added, modified, deleted, renamed (old path kept), binary; paths with spaces, tabs and newlines', () => {
  const nameStatus = ['A', 'new file.txt', 'M', 'src/a\tb.ts', 'D', 'gone\n.md', 'R087', 'old.ts', 'moved/new.ts', 'M', 'logo.png', ''].join('\0');
  const numstat = ['3\t0\tnew file.txt', '2\t1\tsrc/a\tb.ts', '0\t4\tgone\n.md', '1\t1\t', 'old.ts', 'moved/new.ts', '-\t-\tlogo.png', ''].join('\0');
  assert.deepEqual(diffFiles(nameStatus, numstat), [
    { status: 'added', path: 'new file.txt', additions: 3, deletions: 0, binary: false },
    { status: 'modified', path: 'src/a\tb.ts', additions: 2, deletions: 1, binary: false },
    { status: 'deleted', path: 'gone\n.md', additions: 0, deletions: 4, binary: false },
    { status: 'renamed', path: 'moved/new.ts', oldPath: 'old.ts', additions: 1, deletions: 1, binary: false },
    { status: 'modified', path: 'logo.png', additions: 0, deletions: 0, binary: true },
  ]);
  assert.deepEqual(diffFiles('', ''), []);
});

test('merge-tree: the tree, then each conflicting file once', () => {
  assert.deepEqual(parseMergeTree('8b81b75b\0'), { tree: '8b81b75b', conflicts: [] });
  assert.deepEqual(parseMergeTree('8b81b75b\0f\0f\0dir/g h\0'), { tree: '8b81b75b', conflicts: ['f', 'dir/g h'] });
});

test('status: every path with a change, both sides of a rename, untracked too', () => {
  assert.deepEqual(parseStatusPaths([' M a.txt', '?? new dir/b.txt', 'R  to.txt', 'from.txt', 'D  gone', ''].join('\0')), ['a.txt', 'new dir/b.txt', 'to.txt', 'from.txt', 'gone']);
  assert.deepEqual(parseStatusPaths(''), []);
});

test('the patch cap keeps whole lines, never more bytes than the cap, and multi-byte text intact', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 60 }), fc.integer({ min: 1, max: 400 }), (lines, max) => {
      // U+FFFD is what a cut multi-byte character decodes to, so the input never has one of its own.
      const patch = lines.map((l) => `${l.replace(/[\n\uFFFD]/g, '')}\n`).join('');
      const { patch: kept, truncated } = capPatch(patch, max);
      assert.equal(truncated, Buffer.byteLength(patch) > max);
      assert.ok(Buffer.byteLength(kept) <= max || !truncated);
      assert.ok(patch.startsWith(kept));
      if (truncated) assert.ok(kept === '' || kept.endsWith('\n'));
      assert.doesNotMatch(kept, /\uFFFD/);
    }),
  );
});

test('a follow-up is told the task first and the comments last, each at its place; the merge commit names the run', () => {
  const task = followUpTask({ runId: 'tr_first', task: 'Write the greeting.' }, [{ path: 'a.txt', line: 3, body: ' louder ' }, { path: 'b.txt', body: 'remove it' }]);
  assert.match(task, /earlier run tr_first/);
  assert.ok(task.indexOf('Write the greeting.') < task.indexOf('- a.txt:3: louder'));
  assert.match(task, /- b\.txt: remove it$/);
  const message = mergeMessage({ runId: 'tr_x', employee: { id: 'builder' }, task: `${'a'.repeat(80)}\nmore`, reviewOf: 'tr_w' });
  assert.match(message, /^svc: worker run tr_x \(builder\): a{59}…\n\nMerged from branch svc\/tr_x .*a follow-up of tr_w/);
});
