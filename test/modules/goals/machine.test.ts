// The goal state machine and the pause gate, every state against every event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/core/errors.ts';
import { GATE_STATES, GOAL_STATUSES, type Gate, type GateState, type GoalStatus } from '../../../src/protocol/goals.ts';
import { assertActor, gateBlocks, OPEN_GATE, transition, type GoalEvent, type GoalState } from '../../../src/modules/goals/machine.ts';

const NOW = 1_000_000;
const gate = (state: GateState): Gate => (state === 'open' ? OPEN_GATE : { state, reason: 'stuck', requestedAt: NOW - 10, nextAction: 'x' });
const at = (status: GoalStatus, g: GateState = 'open'): GoalState => ({ status, gate: gate(g) });

function fails(state: GoalState, event: GoalEvent, status: number, code: string) {
  assert.throws(() => transition(state, event, NOW), (err: unknown) => err instanceof AppError && err.status === status && err.code === code, `${JSON.stringify(state)} + ${JSON.stringify(event)}`);
}

const ALL_EVENTS: GoalEvent[] = [
  { kind: 'update', actor: 'agent' },
  { kind: 'refine', actor: 'human' },
  { kind: 'done', actor: 'agent', evidence: { ok: true } },
  { kind: 'done', actor: 'agent', evidence: { ok: false, reason: 'no evidence' } },
  { kind: 'cancel', actor: 'human' },
  { kind: 'pause', actor: 'human' },
  { kind: 'pause', actor: 'agent', reason: 'blocked' },
  { kind: 'pause', actor: 'agent', audit: 'really blocked' },
  { kind: 'resume', actor: 'human' },
  { kind: 'resume', actor: 'agent' },
];

test('an ended goal (complete, cancelled) refuses every action with 409 GOAL_STATE', () => {
  for (const status of ['complete', 'cancelled'] as const) for (const event of ALL_EVENTS) fails(at(status), event, 409, 'GOAL_STATE');
});

test('turn events never change an ended or paused goal', () => {
  for (const status of GOAL_STATUSES) {
    for (const event of [{ kind: 'turn_started', audit: false }, { kind: 'turn_ended' }] as GoalEvent[]) {
      const t = transition(at(status), event, NOW);
      assert.equal(t.status, status);
      assert.deepEqual(t.gate, OPEN_GATE);
      assert.deepEqual(t.effects, []);
    }
  }
});

test('update: active goals take checkpoints, paused ones refuse them', () => {
  for (const g of GATE_STATES) assert.equal(transition(at('active', g), { kind: 'update', actor: 'agent' }, NOW).status, 'active');
  fails(at('paused'), { kind: 'update', actor: 'agent' }, 409, 'GOAL_STATE');
  assert.equal(transition(at('paused'), { kind: 'refine', actor: 'human' }, NOW).status, 'paused');
});

test('done: with evidence completes (and drops scheduled turns), without it is rejected and changes nothing', () => {
  for (const status of ['active', 'paused'] as const) {
    for (const g of GATE_STATES) {
      const ok = transition(at(status, g), { kind: 'done', actor: 'agent', evidence: { ok: true } }, NOW);
      assert.equal(ok.status, 'complete');
      assert.deepEqual(ok.gate, OPEN_GATE);
      assert.deepEqual(ok.effects, ['done', 'cancel_turns']);
      const no = transition(at(status, g), { kind: 'done', actor: 'agent', evidence: { ok: false, reason: 'no evidence' } }, NOW);
      assert.equal(no.status, status);
      assert.equal(no.gate.state, g);
      assert.equal(no.rejected, 'no evidence');
      assert.deepEqual(no.effects, ['done_rejected']);
    }
  }
});

test('cancel ends an active or paused goal', () => {
  for (const status of ['active', 'paused'] as const) {
    const t = transition(at(status, 'audit_done'), { kind: 'cancel', actor: 'human' }, NOW);
    assert.equal(t.status, 'cancelled');
    assert.deepEqual(t.effects, ['cancelled', 'cancel_turns']);
  }
});

test('a human pause acts at once, whatever the gate', () => {
  for (const g of GATE_STATES) {
    const t = transition(at('active', g), { kind: 'pause', actor: 'human' }, NOW);
    assert.equal(t.status, 'paused');
    assert.deepEqual(t.gate, OPEN_GATE);
    assert.deepEqual(t.effects, ['cancel_turns']);
  }
});

