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

// The outcome is the reply a person or the agent reads (`svc goal …`, the /goal command): each
// transition says exactly what happened.
test('what each transition says, exactly', () => {
  const says = (state: GoalState, event: GoalEvent) => transition(state, event, NOW).outcome;
  assert.equal(says(at('active'), { kind: 'update', actor: 'agent' }), 'checkpoint recorded');
  assert.equal(says(at('paused'), { kind: 'refine', actor: 'human' }), 'objective refined');
  assert.equal(says(at('active'), { kind: 'done', actor: 'agent', evidence: { ok: false, reason: 'no file' } }), 'completion rejected: no file');
  assert.equal(says(at('active'), { kind: 'done', actor: 'agent', evidence: { ok: true } }), 'goal complete');
  assert.equal(says(at('active'), { kind: 'cancel', actor: 'human' }), 'goal cancelled');
  assert.equal(says(at('paused'), { kind: 'pause', actor: 'agent', audit: 'x' }), 'the goal is already paused');
  assert.equal(says(at('active', 'audit_running'), { kind: 'pause', actor: 'human' }), 'goal paused');
  assert.equal(
    says(at('active'), { kind: 'pause', actor: 'agent', reason: 'blocked' }),
    'pause request recorded, not executed: one audit turn will ask you to justify it (`svc goal pause --audit "…"`) or withdraw it (`svc goal resume`)',
  );
  assert.equal(says(at('active', 'audit_done'), { kind: 'pause', actor: 'agent', audit: 'blocked' }), 'goal paused after its audit');
  assert.equal(says(at('paused'), { kind: 'resume', actor: 'human' }), 'goal resumed');
  assert.equal(says(at('active', 'audit_scheduled'), { kind: 'resume', actor: 'agent' }), 'pause request withdrawn; the goal continues');
  assert.equal(says(at('active'), { kind: 'resume', actor: 'human' }), 'the goal is already active');
  assert.equal(says(at('active', 'audit_scheduled'), { kind: 'turn_started', audit: true }), 'audit turn started');
  assert.equal(says(at('active'), { kind: 'turn_started', audit: false }), 'turn started');
  assert.equal(says(at('active', 'audit_running'), { kind: 'turn_ended' }), 'audit turn ended without a decision');
  assert.equal(says(at('active'), { kind: 'turn_ended' }), 'turn ended');
});

test('each refusal names the state and what to do instead, exactly', () => {
  const refusal = (state: GoalState, event: GoalEvent) => {
    try {
      transition(state, event, NOW);
    } catch (err) {
      assert.ok(err instanceof AppError);
      return { status: err.status, code: err.code, message: err.message, details: err.details };
    }
    assert.fail(`${JSON.stringify(event)} was not refused`);
  };
  const ended = (status: 'complete' | 'cancelled', verb: string) => ({
    status: 409,
    code: 'GOAL_STATE',
    message: `The goal is ${status}: it cannot be ${verb}; set a new goal with \`svc goal set "<objective>"\`.`,
    details: { status },
  });
  assert.deepEqual(refusal(at('complete'), { kind: 'update', actor: 'agent' }), ended('complete', 'updated'));
  assert.deepEqual(refusal(at('cancelled'), { kind: 'refine', actor: 'human' }), ended('cancelled', 'refined'));
  assert.deepEqual(refusal(at('complete'), { kind: 'done', actor: 'agent', evidence: { ok: true } }), ended('complete', 'completed'));
  assert.deepEqual(refusal(at('cancelled'), { kind: 'cancel', actor: 'human' }), ended('cancelled', 'cancelled'));
  assert.deepEqual(refusal(at('complete'), { kind: 'pause', actor: 'human' }), ended('complete', 'paused'));
  assert.deepEqual(refusal(at('cancelled'), { kind: 'resume', actor: 'human' }), ended('cancelled', 'resumed'));
  assert.deepEqual(refusal(at('paused'), { kind: 'update', actor: 'agent' }), {
    status: 409,
    code: 'GOAL_STATE',
    message: 'The goal is paused: resume it (`svc goal resume`) before recording progress.',
    details: { status: 'paused' },
  });
  assert.equal(refusal(at('active'), { kind: 'pause', actor: 'agent' }).message, 'Say why the goal should pause: `svc goal pause --reason "<why>"`.');
  assert.equal(
    refusal(at('active', 'audit_scheduled'), { kind: 'pause', actor: 'agent', audit: '  ' }).message,
    'A pause request is already recorded; pausing now needs its audit: `svc goal pause --audit "<why the goal cannot go on>"`.',
  );
});

test('the armed gate: its reason (trimmed, from --reason or else --audit), when, and the next action it asks for', () => {
  const armed = (event: Extract<GoalEvent, { kind: 'pause' }>) => transition(at('active'), event, NOW).gate;
  const next = 'Justify the pause with `svc goal pause --audit "<why the goal cannot go on>"`, or withdraw it with `svc goal resume` and continue.';
  assert.deepEqual(armed({ kind: 'pause', actor: 'agent', reason: '  no network  ' }), { state: 'audit_scheduled', reason: 'no network', requestedAt: NOW, nextAction: next });
  assert.deepEqual(armed({ kind: 'pause', actor: 'agent', audit: ' key revoked ' }), { state: 'audit_scheduled', reason: 'key revoked', requestedAt: NOW, nextAction: next });
  assert.equal(armed({ kind: 'pause', actor: 'agent', reason: ' ', audit: 'key revoked' }).reason, 'key revoked');
  // the audit turn keeps the request and says a person decides
  const running = transition(at('active', 'audit_scheduled'), { kind: 'turn_started', audit: true }, NOW);
  assert.deepEqual(running.gate, { state: 'audit_running', reason: 'stuck', requestedAt: NOW - 10, nextAction: 'x' });
  assert.deepEqual(running.effects, []);
  const ended = transition(running, { kind: 'turn_ended' }, NOW);
  assert.deepEqual(ended.gate, { state: 'audit_done', reason: 'stuck', requestedAt: NOW - 10, nextAction: 'A person decides: `svc goal pause` or `svc goal resume`.' });
  assert.deepEqual(ended.effects, []);
  // an audit turn only starts the audit when one is scheduled
  for (const g of ['open', 'audit_running', 'audit_done'] as const) assert.deepEqual(transition(at('active', g), { kind: 'turn_started', audit: true }, NOW).gate, gate(g));
  for (const status of ['paused', 'complete'] as const) assert.deepEqual(transition(at(status), { kind: 'turn_started', audit: true }, NOW).gate, OPEN_GATE);
});

test('the transitions that leave the state alone keep the gate and have no effects', () => {
  for (const g of GATE_STATES) {
    for (const event of [{ kind: 'update', actor: 'agent' }, { kind: 'refine', actor: 'agent' }, { kind: 'turn_started', audit: false }] as GoalEvent[]) {
      const t = transition(at('active', g), event, NOW);
      assert.deepEqual({ status: t.status, gate: t.gate, effects: t.effects }, { status: 'active', gate: gate(g), effects: [] });
    }
  }
  const paused = transition(at('paused'), { kind: 'pause', actor: 'human' }, NOW);
  assert.deepEqual({ status: paused.status, gate: paused.gate, effects: paused.effects }, { status: 'paused', gate: OPEN_GATE, effects: [] });
  assert.deepEqual(transition(at('active'), { kind: 'resume', actor: 'human' }, NOW).gate, OPEN_GATE);
});
