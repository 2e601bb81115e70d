// The goal routes over HTTP: bad input, wrong states, done refused without evidence and accepted with
// it (files under the project root, a check command the server runs), the agent's pause gate through
// its run credential, and goal events on the SSE stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { record, until } from './helpers.ts';

const goal = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  getJson(`${url}/api/goal`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

test('bad input and wrong states are 4xx with the reason', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { url } = server;
  assert.deepEqual((await getJson(`${url}/api/goal`)).body.goal, null);
  assert.equal((await goal(url, { action: 'fly' })).status, 400);
  assert.equal((await goal(url, { action: 'set' })).status, 400);
  assert.equal((await goal(url, { action: 'set', objective: 'x'.repeat(10_001) })).status, 400);
  assert.equal((await goal(url, { action: 'set', objective: 'a', projectRoot: 'relative/dir' })).body.error, 'INVALID_PROJECT_ROOT');
  assert.equal((await goal(url, { action: 'set', objective: 'a', budget: { maxTurns: 0 } })).status, 400);
  const none = await goal(url, { action: 'done' });
  assert.equal(none.status, 404);
  assert.equal(none.body.error, 'NO_GOAL');

  const set = await goal(url, { action: 'set', objective: 'write the docs', budget: { maxTurns: 5 } });
  assert.equal(set.status, 200);
  assert.equal(set.body.goal.status, 'active');
  assert.deepEqual(set.body.goal.budget, { maxTurns: 5 });
  const again = await goal(url, { action: 'set', objective: 'another' });
  assert.equal(again.status, 409);
  assert.equal(again.body.error, 'GOAL_EXISTS');
  assert.match(again.body.message, /already has an active goal/);
  // a person's pause acts at once; an update on a paused goal is refused
  assert.equal((await goal(url, { action: 'pause', reason: 'lunch' })).body.goal.status, 'paused');
  const update = await goal(url, { action: 'update', summary: 'did it' });
  assert.equal(update.status, 409);
  assert.equal(update.body.error, 'GOAL_STATE');
  assert.equal((await goal(url, { action: 'resume' })).body.goal.status, 'active');
  // evidence outside the project root is refused
  assert.equal((await goal(url, { action: 'update', summary: 's', evidence: '../../etc/passwd' })).status, 400);
  // replace ends the old goal; the history keeps both
  const replaced = await goal(url, { action: 'set', objective: 'another', replace: true });
  assert.equal(replaced.status, 200);
  const history = await getJson(`${url}/api/goal/history?limit=5`);
  assert.deepEqual(history.body.goals.map((g: any) => [g.objective, g.status]), [['another', 'active'], ['write the docs', 'cancelled']]);
  assert.equal((await getJson(`${url}/api/goal/history?limit=0`)).status, 400);
  const cleared = await goal(url, { action: 'clear' });
  assert.equal(cleared.body.goal, null);
});

