// The continuation loop with a real server and the fake claude CLI: it stops at the turn budget with
// goal_continuation_limit, a restart between turns resumes it once (not twice), and a wakeup fires
// after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInvocations, startAgentServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { record, until } from './helpers.ts';

/** What the fake CLIs were asked, across servers that share one state directory. */
const invocationsIn = readInvocations;

/** A server whose goals take their next turn after `delaySec` (the `goals` setting, kept across a restart). */
async function goalServer(delaySec: number) {
  const server = await startAgentServer({ provider: 'claude' });
  server.app.services.settings.update({ goals: { turnDelaySec: delaySec } });
  return server;
}

const goalPrompts = (invocations: { prompt: string }[]) => invocations.filter((i) => i.prompt.startsWith('[goal '));

test('an active goal continues after each turn and stops at its turn budget', { timeout: 60_000 }, async (t) => {
  const server = await goalServer(0.01);
  t.after(() => server.close());
  const seen = record(server.app);
  await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'say hello three times', budget: { maxTurns: 3 } });
  await (await postNdjson(`${server.url}/api/message`, { prompt: 'start on the goal' })).done;
  const limit = await until(() => seen.find((s) => s.name === 'goal_continuation_limit'), 'goal_continuation_limit');
  assert.match(limit.payload.reason, /3\/3 turns/);
  // the user's turn and two continuations: three turns, then nothing more
  assert.equal(goalPrompts(server.invocations()).length, 2);
  assert.equal(seen.filter((s) => s.name === 'goal_continuation').length, 2);
  const { body } = await getJson(`${server.url}/api/goal`);
  assert.deepEqual([body.goal.usage.turns, body.goal.runStatus], [3, 'stopped']);
  assert.match(body.goal.note, /turn budget/);
  assert.match(goalPrompts(server.invocations())[0]!.prompt, /Objective: say hello three times/);
});

test('a restart between turns resumes the loop once, not twice', { timeout: 60_000 }, async () => {
  let server = await goalServer(1.5);
  const home = server.home;
  try {
    const seen = record(server.app);
    await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'survive a restart', budget: { maxTurns: 2 } });
    await (await postNdjson(`${server.url}/api/message`, { prompt: 'begin' })).done;
    await until(() => seen.find((s) => s.name === 'goal_continuation'), 'the next turn scheduled');
    await server.close({ removeHome: false });
    assert.equal(goalPrompts(server.invocations()).length, 0, 'nothing ran before the stop');
    const stateDir = server.stateDir;
    server = await startAgentServer({ provider: 'claude', env: { FAKE_CLI_STATE: stateDir } }, { home });
    const after = record(server.app);
    await until(() => after.find((s) => s.name === 'goal_continuation_limit'), 'the budget reached after the restart');
    assert.equal(goalPrompts(invocationsIn(stateDir)).length, 1);
    const rows = server.app.services.db.prepare("SELECT state FROM scheduled_turns WHERE kind = 'continue'").all() as { state: string }[];
    assert.deepEqual(rows.map((r) => r.state), ['done']);
  } finally {
    await server.close();
  }
});

test('a wakeup is persisted and fires after a restart; a bad delay is schedule_wakeup_failed', { timeout: 60_000 }, async () => {
  let server = await startAgentServer({ provider: 'claude' });
  const home = server.home;
  try {
    const seen = record(server.app);
    const bad = await sendJson(`${server.url}/api/wakeup`, 'POST', { in: 'soon', prompt: 'x' });
    assert.equal(bad.body.error, 'INVALID_DELAY');
    const tooFar = await sendJson(`${server.url}/api/wakeup`, 'POST', { delaySeconds: 0, prompt: 'x' });
    assert.equal(tooFar.body.error, 'INVALID_DELAY');
    assert.ok(seen.some((s) => s.name === 'schedule_wakeup_failed'));
    const made = await sendJson(`${server.url}/api/wakeup`, 'POST', { in: '2s', prompt: 'wake up and check the build', reason: 'build' });
    assert.equal(made.status, 201);
    assert.equal(made.body.state, 'pending');
    assert.ok(seen.some((s) => s.name === 'schedule_wakeup' && s.payload.id === made.body.id));
    const stateDir = server.stateDir;
    await server.close({ removeHome: false });
    server = await startAgentServer({ provider: 'claude', env: { FAKE_CLI_STATE: stateDir } }, { home });
    await until(() => invocationsIn(stateDir).find((i) => i.prompt === 'wake up and check the build'), 'the wakeup prompt reaching the agent');
    const list = await getJson(`${server.url}/api/wakeup`);
    assert.equal(list.body.wakeups[0].state, 'fired');
  } finally {
    await server.close();
  }
});

