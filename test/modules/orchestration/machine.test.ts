import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { allowedFrom, gateSatisfied, initialState, transition, waitingOn, type OrcEvent } from '../../../src/modules/orchestration/machine.ts';
import { PHASES, type Gate, type OrcState, type Phase } from '../../../src/protocol/orchestration.ts';

// The contract, written out: forward edges with their gates, and the back edges.
const FORWARD: Record<string, Gate | null> = {
  'IDLE>I': null, 'IDLE>P': null, 'I>P': null, 'P>A': 'plan', 'A>B': 'audit', 'B>C': 'verification', 'C>D': 'check', 'D>IDLE': null,
};
const BACK = new Set(['C>B', 'C>P', 'C>I', 'A>P', 'P>I', 'A>I', 'B>I', 'D>I']);

const at = 1_000;
const at0 = (phase: Phase, extra: Partial<OrcState> = {}): OrcState => ({ ...initialState('s1'), phase, ...extra });

/** A state in `phase` whose gates are all satisfied. */
function satisfied(phase: Phase): OrcState {
  return at0(phase, {
    round: 1,
    plan: { version: 2, hash: 'h', content: 'plan', submittedAt: 1, by: 'agent' },
    audit: { verdict: 'pass', findings: [], runId: 'w1', planVersion: 2, recordedAt: 1 },
    verification: { verdict: 'done', findings: [], runId: 'w2', round: 1, recordedAt: 1 },
    check: { command: 'true', exitCode: 0, outputTail: '', durationMs: 1, round: 1, ranAt: 1 },
  });
}

const move = (to: Phase, actor: 'human' | 'agent' = 'agent', approve?: boolean, when = at): Extract<OrcEvent, { type: 'move' }> => ({ type: 'move', to, actor, approve, at: when });

describe('transition: every pair of phases', () => {
  for (const from of PHASES) {
    for (const to of PHASES) {
      const key = `${from}>${to}`;
      const gate = FORWARD[key];
      test(`${from} → ${to}`, () => {
        if (gate === undefined && !BACK.has(key)) {
          for (const state of [at0(from), satisfied(from)]) {
            const result = transition(state, move(to, 'human', true));
            assert.equal(result.ok, false);
            if (!result.ok) {
              assert.equal(result.error.status, 409);
              assert.equal(result.error.code, 'ORC_TRANSITION_NOT_ALLOWED');
            }
          }
          return;
        }
        // with every record present, the agent moves
        const ok = transition(satisfied(from), move(to));
        assert.ok(ok.ok, `${key} with its records`);
        if (!ok.ok) return;
        assert.equal(ok.state.phase, to);
        assert.deepEqual(ok.state.history.at(-1), { at, from, to, actor: 'agent' });
        assert.ok(ok.effects.some((e) => e.kind === 'publish'));
        assert.equal(ok.effects.some((e) => e.kind === 'completed'), to === 'D');
        if (gate) {
          // without them: 409 naming the gate, for the agent and for a human who does not approve
          for (const actor of ['agent', 'human'] as const) {
            const refused = transition(at0(from), move(to, actor));
            assert.equal(refused.ok, false);
            if (!refused.ok) {
              assert.equal(refused.error.status, 409);
              assert.equal(refused.error.code, 'ORC_GATE_MISSING');
              assert.equal(refused.error.details?.gate, gate);
              assert.match(refused.error.message, new RegExp(`${gate} gate`));
            }
          }
          // the agent may not approve
          const agentApproves = transition(at0(from), move(to, 'agent', true));
          assert.equal(agentApproves.ok, false);
          if (!agentApproves.ok) assert.deepEqual([agentApproves.error.status, agentApproves.error.code], [403, 'ORC_HUMAN_ONLY']);
          // a human may, and the history records it
          const approved = transition(at0(from), move(to, 'human', true));
          assert.ok(approved.ok);
          if (approved.ok) assert.deepEqual(approved.state.history.at(-1), { at, from, to, actor: 'human', approved: [gate] });
        } else {
          // ungated: moves from a bare state too
          const bare = transition(at0(from), move(to));
          assert.ok(bare.ok, `${key} needs nothing`);
        }
      });
    }
  }
});

