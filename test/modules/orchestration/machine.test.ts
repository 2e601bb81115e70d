import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { initialState, transition, waitingOn, type OrcEvent } from '../../../src/modules/orchestration/machine.ts';
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

const move = (to: Phase, actor: 'human' | 'agent' = 'agent', approve?: boolean): OrcEvent => ({ type: 'move', to, actor, approve, at });

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