test("the agent's first pause request arms the gate: recorded, not executed, one audit turn scheduled", () => {
  const t = transition(at('active'), { kind: 'pause', actor: 'agent', reason: 'waiting for credentials' }, NOW);
  assert.equal(t.status, 'active');
  assert.equal(t.gate.state, 'audit_scheduled');
  assert.equal(t.gate.reason, 'waiting for credentials');
  assert.equal(t.gate.requestedAt, NOW);
  assert.deepEqual(t.effects, ['gate_pending', 'schedule_audit']);
  assert.match(t.outcome, /not executed/);
  // a first request must say why
  fails(at('active'), { kind: 'pause', actor: 'agent' }, 400, 'GOAL_PAUSE_NEEDS_AUDIT');
  fails(at('active'), { kind: 'pause', actor: 'agent', reason: '   ' }, 400, 'GOAL_PAUSE_NEEDS_AUDIT');
});

test('a second agent request with its audit pauses the goal, from every armed state; without the audit it is refused', () => {
  for (const g of ['audit_scheduled', 'audit_running', 'audit_done'] as const) {
    const t = transition(at('active', g), { kind: 'pause', actor: 'agent', audit: 'the API key is revoked; nothing else to do' }, NOW);
    assert.equal(t.status, 'paused');
    assert.deepEqual(t.gate, OPEN_GATE);
    assert.deepEqual(t.effects, ['cancel_turns']);
    fails(at('active', g), { kind: 'pause', actor: 'agent', reason: 'again' }, 400, 'GOAL_PAUSE_NEEDS_AUDIT');
  }
});

test('pausing a paused goal is a normal answer that changes nothing', () => {
  for (const actor of ['agent', 'human'] as const) {
    const t = transition(at('paused'), { kind: 'pause', actor, audit: 'x' }, NOW);
    assert.equal(t.status, 'paused');
    assert.deepEqual(t.effects, []);
  }
});

test('resume: a paused goal is active again and continues; an armed gate is withdrawn; an open active goal is left alone', () => {
  for (const actor of ['agent', 'human'] as const) {
    const resumed = transition(at('paused'), { kind: 'resume', actor }, NOW);
    assert.equal(resumed.status, 'active');
    assert.deepEqual(resumed.effects, ['kick']);
    for (const g of ['audit_scheduled', 'audit_running', 'audit_done'] as const) {
      const withdrawn = transition(at('active', g), { kind: 'resume', actor }, NOW);
      assert.equal(withdrawn.status, 'active');
      assert.deepEqual(withdrawn.gate, OPEN_GATE);
      assert.deepEqual(withdrawn.effects, ['kick']);
    }
    const same = transition(at('active'), { kind: 'resume', actor }, NOW);
    assert.deepEqual(same.effects, []);
    assert.match(same.outcome, /already active/);
  }
});

test('the audit turn: scheduled → running when it starts → done when it ends without a decision', () => {
  const running = transition(at('active', 'audit_scheduled'), { kind: 'turn_started', audit: true }, NOW);
  assert.equal(running.gate.state, 'audit_running');
  const ended = transition(running, { kind: 'turn_ended' }, NOW);
  assert.equal(ended.gate.state, 'audit_done');
  assert.equal(ended.status, 'active');
  assert.match(ended.gate.nextAction ?? '', /person/);
  // an ordinary turn does not move the gate
  assert.equal(transition(at('active', 'audit_scheduled'), { kind: 'turn_started', audit: false }, NOW).gate.state, 'audit_scheduled');
  assert.equal(transition(at('active', 'audit_scheduled'), { kind: 'turn_ended' }, NOW).gate.state, 'audit_scheduled');
  assert.equal(transition(at('active', 'audit_done'), { kind: 'turn_ended' }, NOW).gate.state, 'audit_done');
});

test('only a running or finished audit blocks continuation; a person-only action names what needs a person', () => {
  assert.deepEqual(
    GATE_STATES.map((state) => [state, gateBlocks(gate(state))]),
    [['open', false], ['audit_scheduled', false], ['audit_running', true], ['audit_done', true]],
  );
  assert.doesNotThrow(() => assertActor('human', ['human'], 'cancel a goal'));
  assert.doesNotThrow(() => assertActor('agent', ['agent', 'human'], 'update a goal'));
  assert.throws(
    () => assertActor('agent', ['human'], 'cancel a goal'),
    (err: unknown) => err instanceof AppError && err.status === 403 && err.code === 'GOAL_HUMAN_ONLY' && err.message === 'Only a person can cancel a goal.',
  );
});