describe('transition: records and their freshness', () => {
  test('a plan is versioned; a new plan makes the audit of the old one stale', () => {
    let state = at0('P');
    assert.equal(waitingOn(state), 'plan');
    let r = transition(state, { type: 'plan', content: 'v1', hash: 'a', actor: 'agent', at });
    assert.ok(r.ok);
    state = r.ok ? r.state : state;
    assert.equal(state.plan?.version, 1);
    assert.equal(state.status, 'active');
    state = (transition(state, move('A')) as { state: OrcState }).state;
    assert.equal(state.waitingOn, 'audit');
    state = (transition(state, { type: 'audit', record: { verdict: 'pass', findings: [], runId: 'w', planVersion: 1, recordedAt: at } }) as { state: OrcState }).state;
    assert.equal(state.waitingOn, undefined);
    r = transition(state, { type: 'plan', content: 'v2', hash: 'b', actor: 'agent', at });
    assert.ok(r.ok);
    if (r.ok) {
      assert.equal(r.state.plan?.version, 2);
      assert.equal(r.state.waitingOn, 'audit');
      assert.equal(transition(r.state, move('B')).ok, false);
    }
  });

  test('a failed audit, or one with a schema error, does not open A → B', () => {
    const base = satisfied('A');
    for (const audit of [{ ...base.audit!, verdict: 'fail' as const }, { ...base.audit!, error: 'not JSON' }]) {
      const r = transition({ ...base, audit }, move('B'));
      assert.equal(r.ok, false);
    }
  });

  test('each entry into B is a new round: an older verification or check no longer counts', () => {
    const r = transition(satisfied('C'), move('B'));
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.state.round, 2);
    assert.equal(r.state.waitingOn, 'verification');
    const failing = transition({ ...satisfied('C'), check: { ...satisfied('C').check!, exitCode: 1 } }, move('D'));
    assert.equal(failing.ok, false);
  });

  test('a plan outside I, P and A is refused', () => {
    for (const phase of ['IDLE', 'B', 'C', 'D'] as const) {
      const r = transition(at0(phase), { type: 'plan', content: 'x', hash: 'h', actor: 'human', at });
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.code, 'ORC_WRONG_PHASE');
    }
  });

  test('reset from anywhere clears the records, keeps the history and cancels the workers', () => {
    for (const phase of PHASES) {
      const r = transition(satisfied(phase), { type: 'reset', actor: 'human', at });
      assert.ok(r.ok);
      if (!r.ok) continue;
      assert.equal(r.state.phase, 'IDLE');
      assert.equal(r.state.status, 'idle');
      assert.deepEqual([r.state.plan, r.state.audit, r.state.verification, r.state.check, r.state.round], [null, null, null, null, 0]);
      assert.deepEqual(r.state.history.at(-1), { at, from: phase, to: 'IDLE', actor: 'human', reason: 'reset' });
      assert.ok(r.effects.some((e) => e.kind === 'cancel_workers'));
    }
  });

  test('D → IDLE starts a clean cycle; statuses follow the phase', () => {
    const r = transition(satisfied('D'), move('IDLE'));
    assert.ok(r.ok);
    if (r.ok) assert.deepEqual([r.state.status, r.state.plan], ['idle', null]);
    assert.equal((transition(satisfied('C'), move('D')) as { state: OrcState }).state.status, 'complete');
    assert.equal((transition(at0('IDLE'), move('I')) as { state: OrcState }).state.status, 'active');
    assert.equal((transition(at0('IDLE'), move('P')) as { state: OrcState }).state.status, 'waiting');
  });

  test('the history keeps the last 100 moves', () => {
    let state = at0('I');
    for (let i = 0; i < 120; i++) state = (transition(state, move(state.phase === 'I' ? 'P' : 'I')) as { state: OrcState }).state;
    assert.equal(state.history.length, 100);
  });
});