test('the pause gate with real runs: a request during a run is detected at its end, one audit turn runs, then nothing continues', { timeout: 60_000 }, async (t) => {
  const server = await goalServer(0.01);
  t.after(() => server.close());
  const seen = record(server.app);
  const { services } = server.app;
  await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'a goal the agent wants to pause' });
  // the run holds after its first line until the pause is asked (a delay raced it: on a loaded machine the run could
  // end before the pause was recorded, and nothing was left to detect it at its end)
  const answer = postNdjson(`${server.url}/api/message`, { prompt: 'work slowly hold:1' });
  const traceId = await until(() => services.runtime.status().active?.traceId, 'the run to start');
  // the agent's own call, with the credential of this run
  const token = services.credentials.issue({ runId: traceId, sessionId: services.chat.activeSession().id }, 60_000);
  const first = await getJson(`${server.url}/api/goal`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-run-token': token }, body: JSON.stringify({ action: 'pause', reason: 'I need a password' }) });
  assert.equal(first.body.pauseGate.state, 'audit_scheduled');
  writeFileSync(join(server.stateDir, 'release-1'), '');
  await (await answer).done;
  const detected = await until(() => seen.find((s) => s.name === 'goal_pause_detected'), 'goal_pause_detected');
  assert.equal(detected.payload.traceId, traceId);
  // the audit turn runs once, with the gate's question in its prompt, and ends without a decision
  const gate = await until(async () => {
    const { body } = await getJson(`${server.url}/api/goal`);
    return body.pauseGate.state === 'audit_done' && body;
  }, 'the audit turn to end');
  assert.equal(gate.goal.status, 'active');
  const audits = goalPrompts(server.invocations());
  assert.equal(audits.length, 1);
  assert.match(audits[0]!.prompt, /Pause audit turn[\s\S]*You asked to pause: I need a password/);
  assert.equal(seen.filter((s) => s.name === 'goal_continuation').map((s) => s.payload.kind).join(), 'audit');
  assert.equal(gate.goal.note, 'pause_gate_pending');
  // a person resumes: the gate opens and the loop goes on
  const resumed = await sendJson(`${server.url}/api/goal`, 'POST', { action: 'resume' });
  assert.equal(resumed.body.pauseGate.state, 'open');
  await until(() => seen.filter((s) => s.name === 'goal_continuation').length === 2, 'the next turn after resume');
});

test('supervised: each turn waits for a person to approve it', { timeout: 60_000 }, async (t) => {
  const server = await goalServer(0.01);
  t.after(() => server.close());
  await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'careful work' });
  const start = await sendJson(`${server.url}/api/goal-run`, 'POST', { action: 'start', mode: 'supervised' });
  assert.equal(start.body.status, 'awaiting_approval');
  assert.equal(goalPrompts(server.invocations()).length, 0);
  const approved = await sendJson(`${server.url}/api/goal-run`, 'POST', { action: 'approve' });
  assert.equal(approved.status, 200);
  await until(async () => (await getJson(`${server.url}/api/goal`)).body.goal.usage.turns === 1, 'the approved turn');
  const after = await until(async () => {
    const { body } = await getJson(`${server.url}/api/goal-run`);
    return body.status === 'awaiting_approval' && body;
  }, 'the next approval to be awaited');
  assert.equal(after.usage.turns, 1);
  assert.equal(goalPrompts(server.invocations()).length, 1);
});

