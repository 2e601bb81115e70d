// Memory paths (src/modules/memory/paths.ts): the rules, and confinement after resolving links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { confine, validateMemoryPath } from '../../../src/modules/memory/paths.ts';
import { tempHome } from '../../support/server.ts';

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

test('confinement follows links: inside is fine, a link out of the directory is refused', () => {
  const base = tempHome();
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
