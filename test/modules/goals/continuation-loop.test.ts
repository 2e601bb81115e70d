// The continuation loop with a real server and the fake claude CLI: it stops at the turn budget with
// goal_continuation_limit, a restart between turns resumes it once (not twice), and a wakeup fires
// after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { record, until } from './helpers.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the fake CLIs were asked, across servers that share one state directory. */
const invocationsIn = (stateDir: string): { prompt: string }[] => {
  const file = join(stateDir, 'invocations.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
};

const goalPrompts = (invocations: { prompt: string }[]) => invocations.filter((i) => i.prompt.startsWith('[goal '));

test('an active goal continues after each turn and stops at its turn budget', { timeout: 60_000 }, async (t) => {
  const server = await startAgentServer({ provider: 'claude' }, { goalTurnDelayMs: 10 });
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
  let server = await startAgentServer({ provider: 'claude' }, { goalTurnDelayMs: 1500 });
  const home = server.home;
  try {
    const seen = record(server.app);
    await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'survive a restart', budget: { maxTurns: 2 } });
    await (await postNdjson(`${server.url}/api/message`, { prompt: 'begin' })).done;
    await until(() => seen.find((s) => s.name === 'goal_continuation'), 'the next turn scheduled');
    await server.close({ removeHome: false });
    assert.equal(goalPrompts(server.invocations()).length, 0, 'nothing ran before the stop');
    const stateDir = server.stateDir;
    server = await startAgentServer({ provider: 'claude', env: { FAKE_CLI_STATE: stateDir } }, { home, goalTurnDelayMs: 1500 });
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