// The refusals are answers a person or the agent reads: each names what is wrong and what to do.
describe('transition: what the refusals and the history say', () => {
  const refusal = (state: OrcState, event: OrcEvent) => {
    const r = transition(state, event);
    assert.equal(r.ok, false);
    return r.ok ? undefined : { status: r.error.status, code: r.error.code, message: r.error.message, details: r.error.details };
  };

  test('a move that is not an edge lists the moves allowed from the phase', () => {
    assert.deepEqual(refusal(at0('B'), move('D', 'human')), {
      status: 409,
      code: 'ORC_TRANSITION_NOT_ALLOWED',
      message: 'B → D is not a move of the orchestration. From B: C, I (or POST /api/orchestrate/reset).',
      details: { from: 'B', to: 'D', allowed: ['C', 'I'] },
    });
    assert.deepEqual(allowedFrom('IDLE'), ['I', 'P']);
    assert.deepEqual(allowedFrom('C'), ['D', 'B', 'P', 'I']);
    assert.deepEqual(allowedFrom('D'), ['IDLE', 'I']);
    assert.deepEqual(allowedFrom('P'), ['A', 'I']);
    assert.deepEqual(allowedFrom('A'), ['B', 'P', 'I']);
    assert.deepEqual(allowedFrom('I'), ['P']);
  });

  test('a missing gate names what satisfies it; only a human approves', () => {
    const missing = (from: Phase, to: Phase, gate: Gate, satisfiedBy: string) =>
      assert.deepEqual(refusal(at0(from), move(to)), {
        status: 409,
        code: 'ORC_GATE_MISSING',
        message: `${from} → ${to} needs the ${gate} gate: ${satisfiedBy}. A human may approve it instead (approve: true).`,
        details: { gate, from, to, satisfiedBy },
      });
    missing('P', 'A', 'plan', 'submit the plan: `svc orchestrate plan --file plan.md` (or POST /api/orchestrate/plan)');
    missing('A', 'B', 'audit', 'dispatch an audit worker with phase A whose output ends with {"verdict":"pass","findings":[…]} for the current plan version');
    missing('B', 'C', 'verification', 'dispatch a verification worker with phase B whose output ends with {"verdict":"done","findings":[…]} in this build round');
    missing('C', 'D', 'check', 'the check command (setting orchestration.checkCommand) must exit 0 in this build round; moving to D runs it');
    assert.deepEqual(refusal(at0('P'), move('A', 'agent', true)), {
      status: 403,
      code: 'ORC_HUMAN_ONLY',
      message: 'Only a human approves a gate (the UI, the API or the svc CLI outside an agent run); submit the record the gate needs instead.',
      details: undefined,
    });
    // approving an ungated or back move still needs a human, and an approval of a satisfied gate records none
    assert.equal(refusal(at0('IDLE'), move('I', 'agent', true))?.code, 'ORC_HUMAN_ONLY');
    const r = transition(satisfied('P'), move('A', 'human', true));
    assert.ok(r.ok);
    if (r.ok) assert.deepEqual(r.state.history.at(-1), { at, from: 'P', to: 'A', actor: 'human' });
  });

  test('a plan in the wrong phase says where plans go', () => {
    assert.deepEqual(refusal(at0('C'), { type: 'plan', content: 'x', hash: 'h', actor: 'agent', at }), {
      status: 409,
      code: 'ORC_WRONG_PHASE',
      message: 'A plan is submitted in phase I, P or A; this session is in C. Move to P first (PUT /api/orchestrate/state {"phase":"P"}).',
      details: { phase: 'C' },
    });
    for (const phase of ['I', 'P', 'A'] as const) assert.ok(transition(at0(phase), { type: 'plan', content: 'x', hash: 'h', actor: 'agent', at }).ok, phase);
  });

  test('the history entry carries the reason and the run id when given', () => {
    const r = transition(at0('IDLE'), { type: 'move', to: 'I', actor: 'agent', reason: 'start', runId: 'run_1', at: 7 });
    assert.ok(r.ok);
    if (r.ok) assert.deepEqual(r.state.history, [{ at: 7, from: 'IDLE', to: 'I', actor: 'agent', reason: 'start', runId: 'run_1' }]);
    const reset = transition(at0('B'), { type: 'reset', actor: 'human', reason: 'wrong plan', at: 9 });
    assert.ok(reset.ok);
    if (reset.ok) {
      assert.deepEqual(reset.state.history, [{ at: 9, from: 'B', to: 'IDLE', actor: 'human', reason: 'wrong plan' }]);
      assert.equal(reset.state.updatedAt, 9);
      assert.deepEqual(reset.effects, [{ kind: 'cancel_workers', reason: 'the orchestration was reset' }, { kind: 'publish' }]);
    }
  });

  test('the history keeps the newest 100 entries, oldest dropped first', () => {
    let state = at0('I');
    for (let i = 0; i < 101; i++) state = (transition(state, { ...move(state.phase === 'I' ? 'P' : 'I'), at: i }) as { state: OrcState }).state;
    assert.equal(state.history.length, 100);
    assert.deepEqual([state.history[0]!.at, state.history.at(-1)!.at], [1, 100]);
  });
});