test("Claude Code's ScheduleWakeup tool call becomes a wakeup of the chat it ran in", { timeout: 30_000 }, async (t) => {
  const server = await startAgentServer({ provider: 'claude' });
  t.after(() => server.close());
  const seen = record(server.app);
  const { services } = server.app;
  const answer = postNdjson(`${server.url}/api/message`, { prompt: 'work slowly delay:100' });
  const traceId = await until(() => services.runtime.status().active?.traceId, 'the run to start');
  services.bus.publish('agent_tool', { traceId, stepId: 's1', name: 'ScheduleWakeup', step: 'tool', status: 'running', input: { delaySeconds: 600, prompt: 'check the deploy', reason: 'deploy' } });
  await (await answer).done;
  const scheduled = seen.find((s) => s.name === 'schedule_wakeup');
  assert.equal(scheduled?.payload.reason, 'deploy');
  const { body } = await getJson(`${server.url}/api/wakeup`);
  assert.deepEqual(body.wakeups.map((w: any) => [w.prompt, w.state, w.sessionId]), [['check the deploy', 'pending', services.chat.activeSession().id]]);
});

test('a goal turn cut by a stop is scheduled again once at the next start', { timeout: 60_000 }, async () => {
  let server = await goalServer(0.01);
  const home = server.home;
  const stateDir = server.stateDir;
  try {
    await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'long work delay:300', budget: { maxTurns: 2 } });
    await sendJson(`${server.url}/api/goal-run`, 'POST', { action: 'start', mode: 'bounded' });
    await until(() => server.app.services.runtime.status().active, 'the goal turn to run');
    await server.close({ removeHome: false });
    const before = goalPrompts(invocationsIn(stateDir)).length;
    server = await startAgentServer({ provider: 'claude', env: { FAKE_CLI_STATE: stateDir } }, { home });
    const seen = record(server.app);
    const rows = () => server.app.services.db.prepare('SELECT state, reason FROM scheduled_turns ORDER BY id').all() as { state: string; reason: string }[];
    await until(() => seen.find((s) => s.name === 'goal_continuation_limit'), 'the loop to reach its budget after the restart');
    // the cut turn is not counted (it never finished): its replacement and one more use the budget of 2
    assert.deepEqual(rows(), [
      { state: 'interrupted', reason: 'goal-run started (bounded)' },
      { state: 'done', reason: 'the server restarted during this turn' },
      { state: 'done', reason: 'after the last turn' },
    ]);
    assert.equal(goalPrompts(invocationsIn(stateDir)).length - before, 2);
  } finally {
    await server.close();
  }
});

test('a message sent while a goal turn waits in the queue does not start a second loop', { timeout: 60_000 }, async (t) => {
  const server = await goalServer(0.01);
  t.after(() => server.close());
  const seen = record(server.app);
  await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'one chain of turns', budget: { maxTurns: 3 } });
  const first = postNdjson(`${server.url}/api/message`, { prompt: 'first delay:100' });
  await until(() => server.app.services.runtime.status().active, 'the first run');
  // queued behind the first run, and so ahead of the goal turn the first run's end schedules
  const second = postNdjson(`${server.url}/api/message`, { prompt: 'second' });
  await (await first).done;
  await (await second).done;
  await until(() => seen.find((s) => s.name === 'goal_continuation_limit'), 'the budget');
  await until(() => !server.app.services.runtime.status().busy, 'the last run to end');
  assert.equal(goalPrompts(server.invocations()).length, 1, 'the two messages and one goal turn');
  assert.equal((await getJson(`${server.url}/api/goal`)).body.goal.usage.turns, 3);
});
