// When a goal gets another turn, and what that turn's prompt says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Goal } from '../../../src/protocol/goals.ts';
import { budgetExceeded, budgetLeft, continuationPrompt, decide, GOAL_POLICY } from '../../../src/modules/goals/continuation.ts';
import { OPEN_GATE } from '../../../src/modules/goals/machine.ts';

const NOW = 10_000_000;
const goal = (over: Partial<Goal> = {}): Goal => ({
  id: 'goal_1', sessionId: 's', objective: 'ship it', status: 'active', projectRoot: '/p', budget: {}, usage: { turns: 0, minutes: 0, dispatches: 0 },
  gate: OPEN_GATE, mode: 'assist', runStatus: 'running', note: null, lastDoneRejection: null, createdAt: NOW, updatedAt: NOW, endedAt: null, ...over,
});
const input = (g: Goal | null, over: Partial<Parameters<typeof decide>[0]> = {}) => ({ goal: g, now: NOW, staleMs: 1000, lastTurn: 'ok' as const, busyWorkers: 0, ...over });

test('an active goal with budget left continues', () => {
  assert.deepEqual(decide(input(goal())), { next: 'schedule', kind: 'continue' });
});

test('no goal, a paused or ended goal, a stopped run: no turn', () => {
  assert.equal(decide(input(null)).next, 'none');
  for (const status of ['paused', 'complete', 'cancelled'] as const) assert.equal(decide(input(goal({ status }))).next, 'none');
  assert.equal(decide(input(goal({ runStatus: 'stopped' }))).next, 'none');
});

test('the gate: a scheduled audit is the next turn; while it runs or after it, nothing continues', () => {
  assert.deepEqual(decide(input(goal({ gate: { ...OPEN_GATE, state: 'audit_scheduled' } }))), { next: 'schedule', kind: 'audit' });
  for (const state of ['audit_running', 'audit_done'] as const) assert.deepEqual(decide(input(goal({ gate: { ...OPEN_GATE, state } }))), { next: 'none', reason: 'pause_gate_pending' });
});

test('each budget stops the loop at its limit', () => {
  assert.equal(budgetExceeded({ maxTurns: 3 }, { turns: 2, minutes: 0, dispatches: 0 }), null);
  assert.match(budgetExceeded({ maxTurns: 3 }, { turns: 3, minutes: 0, dispatches: 0 })!, /3\/3 turns/);
  assert.match(budgetExceeded({ maxMinutes: 5 }, { turns: 0, minutes: 5.2, dispatches: 0 })!, /minutes/);
  assert.equal(budgetExceeded({ maxDispatches: 2 }, { turns: 0, minutes: 0, dispatches: 2 }), null);
  assert.match(budgetExceeded({ maxDispatches: 2 }, { turns: 0, minutes: 0, dispatches: 3 })!, /dispatch/);
  assert.equal(decide(input(goal({ budget: { maxTurns: 1 }, usage: { turns: 1, minutes: 0, dispatches: 0 } }))).next, 'limit');
});

test('a failed or stopped turn, a stale goal, busy workers, dry-run: no turn; supervised waits for approval', () => {
  assert.equal(decide(input(goal(), { lastTurn: 'error' })).next, 'none');
  assert.equal(decide(input(goal(), { lastTurn: 'stopped' })).next, 'none');
  assert.match((decide(input(goal({ updatedAt: NOW - 2000 }))) as { reason: string }).reason, /goal_stale/);
  assert.equal(decide(input(goal(), { busyWorkers: 1 })).next, 'none');
  assert.equal(decide(input(goal({ mode: 'dry-run' }))).next, 'none');
  assert.deepEqual(decide(input(goal({ mode: 'supervised' }))), { next: 'await_approval' });
});

test('the continuation prompt is short structured state', () => {
  const prompt = continuationPrompt({
    goal: goal({ budget: { maxTurns: 5 }, usage: { turns: 2, minutes: 1, dispatches: 0 }, lastDoneRejection: 'no evidence' }),
    checkpoint: { id: 1, summary: 'wrote the parser', nextAction: 'test it', evidence: [], check: null, actor: 'agent', createdAt: NOW },
    phase: 'IDLE',
    undeliveredResults: 0,
    kind: 'continue',
  });
  assert.match(prompt, /Objective: ship it/);
  assert.match(prompt, /Last checkpoint: wrote the parser/);
  assert.match(prompt, /Next action: test it/);
  assert.match(prompt, /Budget left: 3 turns/);
  assert.match(prompt, /Orchestration: IDLE/);
  assert.match(prompt, /rejected: no evidence/);
  assert.ok(prompt.length < 1500, `${prompt.length} characters`);
});

