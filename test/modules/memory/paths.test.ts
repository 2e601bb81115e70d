// Memory paths (src/modules/memory/paths.ts): the rules, and confinement after resolving links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confine, validateMemoryPath } from '../../../src/modules/memory/paths.ts';

// A temp folder of its own (not test/support/server.ts, which loads the whole server: this file runs
// once per mutant under `npm run mutate`).
function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-memory-paths-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('relative .md paths of ordinary names are accepted, in one spelling', () => {
  assert.equal(validateMemoryPath('profile.md'), 'profile.md');
  assert.equal(validateMemoryPath('notes/decisions.md'), 'notes/decisions.md');
  assert.equal(validateMemoryPath('episodes/2025-01-02.md'), 'episodes/2025-01-02.md');
  assert.equal(validateMemoryPath('notes/회의 기록.md'), 'notes/회의 기록.md');
  // NFD (as macOS writes names) becomes NFC
  assert.equal(validateMemoryPath('notes/회의.md'.normalize('NFD')), 'notes/회의.md');
});

test('traversal, absolute, hidden, odd and non-Markdown paths are refused with a reason', () => {
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['../secret.md', /'\.' and '\.\.'/],
    ['notes/../../x.md', /'\.' and '\.\.'/],
    ['./x.md', /'\.' and '\.\.'/],
    ['/etc/passwd.md', /relative/],
    ['~/x.md', /relative/],
    ['C:/x.md', /relative/],
    ['notes\\x.md', /use \//],
    ['.hidden.md', /hidden/],
    ['notes/.git/x.md', /hidden/],
    ['notes//x.md', /empty folder/],
    ['notes/x.txt', /Markdown/],
    ['notes/x', /Markdown/],
    ['notes/.md', /hidden/],
    ['notes/x\u0000.md', /control/],
    ['notes/a|b.md', /may hold only/],
    [`${'a/'.repeat(9)}x.md`, /deep/],
    [`${'a'.repeat(301)}.md`, /longer/],
  ];
  for (const [path, why] of refused) {
    assert.throws(() => validateMemoryPath(path), (err: { code?: string; message: string; status?: number }) => {
      assert.equal(err.code, 'INVALID_MEMORY_PATH', path);
      assert.equal(err.status, 400);
      assert.match(err.message, why, path);
      return true;
    });
  }
});

test('confinement follows links: inside is fine, a link out of the directory is refused', (t) => {
  const base = tempDir(t);
  const root = join(base, 'memory');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.md'), 'secret');
  writeFileSync(join(root, 'notes', 'a.md'), 'a');
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'secret.md'), join(root, 'notes', 'link.md'));
  symlinkSync(join(root, 'notes'), join(root, 'alias'));
  const real = realpathSync(root);

  assert.deepEqual(confine(real, 'notes/a.md'), { absolute: join(real, 'notes/a.md'), exists: true });
  assert.deepEqual(confine(real, 'notes/new/deeper.md'), { absolute: join(real, 'notes/new/deeper.md'), exists: false });
  assert.equal(confine(real, 'alias/a.md').exists, true, 'a link that stays inside');
  assert.throws(() => confine(real, 'escape/secret.md'), /outside the memory directory/);
  assert.throws(() => confine(real, 'escape/new.md'), /outside the memory directory/);
  assert.throws(() => confine(real, 'notes/link.md'), /outside the memory directory/);
  assert.throws(() => confine(real, 'notes'), /folder/);
  assert.throws(() => confine(real, 'notes/a.md/x.md'), /is a file/);
});

