// A goal driven to done end to end: the real Claude Code CLI against the fake model. A goal-run starts
// the loop; its continuation turn carries the objective, in which the fake model finds its scenario and
// calls the Bash tool with `svc goal update … --evidence …` and `svc goal done`. Those calls carry the
// run's credential (SVC_RUN_TOKEN), so the server takes them as the agent's. (The fake model answers any
// resumed conversation with a fixed text, so the tool call has to come in the conversation's first turn.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { record, until } from './helpers.ts';

test('the real claude CLI reaches goal_done through svc goal update --evidence and svc goal done', {
  skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh',
  timeout: 180_000,
}, async () => {
  const fake = await startFakeModel({ shellCommand: 'svc goal update "wrote the report" --evidence report.md --next "none" && svc goal done --note "report written"' });
  const server = await startServer({ retryBaseMs: 10 });
  const seen = record(server.app);
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-goal-claude-')));
  server.app.services.settings.update({
    agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 120 },
    goals: { turnDelaySec: 0.05 },
  });
  try {
    writeFileSync(join(cwd, 'report.md'), '# Report\n');
    const set = await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'Write report.md and prove it. scenario:tool', projectRoot: cwd, budget: { maxTurns: 4 } });
    assert.equal(set.status, 200);
    const start = await sendJson(`${server.url}/api/goal-run`, 'POST', { action: 'start', mode: 'bounded' });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const done = await until(() => seen.find((s) => s.name === 'goal_done'), 'goal_done', 150_000);
    assert.equal(done.payload.goalId, set.body.goal.id);
    const { body } = await getJson(`${server.url}/api/goal`);
    assert.equal(body.goal.status, 'complete');
    assert.deepEqual(body.checkpoints[0].evidence, [{ path: 'report.md', exists: true }]);
    assert.equal(body.checkpoints[0].actor, 'agent', 'the credential made the call the agent\'s');
    assert.ok(seen.some((s) => s.name === 'goal_continuation' && s.payload.kind === 'continue'));
    // the continuation prompt reached the model, and the goal policy was in the system prompt
    const calls = JSON.stringify(fake.requests.filter((r) => r.api === 'anthropic').map((r) => r.body));
    assert.match(calls, /Objective: Write report\.md and prove it/);
    assert.match(calls, /Working on a goal/);
    // nothing continues after done
    await until(() => !server.app.services.runtime.status().busy, 'the last run to end');
    assert.equal(server.app.services.db.prepare("SELECT count(*) AS n FROM scheduled_turns WHERE state = 'pending'").pluck().get(), 0);
  } finally {
    await server.close();
    await fake.close();
  }
});