test('done is refused without checkable evidence and accepted with it; goal events reach SSE clients', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { url } = server;
  const seen = record(server.app);
  const root = mkdtempSync(join(tmpdir(), 'svc-goal-root-'));
  const sse = await openSse(`${url}/api/events`);
  t.after(() => sse.close());
  await goal(url, { action: 'set', objective: 'produce report.md', projectRoot: root });

  const noCheckpoint = await goal(url, { action: 'done' });
  assert.equal(noCheckpoint.status, 409);
  assert.equal(noCheckpoint.body.error, 'GOAL_DONE_REJECTED');
  assert.match(noCheckpoint.body.reason, /no checkpoint/);

  const missing = await goal(url, { action: 'update', summary: 'wrote it', evidence: ['report.md'] });
  assert.equal(missing.status, 200);
  assert.deepEqual(missing.body.checkpoints[0].evidence, [{ path: 'report.md', exists: false }]);
  assert.match(missing.body.outcome, /not found/);
  const rejected = await goal(url, { action: 'done' });
  assert.equal(rejected.status, 409);
  assert.match(rejected.body.reason, /report\.md/);
  const view = await getJson(`${url}/api/goal`);
  assert.equal(view.body.goal.status, 'active');
  assert.match(view.body.goal.lastDoneRejection, /report\.md/);

  // a failing check is no evidence; the check ran in the project root and its exit code is recorded
  const failing = await goal(url, { action: 'update', summary: 'tested', check: 'test -f report.md' });
  assert.equal(failing.body.checkpoints[0].check.exitCode, 1);
  assert.equal((await goal(url, { action: 'done' })).status, 409);

  writeFileSync(join(root, 'report.md'), '# Report\n');
  const passing = await goal(url, { action: 'update', summary: 'tested again', check: 'test -f report.md && echo ok' });
  assert.equal(passing.body.checkpoints[0].check.exitCode, 0);
  assert.match(passing.body.checkpoints[0].check.output, /ok/);
  const done = await goal(url, { action: 'done', note: 'shipped' });
  assert.equal(done.status, 200);
  assert.equal(done.body.goal.status, 'complete');
  assert.equal((await goal(url, { action: 'done' })).status, 409);

  const goalId = done.body.goal.id;
  const rejections = seen.filter((s) => s.name === 'goal_done_rejected');
  assert.equal(rejections.length, 3);
  assert.equal(rejections[0]!.payload.goalId, goalId);
  await until(() => sse.messages.find((m) => m.data.event === 'goal_done'), 'goal_done on SSE');
  const wire = sse.messages.find((m) => m.data.event === 'goal_done')!.data;
  assert.equal(wire.goalId, goalId);
  assert.equal(wire.topic, 'goal');
  assert.ok(sse.messages.some((m) => m.data.event === 'goal_done_rejected' && typeof m.data.reason === 'string'));
});

test("the agent's pause through its run credential: the first request arms the gate (a normal answer), the second with its audit pauses", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { url } = server;
  const seen = record(server.app);
  const sessionId = server.app.services.chat.activeSession().id;
  await goal(url, { action: 'set', objective: 'migrate the database' });
  const token = server.app.services.credentials.issue({ runId: 'tr_test', sessionId }, 60_000);
  const agent = { 'x-svc-run-token': token };

  const missing = await goal(url, { action: 'pause' }, agent);
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error, 'GOAL_PAUSE_NEEDS_AUDIT');
  const first = await goal(url, { action: 'pause', reason: 'the staging DB is down' }, agent);
  assert.equal(first.status, 200);
  assert.match(first.body.outcome, /not executed/);
  assert.equal(first.body.goal.status, 'active');
  assert.equal(first.body.pauseGate.state, 'audit_scheduled');
  assert.equal(first.body.pauseGate.reason, 'the staging DB is down');
  assert.ok(seen.some((s) => s.name === 'goal_pause_gate_pending' && s.payload.reason === 'pause_gate_pending'));
  assert.ok(seen.some((s) => s.name === 'goal_continuation' && s.payload.kind === 'audit'), 'one audit turn is scheduled');
  // the agent cannot cancel, nor drive the goal-run, nor act on another chat's goal
  assert.equal((await goal(url, { action: 'cancel' }, agent)).status, 403);
  assert.equal((await goal(url, { action: 'update', summary: 'x', sessionId: 'ses_other' }, agent)).status, 400);
  const run = await getJson(`${url}/api/goal-run`, { method: 'POST', headers: { 'content-type': 'application/json', ...agent }, body: JSON.stringify({ action: 'stop' }) });
  assert.equal(run.body.error, 'GOAL_HUMAN_ONLY');

  const second = await goal(url, { action: 'pause', audit: 'nothing can go on until staging is back' }, agent);
  assert.equal(second.status, 200);
  assert.equal(second.body.goal.status, 'paused');
  assert.equal(second.body.pauseGate.state, 'open');
  // the scheduled audit turn is dropped with the pause
  const { count } = server.app.services.db.prepare("SELECT count(*) AS count FROM scheduled_turns WHERE state = 'pending'").get() as { count: number };
  assert.equal(count, 0);

  // a credential whose run ended is never taken for a person
  server.app.services.credentials.revoke('tr_test');
  assert.equal((await goal(url, { action: 'resume' }, agent)).status, 401);
});