test('the budget is said exactly: what is left of each limit, never below zero, or unlimited', () => {
  assert.equal(budgetLeft({}, { turns: 9, minutes: 9, dispatches: 9 }), 'unlimited');
  assert.equal(budgetLeft({ maxTurns: 5, maxMinutes: 10, maxDispatches: 2 }, { turns: 2, minutes: 2.25, dispatches: 1 }), '3 turns, 7.8 minutes, 1 dispatches');
  assert.equal(budgetLeft({ maxTurns: 1, maxMinutes: 1, maxDispatches: 0 }, { turns: 3, minutes: 4, dispatches: 2 }), '0 turns, 0.0 minutes, 0 dispatches');
  assert.equal(budgetExceeded({ maxTurns: 3 }, { turns: 3, minutes: 0, dispatches: 0 }), 'turn budget used: 3/3 turns');
  assert.equal(budgetExceeded({ maxMinutes: 5 }, { turns: 0, minutes: 5, dispatches: 0 }), 'time budget used: 5.0/5 minutes');
  assert.equal(budgetExceeded({ maxMinutes: 5 }, { turns: 0, minutes: 4.9, dispatches: 0 }), null);
  assert.equal(budgetExceeded({ maxDispatches: 2 }, { turns: 0, minutes: 0, dispatches: 3 }), 'dispatch budget used: 3/2 dispatches');
});

test('the prompts, line by line: a continuation with nothing recorded yet, and a pause audit', () => {
  const fresh = continuationPrompt({ goal: goal({ projectRoot: null }), checkpoint: null, phase: 'B', undeliveredResults: 2, kind: 'continue' });
  assert.equal(
    fresh,
    [
      '[goal goal_1] Continue toward the goal.',
      'Objective: ship it',
      'Project root: (not set: evidence paths are relative to the working directory)',
      'Last checkpoint: (none yet)',
      'Next action: (decide it)',
      'Budget left: unlimited (used 0 turns, 0.0 minutes, 0 dispatches)',
      'Orchestration: B, 2 worker result(s) waiting',
    ].join('\n'),
  );
  const audit = continuationPrompt({
    goal: goal({ gate: { state: 'audit_running', reason: 'the API is down', requestedAt: NOW, nextAction: 'justify or withdraw' }, lastDoneRejection: 'no evidence' }),
    checkpoint: { id: 1, summary: 'wrote it', nextAction: '', evidence: [], check: null, actor: 'agent', createdAt: NOW },
    phase: 'IDLE',
    undeliveredResults: 0,
    kind: 'audit',
  });
  const lines = audit.split('\n');
  assert.equal(lines[0], '[goal goal_1] Pause audit turn.');
  assert.equal(lines[2], 'Project root: /p');
  assert.equal(lines[4], 'Next action: (decide it)');
  assert.equal(lines[6], 'Orchestration: IDLE');
  assert.equal(lines[7], 'Your last `svc goal done` was rejected: no evidence. Record checkable evidence with `svc goal update "<summary>" --evidence <file> | --check "<command>"` first.');
  assert.equal(lines[8], 'You asked to pause: the API is down. justify or withdraw');
  assert.equal(lines.length, 9);
});

