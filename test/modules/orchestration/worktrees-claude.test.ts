// The real claude CLI as a mutable isolated worker against the fake model (scenario:write): the file it
// writes appears only in its worktree, then in the user's tree after the merge.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, WRITE_FILE_NAME, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { startServer, type TestServer } from '../../support/server.ts';
import { call } from './support.ts';

describe('an isolated worker, real claude', { skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh' }, () => {
  let fake: FakeModel;
  let server: TestServer;
  let cwd: string;
  let runDir: string;
  before(async () => {
    fake = await startFakeModel();
    server = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
    runDir = mkdtempSync(join(tmpdir(), 'svc-wt-claude-'));
    const prepared = prepareRealCliEnv('claude', fake.url, runDir);
    cwd = prepared.cwd;
    writeFileSync(join(cwd, 'README.md'), '# project\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', 'README.md'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start']]) execFileSync('git', args, { cwd });
    server.app.services.settings.update({
      agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env: prepared.env, workingDir: cwd, retries: 0 },
      orchestration: { workerTimeoutSec: 120 },
    });
  });
  after(async () => {
    await server.close();
    await fake.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  test('its file lands in the worktree only, then in the tree after the merge', { timeout: 240_000 }, async () => {
    const worker = { name: 'builder', role: 'r', provider: 'claude', model: '', instructions: '', capability: 'mutable' };
    const run = await call(server, 'POST', '/api/orchestrate/dispatch', { virtual: worker, isolation: 'worktree', task: 'Write the file. scenario:write', wait: true });
    assert.equal(run.body.status, 'succeeded', JSON.stringify(run.body));
    const worktree = join(server.home, 'worktrees', run.body.runId);
    assert.equal(existsSync(join(worktree, WRITE_FILE_NAME)), true, 'claude wrote in its worktree');
    assert.equal(existsSync(join(cwd, WRITE_FILE_NAME)), false, 'and not in the user\'s tree');
    const diff = (await call(server, 'GET', `/api/orchestrate/worker-runs/${run.body.runId}/diff`)).body;
    assert.deepEqual(diff.files.map((f: { path: string; status: string }) => [f.path, f.status]), [[WRITE_FILE_NAME, 'added']]);
    const merged = await call(server, 'POST', `/api/orchestrate/worker-runs/${run.body.runId}/merge`, {});
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(existsSync(join(cwd, WRITE_FILE_NAME)), true, 'the merge brought it into the tree');
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' }), '');
  });
});