test('goal-run: preflight gates with reasons, dry-run shows the next prompt, stop and complete', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { url } = server;
  const none = await getJson(`${url}/api/goal-run/preflight?mode=bounded`);
  assert.equal(none.status, 200);
  assert.deepEqual(none.body.gates.find((g: any) => g.gate === 'active-goal'), { gate: 'active-goal', passed: false, reason: 'no goal: set one first' });
  assert.equal((await getJson(`${url}/api/goal-run/preflight?mode=fast`)).status, 400);
  const run = (body: unknown) => sendJson(`${url}/api/goal-run`, 'POST', body);
  assert.equal((await run({ action: 'start', mode: 'assist' })).body.error, 'NO_GOAL');

  await goal(url, { action: 'set', objective: 'count to ten' });
  const bounded = await getJson(`${url}/api/goal-run/preflight?mode=bounded`);
  assert.ok(bounded.body.gates.every((g: any) => g.passed), JSON.stringify(bounded.body.gates));
  assert.deepEqual(bounded.body.budget, { maxTurns: 10, maxMinutes: 60, maxDispatches: 5 });
  assert.deepEqual(bounded.body.gates.map((g: any) => g.gate), ['active-goal', 'orchestration-idle', 'no-busy-worker', 'no-undelivered-result', 'budget-left', 'pause-gate-open']);

  const dry = await run({ action: 'start', mode: 'dry-run' });
  assert.equal(dry.status, 200);
  assert.match(dry.body.nextPrompt, /Objective: count to ten/);
  assert.match(dry.body.outcome, /nothing runs/);
  assert.equal((await getJson(`${url}/api/goal`)).body.goal.mode, 'dry-run');
  const stopped = await run({ action: 'stop' });
  assert.equal(stopped.body.status, 'stopped');
  const complete = await run({ action: 'complete' });
  assert.equal(complete.status, 409);
  assert.equal(complete.body.error, 'GOAL_DONE_REJECTED');
  assert.equal((await run({ action: 'approve' })).body.error, 'GOAL_NOT_SUPERVISED');
});

test('tasks: add, update, done, clear; filters; dependencies must exist and never loop', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { url } = server;
  const seen = record(server.app);
  const task = (body: unknown) => sendJson(`${url}/api/task`, 'POST', body);
  const a = (await task({ action: 'add', content: 'write tests' })).body.task;
  assert.equal(a.status, 'pending');
  assert.equal(a.owner, 'main');
  const b = (await task({ action: 'add', content: 'fix bugs', owner: 'worker-1', after: [a.id] })).body.task;
  assert.deepEqual(b.after, [a.id]);
  assert.equal((await task({ action: 'add', content: 'x', after: ['task_nope'] })).status, 400);
  assert.equal((await task({ action: 'update', id: a.id, after: [b.id] })).body.error, 'TASK_CYCLE');
  assert.equal((await task({ action: 'update', id: 'task_nope', status: 'done' })).status, 404);
  assert.equal((await task({ action: 'add', content: '' })).status, 400);
  assert.equal((await task({ action: 'update', id: b.id, status: 'in_progress' })).body.task.status, 'in_progress');
  assert.equal((await task({ action: 'done', id: a.id })).body.task.status, 'done');
  assert.deepEqual((await getJson(`${url}/api/task?owner=worker-1`)).body.tasks.map((x: any) => x.id), [b.id]);
  assert.deepEqual((await getJson(`${url}/api/task?status=done`)).body.tasks.map((x: any) => x.id), [a.id]);
  assert.equal((await getJson(`${url}/api/task?status=finished`)).status, 400);
  assert.equal((await task({ action: 'clear' })).body.removed, 1);
  assert.deepEqual((await getJson(`${url}/api/task`)).body.tasks.map((x: any) => x.id), [b.id]);
  assert.deepEqual(seen.filter((s) => s.name === 'task_update').map((s) => s.payload.action), ['add', 'add', 'update', 'done', 'clear']);
});
