// npm installs are bounded: an npm that never ends (a registry that accepts and never answers, an install
// script that hangs) is stopped, and the install fails with its own code and a 504 saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../src/core/errors.ts';
import { npmInstall, parsePackageSpec } from '../../src/core/npm.ts';

test('an npm install that never ends is stopped at its bound: 504 with the install\'s code, nothing registered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-npm-'));
  try {
    const npm = join(dir, 'npm');
    writeFileSync(npm, '#!/bin/sh\necho "fetching from the registry"\nexec sleep 600\n');
    chmodSync(npm, 0o755);
    const started = Date.now();
    const failed = await npmInstall({ prefix: join(dir, 'prefix'), spec: parsePackageSpec('some-skill'), env: process.env, npm, onLine: () => undefined, code: 'SKILL_INSTALL_FAILED', timeoutMs: 300 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failed instanceof AppError);
    assert.deepEqual([failed.status, failed.code], [504, 'SKILL_INSTALL_FAILED']);
    assert.match(failed.message, /did not finish within 0 s and was stopped \(fetching from the registry\).*Nothing was registered/);
    assert.ok(Date.now() - started < 10_000, 'it did not wait for npm');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
