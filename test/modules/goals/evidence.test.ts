// Evidence files for `svc goal done`: what counts is where a path leads once symlinks are resolved,
// so a link inside the project root cannot lend it a file that lives elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFiles, verdict } from '../../../src/modules/goals/evidence.ts';
import type { Checkpoint } from '../../../src/protocol/goals.ts';

/** A project root, and beside it (outside) an existing file and a directory holding one. */
function layout() {
  const base = mkdtempSync(join(tmpdir(), 'svc-evidence-'));
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(join(outside, 'docs'), { recursive: true });
  writeFileSync(join(outside, 'report.md'), 'not the project\'s\n');
  writeFileSync(join(outside, 'docs', 'a.md'), 'not the project\'s\n');
  return { root, outside };
}

const checkpoint = (paths: string[]): Checkpoint => ({
  id: 1,
  summary: 'wrote it',
  nextAction: '',
  evidence: paths.map((path) => ({ path, exists: true })),
  check: null,
  actor: 'agent',
  createdAt: 0,
});

test('a symlink inside the project root that leads outside it is no evidence, though its target exists', () => {
  const { root, outside } = layout();
  symlinkSync(join(outside, 'report.md'), join(root, 'report.md'));
  symlinkSync(join(outside, 'docs'), join(root, 'docs'));
  assert.deepEqual(checkFiles(root, ['report.md', 'docs/a.md']), [
    { path: 'report.md', exists: false },
    { path: 'docs/a.md', exists: false },
  ]);
  const done = verdict(checkpoint(['report.md', 'docs/a.md']), root);
  assert.equal(done.ok, false, 'done is refused on links that lead outside');
});

test('files under the root count, and so does a symlink that stays inside it', () => {
  const { root } = layout();
  writeFileSync(join(root, 'report.md'), '# Report\n');
  symlinkSync(join(root, 'report.md'), join(root, 'latest.md'));
  assert.deepEqual(checkFiles(root, ['report.md', 'latest.md', 'missing.md']), [
    { path: 'report.md', exists: true },
    { path: 'latest.md', exists: true },
    { path: 'missing.md', exists: false },
  ]);
  assert.deepEqual(verdict(checkpoint(['latest.md']), root), { ok: true });
});

test('a path that names a place outside the root is refused, not merely missing', () => {
  const { root } = layout();
  for (const path of ['../outside/report.md', '/etc/passwd', '..']) {
    assert.throws(() => checkFiles(root, [path]), (err: { code?: string }) => err.code === 'VALIDATION_FAILED', path);
  }
});
