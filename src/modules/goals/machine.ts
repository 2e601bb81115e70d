// The goal state machine and its pause gate, as pure functions: a goal's status and gate, an event,
// the clock in; the next status and gate, a sentence saying what happened and the effects the service
// carries out (events, jobs) out. Wrong states are AppErrors (4xx) naming what to do instead.
// docs/goals.md draws the same transitions.
import { AppError, badRequest, conflict } from '../../core/errors.ts';
import type { Gate, GoalStatus } from '../../protocol/goals.ts';

export type Actor = 'agent' | 'human';

export interface GoalState {
  status: GoalStatus;
  gate: Gate;
}

export type GoalEvent =
  | { kind: 'update'; actor: Actor }
  | { kind: 'refine'; actor: Actor }
  | { kind: 'done'; actor: Actor; evidence: { ok: true } | { ok: false; reason: string } }
  | { kind: 'cancel'; actor: Actor }
  | { kind: 'pause'; actor: Actor; reason?: string; audit?: string }
  | { kind: 'resume'; actor: Actor }
  /** A turn of the goal began; `audit` when it is the pause gate's audit turn. */
  | { kind: 'turn_started'; audit: boolean }
  | { kind: 'turn_ended' };

/** What the service does after a transition. */
export type Effect =
  | 'gate_pending' // publish goal_pause_gate_pending
  | 'schedule_audit' // schedule the one audit turn
  | 'cancel_turns' // drop the goal's scheduled turn
  | 'kick' // schedule the next turn now
  | 'done' // publish goal_done
  | 'done_rejected' // publish goal_done_rejected
  | 'cancelled'; // publish goal_cancel

export interface Transition extends GoalState {
  outcome: string;
  effects: Effect[];
  /** `done` without checkable evidence: the state is unchanged and this says why. */
  rejected?: string;
}

export const OPEN_GATE: Gate = { state: 'open', reason: null, requestedAt: null, nextAction: null };

const AUDIT_NEXT = 'Justify the pause with `svc goal pause --audit "<why the goal cannot go on>"`, or withdraw it with `svc goal resume` and continue.';

const wrongState = (status: GoalStatus, what: string) =>
  conflict('GOAL_STATE', `The goal is ${status}: ${what}`, { status });

function requireOpen(state: GoalState, verb: string): void {
  if (state.status === 'complete' || state.status === 'cancelled') throw wrongState(state.status, `it cannot be ${verb}; set a new goal with \`svc goal set "<objective>"\`.`);
}

export function transition(state: GoalState, event: GoalEvent, now: number): Transition {
  const same = (outcome: string, effects: Effect[] = []): Transition => ({ ...state, outcome, effects });
  switch (event.kind) {
    case 'update':
      requireOpen(state, 'updated');
      if (state.status === 'paused') throw wrongState('paused', 'resume it (`svc goal resume`) before recording progress.');
      return same('checkpoint recorded');
    case 'refine':
      requireOpen(state, 'refined');
      return same('objective refined');
    case 'done':
      requireOpen(state, 'completed');
      if (!event.evidence.ok) return { ...same(`completion rejected: ${event.evidence.reason}`, ['done_rejected']), rejected: event.evidence.reason };
      return { status: 'complete', gate: OPEN_GATE, outcome: 'goal complete', effects: ['done', 'cancel_turns'] };
    case 'cancel':
      requireOpen(state, 'cancelled');
      return { status: 'cancelled', gate: OPEN_GATE, outcome: 'goal cancelled', effects: ['cancelled', 'cancel_turns'] };
    case 'pause':
      return pause(state, event, now);
    case 'resume':
      requireOpen(state, 'resumed');
      if (state.status === 'paused') return { status: 'active', gate: OPEN_GATE, outcome: 'goal resumed', effects: ['kick'] };
      if (state.gate.state !== 'open') return { status: 'active', gate: OPEN_GATE, outcome: 'pause request withdrawn; the goal continues', effects: ['kick'] };
      return same('the goal is already active');
    case 'turn_started':
      if (event.audit && state.gate.state === 'audit_scheduled') return { ...state, gate: { ...state.gate, state: 'audit_running' }, outcome: 'audit turn started', effects: [] };
      return same('turn started');
    case 'turn_ended':
      if (state.gate.state === 'audit_running') return { ...state, gate: { ...state.gate, state: 'audit_done', nextAction: 'A person decides: `svc goal pause` or `svc goal resume`.' }, outcome: 'audit turn ended without a decision', effects: [] };
      return same('turn ended');
  }
}

function pause(state: GoalState, event: Extract<GoalEvent, { kind: 'pause' }>, now: number): Transition {
  requireOpen(state, 'paused');
  if (state.status === 'paused') return { ...state, outcome: 'the goal is already paused', effects: [] };
  if (event.actor === 'human') return { status: 'paused', gate: OPEN_GATE, outcome: 'goal paused', effects: ['cancel_turns'] };
  if (state.gate.state === 'open') {
    const reason = event.reason?.trim() || event.audit?.trim();
    if (!reason) throw badRequest('GOAL_PAUSE_NEEDS_AUDIT', 'Say why the goal should pause: `svc goal pause --reason "<why>"`.');
    return {
      status: 'active',
      gate: { state: 'audit_scheduled', reason, requestedAt: now, nextAction: AUDIT_NEXT },
      outcome: 'pause request recorded, not executed: one audit turn will ask you to justify it (`svc goal pause --audit "…"`) or withdraw it (`svc goal resume`)',
      effects: ['gate_pending', 'schedule_audit'],
    };
  }
  if (!event.audit?.trim()) throw badRequest('GOAL_PAUSE_NEEDS_AUDIT', 'A pause request is already recorded; pausing now needs its audit: `svc goal pause --audit "<why the goal cannot go on>"`.');
  return { status: 'paused', gate: OPEN_GATE, outcome: 'goal paused after its audit', effects: ['cancel_turns'] };
}

/** The gate that blocks automatic continuation, or none. */
export const gateBlocks = (gate: Gate): boolean => gate.state === 'audit_running' || gate.state === 'audit_done';

export function assertActor(actor: Actor, allowed: readonly Actor[], what: string): void {
  if (!allowed.includes(actor)) throw new AppError(403, 'GOAL_HUMAN_ONLY', `Only a person can ${what}.`);
}
