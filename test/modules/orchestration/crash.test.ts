// kill -9 of the server while a worker runs: after restart the run is orphaned with a reason, its
// process (and the process's child) is gone, and its result is delivered once, never twice; an isolated
// worker's worktree survives it, without the locks a killed git leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_CLIS, isAlive, readInvocations } from '../../support/agent.ts';
import { freePort } from '../../support/ports.ts';
import { startServer, tempHome } from '../../support/server.ts';
import { call, waitFor } from './support.ts';

const BIN = join(import.meta.dirname, '../../../bin/svc.js');

async function serve(home: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', String(port), '--proxy-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
      if (out.includes('data directory:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`svc exited with ${code}`)));
  });
  return child;
}

test('a server killed with -9 during a worker run: orphaned after restart, process gone, delivered once', { timeout: 120_000 }, async (t) => {
  const home = tempHome();
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-fake-state-'));
  t.after(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  });
  const port = await freePort();
  const child = await serve(home, port);
  const target = { url: `http://127.0.0.1:${port}` };
  let workerPid: number;
  let grandchild: number;
  let runId: string;
  try {
    const settings = await call(target, 'PUT', '/api/settings', { agent: { executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: stateDir } } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const accepted = await call(target, 'POST', '/api/orchestrate/dispatch', { employee: 'tester', task: 'long job hang spawnchild' });
    assert.equal(accepted.status, 202);
    runId = accepted.body.runId;
    workerPid = await waitFor(() => readInvocations(stateDir)[0]?.pid, 'the worker CLI');
    grandchild = await waitFor(() => (existsSync(join(stateDir, 'child.pid')) ? Number(readFileSync(join(stateDir, 'child.pid'), 'utf8')) : undefined), 'its child');
    await waitFor(async () => (await call(target, 'GET', `/api/orchestrate/worker-runs/${runId}`)).body.status === 'running', 'running');
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  assert.ok(isAlive(workerPid), 'the worker outlived the killed server (its own process group)');

  const second = await startServer({ home, killGraceMs: 300 });
  try {
    const run = await waitFor(async () => {
      const r = (await call(second, 'GET', `/api/orchestrate/worker-runs/${runId!}`)).body;
      return r.status === 'orphaned' ? r : undefined;
    }, 'orphaned');
    assert.match(run.reason, /server stopped/);
    assert.ok(run.deliveredAt, 'its result (orphaned) was delivered');
    await waitFor(() => !isAlive(workerPid) && !isAlive(grandchild), 'the worker and its child to be gone');
    const messages = (await call(second, 'GET', '/api/messages?limit=200')).body.messages as { content: string }[];
    assert.equal(messages.filter((m) => m.content.includes(`Run ${runId!}`)).length, 1);
  } finally {
    await second.close({ removeHome: false });
  }
  const third = await startServer({ home });
  try {
    const messages = (await call(third, 'GET', '/api/messages?limit=200')).body.messages as { content: string }[];
    assert.equal(messages.filter((m) => m.content.includes(`Run ${runId!}`)).length, 1, 'not delivered again by the next start');
  } finally {
    await third.close({ removeHome: false });
  }
});

test('a server killed with -9 while an isolated worker writes: after restart its worktree is listed as orphaned, no lock is left, its diff is served and it can be discarded', { timeout: 120_000 }, async (t) => {
  const home = tempHome();
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-fake-state-'));
  const repo = mkdtempSync(join(tmpdir(), 'svc-crash-repo-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'start\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start');
  t.after(() => {
    for (const dir of [home, stateDir, repo]) rmSync(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  const child = await serve(home, port);
  const target = { url: `http://127.0.0.1:${port}` };
  let runId: string;
  try {
    const settings = await call(target, 'PUT', '/api/settings', { agent: { workingDir: repo, executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: stateDir } } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const writer = { name: 'w', role: 'r', provider: 'claude', model: '', instructions: '', capability: 'mutable' };
    const accepted = await call(target, 'POST', '/api/orchestrate/dispatch', { virtual: writer, isolation: 'worktree', task: 'half done write:half.txt=half hang' });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    runId = accepted.body.runId;
    await waitFor(async () => (await call(target, 'GET', `/api/orchestrate/worker-runs/${runId}`)).body.status === 'running' || undefined, 'running');
    await waitFor(() => readInvocations(stateDir)[0]?.pid, 'the worker CLI');
    await waitFor(() => existsSync(join(home, 'worktrees', runId, 'half.txt')), 'its first write');
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  // what a git killed mid-commit in the worktree leaves behind
  const gitdir = join(repo, '.git', 'worktrees', runId!);
  writeFileSync(join(gitdir, 'index.lock'), '');
  writeFileSync(join(gitdir, 'locked'), 'initializing');

  const second = await startServer({ home, killGraceMs: 300 });
  try {
    const listed = await waitFor(async () => {
      const [w] = (await call(second, 'GET', '/api/orchestrate/worktrees')).body.worktrees;
      return w?.orphaned ? w : undefined;
    }, 'the orphaned worktree');
    assert.equal(listed.runId, runId!);
    assert.equal(existsSync(join(gitdir, 'index.lock')), false, 'the stale index lock is gone');
    assert.doesNotMatch(git('worktree', 'list', '--porcelain'), /^locked/m);
    const diff = (await call(second, 'GET', `/api/orchestrate/worker-runs/${runId!}/diff`)).body;
    assert.deepEqual(diff.files.map((f: { path: string }) => f.path), ['half.txt']);
    assert.equal((await call(second, 'DELETE', `/api/orchestrate/worker-runs/${runId!}/worktree`)).status, 200);
    assert.equal(git('branch', '--list', 'svc/*'), '');
    assert.doesNotMatch(git('worktree', 'list'), new RegExp(runId!));
  } finally {
    await second.close({ removeHome: false });
  }
});