describe('transition: the gates read the records exactly', () => {
  const gateOpen = (state: OrcState, gate: Gate) => gateSatisfied(state, gate);
  const base = satisfied('C');

  test('plan: any submitted plan', () => {
    assert.equal(gateOpen(base, 'plan'), true);
    assert.equal(gateOpen({ ...base, plan: null }, 'plan'), false);
  });

  test('audit: a pass, without an error, for the current plan version', () => {
    assert.equal(gateOpen(base, 'audit'), true);
    assert.equal(gateOpen({ ...base, audit: null }, 'audit'), false);
    assert.equal(gateOpen({ ...base, audit: { ...base.audit!, verdict: 'fail' } }, 'audit'), false);
    assert.equal(gateOpen({ ...base, audit: { ...base.audit!, error: 'not JSON' } }, 'audit'), false);
    assert.equal(gateOpen({ ...base, audit: { ...base.audit!, planVersion: 1 } }, 'audit'), false);
    assert.equal(gateOpen({ ...base, plan: null }, 'audit'), false);
  });

  test('verification: done, without an error, in this build round', () => {
    assert.equal(gateOpen(base, 'verification'), true);
    assert.equal(gateOpen({ ...base, verification: null }, 'verification'), false);
    assert.equal(gateOpen({ ...base, verification: { ...base.verification!, verdict: 'not_done' } }, 'verification'), false);
    assert.equal(gateOpen({ ...base, verification: { ...base.verification!, error: 'no verdict' } }, 'verification'), false);
    assert.equal(gateOpen({ ...base, round: 2 }, 'verification'), false);
  });

  test('check: exit 0 in this build round', () => {
    assert.equal(gateOpen(base, 'check'), true);
    assert.equal(gateOpen({ ...base, check: null }, 'check'), false);
    assert.equal(gateOpen({ ...base, check: { ...base.check!, exitCode: 1 } }, 'check'), false);
    assert.equal(gateOpen({ ...base, round: 2 }, 'check'), false);
  });

  test('what a phase waits on, and the status that follows', () => {
    assert.equal(waitingOn(at0('IDLE')), undefined);
    assert.equal(waitingOn(at0('I')), undefined);
    assert.equal(waitingOn(at0('D')), undefined);
    assert.equal(waitingOn(satisfied('A')), undefined);
    assert.equal(waitingOn(at0('C')), 'check');
    const r = transition(at0('B'), move('C', 'human', true));
    assert.ok(r.ok);
    if (r.ok) {
      assert.equal(r.state.status, 'waiting');
      assert.equal(r.state.waitingOn, 'check');
      // recording the check clears what it waited on
      const checked = transition(r.state, { type: 'check', record: { command: 'true', exitCode: 0, outputTail: '', durationMs: 1, round: 0, ranAt: 55 } });
      assert.ok(checked.ok);
      if (checked.ok) {
        assert.equal(checked.state.status, 'active');
        assert.equal('waitingOn' in checked.state, false);
        assert.equal(checked.state.updatedAt, 55);
        assert.deepEqual(checked.effects, [{ kind: 'publish' }]);
      }
    }
  });

  test('records: the plan version counts up from 1, each record sets updatedAt and publishes', () => {
    const p1 = transition(at0('P'), { type: 'plan', content: 'c', hash: 'h1', actor: 'human', at: 11 });
    assert.ok(p1.ok);
    if (!p1.ok) return;
    assert.deepEqual(p1.state.plan, { version: 1, hash: 'h1', content: 'c', submittedAt: 11, by: 'human' });
    assert.equal(p1.state.updatedAt, 11);
    assert.deepEqual(p1.effects, [{ kind: 'publish' }]);
    const audit = transition(p1.state, { type: 'audit', record: { verdict: 'pass', findings: [], runId: 'w', planVersion: 1, recordedAt: 12 } });
    assert.ok(audit.ok);
    if (audit.ok) assert.deepEqual([audit.state.updatedAt, audit.effects], [12, [{ kind: 'publish' }]]);
    const ver = transition(at0('B'), { type: 'verification', record: { verdict: 'done', findings: [], runId: 'w', round: 0, recordedAt: 13 } });
    assert.ok(ver.ok);
    if (ver.ok) assert.deepEqual([ver.state.updatedAt, ver.state.status, ver.effects], [13, 'active', [{ kind: 'publish' }]]);
  });

  test('a move keeps the records, sets updatedAt, and only the move into D completes', () => {
    const r = transition(satisfied('A'), { ...move('B'), at: 77 });
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.state.updatedAt, 77);
    assert.equal(r.state.round, 2);
    assert.deepEqual(r.state.plan, satisfied('A').plan);
    assert.deepEqual(r.effects, [{ kind: 'publish' }]);
    const d = transition(satisfied('C'), move('D'));
    assert.ok(d.ok);
    if (d.ok) assert.deepEqual(d.effects, [{ kind: 'publish' }, { kind: 'completed' }]);
    // a back move to P keeps the round
    const back = transition(satisfied('C'), move('P'));
    assert.ok(back.ok);
    if (back.ok) assert.equal(back.state.round, 1);
  });
});