// The reason a path is refused is the answer's message: the exact sentence, with the fix.
const refusal = (path: string) => {
  try {
    validateMemoryPath(path);
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};
const says = (path: string, why: string) => `Invalid memory path '${path}': ${why}. Give a relative path ending in .md, e.g. notes/decisions.md.`;

test('each rule refuses with its own sentence, and the error names the path field', () => {
  assert.equal(refusal(''), says('', 'it is empty'));
  assert.equal(refusal('a\u0001.md'), says('a\u0001.md', 'it contains control characters'));
  assert.equal(refusal('a\u001f.md'), says('a\u001f.md', 'it contains control characters'));
  assert.equal(refusal('a\u007f.md'), says('a\u007f.md', 'it contains control characters'));
  assert.equal(refusal('a\\b.md'), says('a\\b.md', 'use / between folders'));
  for (const path of ['/x.md', '~/x.md', 'c:x.md', 'Z:/x.md']) assert.equal(refusal(path), says(path, 'it must be relative to the memory directory'));
  assert.equal(refusal('a//b.md'), says('a//b.md', 'it has an empty folder name'));
  assert.equal(refusal('a/'), says('a/', 'it has an empty folder name'));
  assert.equal(refusal('a/../b.md'), says('a/../b.md', "'.' and '..' are not allowed"));
  assert.equal(refusal('a/./b.md'), says('a/./b.md', "'.' and '..' are not allowed"));
  assert.equal(refusal('.x/b.md'), says('.x/b.md', 'hidden names (starting with a dot) are not allowed'));
  assert.equal(refusal('a/b:c.md'), says('a/b:c.md', "'b:c.md' may hold only letters, digits, spaces, '.', '-' and '_'"));
  assert.equal(refusal('a/x.txt'), says('a/x.txt', 'only Markdown files (.md) are memory'));
  assert.equal(refusal('a.md/b'), says('a.md/b', 'only Markdown files (.md) are memory'));
  assert.throws(() => validateMemoryPath('x'), (err: { details?: unknown }) => (assert.deepEqual(err.details, { field: 'path' }), true));
});

test('the limits, at their edges: 300 characters, 8 levels, 100 characters a name', () => {
  const at300 = `${'a'.repeat(99)}/${'b'.repeat(99)}/${'c'.repeat(97)}.md`;
  assert.equal(at300.length, 300);
  assert.equal(refusal(at300), 'accepted');
  const at301 = `d${at300}`;
  assert.equal(refusal(at301), says(at301.slice(0, 300), 'it is longer than 300 characters'));
  // the message quotes at most the first 300 characters of what was given
  const long = 'x'.repeat(400);
  assert.equal(refusal(long), says('x'.repeat(300), 'it is longer than 300 characters'));
  const depth8 = `${'a/'.repeat(7)}x.md`;
  assert.equal(refusal(depth8), 'accepted');
  const depth9 = `${'a/'.repeat(8)}x.md`;
  assert.equal(refusal(depth9), says(depth9, 'it is more than 8 folders deep'));
  const name100 = `${'n'.repeat(97)}.md`;
  assert.equal(refusal(name100), 'accepted');
  assert.equal(refusal(`n${name100}`), says(`n${name100}`, `'n${name100}' may hold only letters, digits, spaces, '.', '-' and '_'`));
});

test('what a name may hold: it starts with a letter, digit or _, then also spaces, dots, dashes, marks', () => {
  for (const path of ['_x.md', '9.md', 'é.md', 'a b-c_d.e.md', 'Ünïcode/ünï.md', 'e\u0301.md'.normalize('NFD')]) assert.equal(refusal(path), 'accepted', path);
  for (const path of ['-x.md', ' x.md', '\u0301x.md', 'a/+b.md', 'a*.md', 'a?.md', 'a"b.md', 'a\u00a0b.md']) assert.match(refusal(path), /may hold only/, path);
  // a name is only Markdown when something comes before '.md'
  assert.equal(refusal('x.md.txt'), says('x.md.txt', 'only Markdown files (.md) are memory'));
  assert.equal(refusal('x.mdx'), says('x.mdx', 'only Markdown files (.md) are memory'));
});

test('confinement: a new folder under the root, a sibling directory named like the root, a broken link', (t) => {
  const base = tempDir(t);
  const root = join(base, 'memory');
  mkdirSync(root, { recursive: true });
  mkdirSync(join(base, 'memory-other'));
  writeFileSync(join(base, 'memory-other', 'x.md'), 'x');
  symlinkSync(join(base, 'memory-other'), join(root, 'sibling'));
  symlinkSync(join(base, 'missing'), join(root, 'broken'));
  writeFileSync(join(root, 'top.md'), 't');
  const real = realpathSync(root);
  assert.deepEqual(confine(real, 'fresh/new.md'), { absolute: join(real, 'fresh/new.md'), exists: false });
  assert.deepEqual(confine(real, 'new.md'), { absolute: join(real, 'new.md'), exists: false });
  assert.throws(() => confine(real, 'sibling/x.md'), (err: Error) => err.message === says('sibling/x.md', 'it leads outside the memory directory'));
  assert.throws(() => confine(real, 'broken/x.md'), (err: Error) => err.message === says('broken/x.md', 'it leads through a broken link'));
  assert.throws(() => confine(real, 'top.md/x.md'), (err: Error) => err.message === says('top.md/x.md', "'top.md' is a file, not a folder"));
  mkdirSync(join(root, 'dir.md'));
  assert.throws(() => confine(real, 'dir.md'), (err: Error) => err.message === says('dir.md', 'it is a folder, not a file'));
});