// The reason is what the goal-run view and the logs show for a goal that does not go on.
test('why a goal does not go on, exactly, in the order the checks are made', () => {
  const reason = (g: Goal | null, over: Partial<Parameters<typeof decide>[0]> = {}) => decide(input(g, over));
  assert.deepEqual(reason(null), { next: 'none', reason: 'no active goal' });
  assert.deepEqual(reason(goal({ status: 'paused', runStatus: 'stopped' })), { next: 'none', reason: 'no active goal' });
  assert.deepEqual(reason(goal({ runStatus: 'stopped', gate: { ...OPEN_GATE, state: 'audit_done' } })), { next: 'none', reason: 'the goal-run is stopped' });
  // a spent budget wins over a scheduled audit, a scheduled audit over a stopped or failed last turn
  assert.deepEqual(reason(goal({ budget: { maxTurns: 1 }, usage: { turns: 1, minutes: 0, dispatches: 0 }, gate: { ...OPEN_GATE, state: 'audit_scheduled' } })), { next: 'limit', reason: 'turn budget used: 1/1 turns' });
  assert.deepEqual(reason(goal({ gate: { ...OPEN_GATE, state: 'audit_scheduled' } }), { lastTurn: 'stopped' }), { next: 'schedule', kind: 'audit' });
  assert.deepEqual(reason(goal({ updatedAt: 0 }), { lastTurn: 'stopped' }), { next: 'none', reason: 'the last turn was stopped by a person' });
  assert.deepEqual(reason(goal({ updatedAt: 0 }), { lastTurn: 'error' }), { next: 'none', reason: 'the last turn failed; resume the goal once the agent works again' });
  assert.deepEqual(reason(goal({ updatedAt: NOW - 1001 }), { busyWorkers: 1 }), { next: 'none', reason: 'goal_stale: no change for too long; resume it to go on' });
  // exactly staleMs since the last change is not stale yet
  assert.deepEqual(reason(goal({ updatedAt: NOW - 1000 })), { next: 'schedule', kind: 'continue' });
  assert.deepEqual(reason(goal({ mode: 'dry-run' }), { busyWorkers: 1 }), { next: 'none', reason: 'workers are busy; their results start the next turn' });
  assert.deepEqual(reason(goal({ mode: 'dry-run' })), { next: 'none', reason: 'dry-run: the next prompt is shown, not run' });
  assert.deepEqual(reason(goal({ mode: 'assist' }), { busyWorkers: 0 }), { next: 'schedule', kind: 'continue' });
});

test('each budget limit, at and around its edge: turns and minutes stop when reached, dispatches when exceeded', () => {
  const use = (turns: number, minutes: number, dispatches: number) => ({ turns, minutes, dispatches });
  assert.equal(budgetExceeded({ maxTurns: 0 }, use(0, 0, 0)), 'turn budget used: 0/0 turns');
  assert.equal(budgetExceeded({ maxTurns: 2 }, use(1, 99, 99)), null);
  assert.equal(budgetExceeded({ maxMinutes: 0 }, use(0, 0, 0)), 'time budget used: 0.0/0 minutes');
  assert.equal(budgetExceeded({ maxDispatches: 0 }, use(0, 0, 0)), null);
  assert.equal(budgetExceeded({ maxDispatches: 0 }, use(0, 0, 1)), 'dispatch budget used: 1/0 dispatches');
  // the first limit reached is named
  assert.equal(budgetExceeded({ maxTurns: 1, maxMinutes: 1, maxDispatches: 0 }, use(1, 1, 1)), 'turn budget used: 1/1 turns');
  assert.equal(budgetExceeded({ maxTurns: 5, maxMinutes: 1, maxDispatches: 0 }, use(1, 1, 1)), 'time budget used: 1.0/1 minutes');
  assert.equal(budgetLeft({ maxMinutes: 3 }, use(0, 1, 0)), '2.0 minutes');
  assert.equal(budgetLeft({ maxDispatches: 3 }, use(0, 0, 1)), '2 dispatches');
});

test('the prompt of a goal with no rejection and no gate reason has no extra lines; an audit with no reason still reads', () => {
  const plain = continuationPrompt({ goal: goal(), checkpoint: null, phase: 'IDLE', undeliveredResults: 0, kind: 'continue' });
  assert.equal(plain.split('\n').length, 7);
  assert.equal(plain.split('\n')[6], 'Orchestration: IDLE');
  const audit = continuationPrompt({ goal: goal({ gate: { ...OPEN_GATE, state: 'audit_running' } }), checkpoint: null, phase: 'IDLE', undeliveredResults: 0, kind: 'audit' });
  assert.equal(audit.split('\n')[7], 'You asked to pause: . ');
});

test('the goal policy in the system prompt names every command the agent acts with', () => {
  for (const command of ['svc goal update', '--evidence', '--check', 'svc goal done', 'svc goal pause --reason', 'svc goal pause --audit', 'svc goal resume', 'svc task add|done', 'svc wakeup']) {
    assert.ok(GOAL_POLICY.includes(command), command);
  }
  assert.ok(GOAL_POLICY.startsWith('## Working on a goal\n'));
});
