// `svc goal|task|wakeup …` against a running server: as a person, and as the agent of a run (its
// SVC_RUN_TOKEN makes the server treat the call as the agent's), with --json and exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';
import { runSvc } from '../support/cli.ts';


// the tests' own environment never passes for an agent's run
const svc = (args: string[], env: NodeJS.ProcessEnv = {}) => runSvc(args, { env: { SVC_RUN_TOKEN: '', ...env } });

test('svc goal, task and wakeup', { timeout: 120_000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const env = { SVC_URL: server.url };
  const root = mkdtempSync(join(tmpdir(), 'svc-goal-cli-'));

  const set = await svc(['goal', 'set', 'write', 'notes.md', '--root', root, '--turns', '4'], env);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /^goal set; .*\ngoal_\S+ \[active, assist\] write notes\.md\nused: 0\/4 turns/);
  const status = JSON.parse((await svc(['goal', '--json'], env)).stdout);
  assert.equal(status.goal.objective, 'write notes.md');

  // the agent, through its run credential
  const sessionId = server.app.services.chat.activeSession().id;
  const agent = { ...env, SVC_RUN_TOKEN: server.app.services.credentials.issue({ runId: 'tr_cli', sessionId }, 60_000) };
  const first = await svc(['goal', 'pause', '--reason', 'unsure'], agent);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /pause request recorded, not executed/);
  assert.match((await svc(['goal', 'resume'], agent)).stdout, /withdrawn/);

  const rejected = await svc(['goal', 'done'], agent);
  assert.equal(rejected.code, 1);
  assert.match(rejected.stderr, /svc goal done: The goal is not complete: no checkpoint yet/);
  writeFileSync(join(root, 'notes.md'), 'notes\n');
  const update = await svc(['goal', 'update', 'wrote', 'the', 'notes', '--evidence', 'notes.md', '--next', 'finish'], agent);
  assert.equal(update.code, 0, update.stderr);
  assert.match(update.stdout, /evidence: notes\.md/);
  const done = await svc(['goal', 'done', '--json'], agent);
  assert.equal(done.code, 0, done.stderr);
  assert.equal(JSON.parse(done.stdout).goal.status, 'complete');
  assert.match((await svc(['goal', 'history'], env)).stdout, /\[complete\] write notes\.md/);

  const added = await svc(['task', 'add', 'ship', 'it', '--owner', 'worker-2', '--json'], env);
  const task = JSON.parse(added.stdout).task;
  assert.equal(task.owner, 'worker-2');
  assert.match((await svc(['task'], env)).stdout, new RegExp(`${task.id} \\[pending\\] ship it \\(worker-2\\)`));
  assert.match((await svc(['task', 'done', task.id], env)).stdout, /\[done\]/);
  assert.equal((await svc(['task', 'update', 'task_nope', '--status', 'done'], env)).code, 1);

  const wake = await svc(['wakeup', '--in', '10m', 'check', 'the', 'build'], env);
  assert.equal(wake.code, 0, wake.stderr);
  assert.match(wake.stdout, /^wakeup #\d+ at .*: check the build\n$/);
  assert.equal((await svc(['wakeup', 'x'], env)).code, 2);
  const bad = await svc(['wakeup', '--in', 'later', 'x'], env);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /not a delay/);
  assert.match((await svc(['wakeup', 'list'], env)).stdout, /pending .* check the build/);
});
