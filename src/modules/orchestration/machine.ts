// The orchestration's state machine as one pure function: transition(state, event) → the next state
// and the effects the service must carry out, or a refusal that names what is missing. Gates read
// the records in the state (a plan artifact, an audit verdict for that plan, a verification verdict
// and a passing check run for this build round), never prose; a human may approve a gate instead,
// and the history says so. Nothing here does I/O or reads the clock.
import { AppError, conflict, forbidden } from '../../core/errors.ts';
import type {
  Actor,
  AuditRecord,
  CheckRecord,
  Gate,
  HistoryEntry,
  OrcState,
  OrcStatus,
  Phase,
  PlanRecord,
  VerificationRecord,
} from '../../protocol/orchestration.ts';
import { GATE_TEXT, NEXT_PHASE } from '../../protocol/orchestration-text.ts';

export type OrcEvent =
  | { type: 'move'; to: Phase; actor: Actor; approve?: boolean; reason?: string; runId?: string; at: number }
  | { type: 'reset'; actor: Actor; reason?: string; at: number }
  | { type: 'plan'; content: string; hash: string; actor: Actor; at: number }
  | { type: 'audit'; record: AuditRecord }
  | { type: 'verification'; record: VerificationRecord }
  | { type: 'check'; record: CheckRecord };

export type Effect =
  /** Publish `orc_state`. */
  | { kind: 'publish' }
  /** Cancel the session's queued and running worker runs (reset). */
  | { kind: 'cancel_workers'; reason: string }
  /** The cycle reached D. */
  | { kind: 'completed' };

export type TransitionResult = { ok: true; state: OrcState; effects: Effect[] } | { ok: false; error: AppError };

/** Forward edges and the gate each needs (undefined: none). */
const FORWARD: ReadonlyMap<string, Gate | undefined> = new Map([
  ['IDLE>I', undefined],
  ['IDLE>P', undefined],
  ['I>P', undefined],
  ['P>A', 'plan'],
  ['A>B', 'audit'],
  ['B>C', 'verification'],
  ['C>D', 'check'],
  ['D>IDLE', undefined],
]);
/** Back edges: never gated. A→P (a failed audit sends the plan back) is ours; the issue lists the rest. */
const BACK: ReadonlySet<string> = new Set(['C>B', 'C>P', 'C>I', 'A>P', 'P>I', 'A>I', 'B>I', 'D>I']);

const HISTORY_LIMIT = 100;


export function initialState(sessionId: string, at = 0): OrcState {
  return { sessionId, phase: 'IDLE', status: 'idle', round: 0, plan: null, audit: null, verification: null, check: null, history: [], updatedAt: at };
}

export type EdgeKind = 'forward' | 'back' | 'none';
export function edgeKind(from: Phase, to: Phase): EdgeKind {
  const key = `${from}>${to}`;
  if (FORWARD.has(key)) return 'forward';
  if (BACK.has(key)) return 'back';
  return 'none';
}
export const gateOf = (from: Phase, to: Phase): Gate | undefined => FORWARD.get(`${from}>${to}`);

export function gateSatisfied(state: OrcState, gate: Gate): boolean {
  switch (gate) {
    case 'plan':
      return state.plan !== null;
    case 'audit':
      return state.audit?.verdict === 'pass' && !state.audit.error && state.plan !== null && state.audit.planVersion === state.plan.version;
    case 'verification':
      return state.verification?.verdict === 'done' && !state.verification.error && state.verification.round === state.round;
    case 'check':
      return state.check?.exitCode === 0 && state.check.round === state.round;
  }
}

/** The gate the next forward move out of this phase waits on, if it is not satisfied yet. */
export function waitingOn(state: OrcState): Gate | undefined {
  const next = NEXT_PHASE[state.phase];
  const gate = next ? gateOf(state.phase, next) : undefined;
  return gate && !gateSatisfied(state, gate) ? gate : undefined;
}

function withStatus(state: OrcState): OrcState {
  const gate = waitingOn(state);
  const status: OrcStatus = state.phase === 'IDLE' ? 'idle' : state.phase === 'D' ? 'complete' : gate ? 'waiting' : 'active';
  const { waitingOn: _old, ...rest } = state;
  return { ...rest, status, ...(gate ? { waitingOn: gate } : {}) };
}

function pushHistory(state: OrcState, entry: HistoryEntry): HistoryEntry[] {
  return [...state.history, entry].slice(-HISTORY_LIMIT);
}

const cleared = { plan: null, audit: null, verification: null, check: null } as const;

export function transition(state: OrcState, event: OrcEvent): TransitionResult {
  switch (event.type) {
    case 'move':
      return move(state, event);
    case 'reset': {
      const next: OrcState = {
        ...state,
        ...cleared,
        phase: 'IDLE',
        round: 0,
        history: pushHistory(state, { at: event.at, from: state.phase, to: 'IDLE', actor: event.actor, reason: event.reason ?? 'reset' }),
        updatedAt: event.at,
      };
      return { ok: true, state: withStatus(next), effects: [{ kind: 'cancel_workers', reason: 'the orchestration was reset' }, { kind: 'publish' }] };
    }
    case 'plan': {
      if (!['I', 'P', 'A'].includes(state.phase)) {
        return { ok: false, error: conflict('ORC_WRONG_PHASE', `A plan is submitted in phase I, P or A; this session is in ${state.phase}. Move to P first (PUT /api/orchestrate/state {"phase":"P"}).`, { phase: state.phase }) };
      }
      const plan: PlanRecord = { version: (state.plan?.version ?? 0) + 1, hash: event.hash, content: event.content, submittedAt: event.at, by: event.actor };
      return { ok: true, state: withStatus({ ...state, plan, updatedAt: event.at }), effects: [{ kind: 'publish' }] };
    }
    case 'audit':
      return { ok: true, state: withStatus({ ...state, audit: event.record, updatedAt: event.record.recordedAt }), effects: [{ kind: 'publish' }] };
    case 'verification':
      return { ok: true, state: withStatus({ ...state, verification: event.record, updatedAt: event.record.recordedAt }), effects: [{ kind: 'publish' }] };
    case 'check':
      return { ok: true, state: withStatus({ ...state, check: event.record, updatedAt: event.record.ranAt }), effects: [{ kind: 'publish' }] };
  }
}

function move(state: OrcState, event: Extract<OrcEvent, { type: 'move' }>): TransitionResult {
  const { to, actor } = event;
  const kind = edgeKind(state.phase, to);
  if (kind === 'none') {
    const allowed = allowedFrom(state.phase).join(', ') || 'none';
    return {
      ok: false,
      error: conflict('ORC_TRANSITION_NOT_ALLOWED', `${state.phase} → ${to} is not a move of the orchestration. From ${state.phase}: ${allowed} (or POST /api/orchestrate/reset).`, { from: state.phase, to, allowed: allowedFrom(state.phase) }),
    };
  }
  if (event.approve && actor !== 'human') {
    return { ok: false, error: forbidden('ORC_HUMAN_ONLY', 'Only a human approves a gate (the UI, the API or the svc CLI outside an agent run); submit the record the gate needs instead.') };
  }
  const gate = kind === 'forward' ? gateOf(state.phase, to) : undefined;
  const approved: Gate[] = [];
  if (gate && !gateSatisfied(state, gate)) {
    if (!event.approve) {
      return {
        ok: false,
        error: conflict('ORC_GATE_MISSING', `${state.phase} → ${to} needs the ${gate} gate: ${GATE_TEXT[gate].satisfiedBy}. A human may approve it instead (approve: true).`, { gate, from: state.phase, to, satisfiedBy: GATE_TEXT[gate].satisfiedBy }),
      };
    }
    approved.push(gate);
  }
  const entry: HistoryEntry = {
    at: event.at,
    from: state.phase,
    to,
    actor,
    ...(approved.length ? { approved } : {}),
    ...(event.reason ? { reason: event.reason } : {}),
    ...(event.runId ? { runId: event.runId } : {}),
  };
  // A new cycle starts clean; every entry into B is a new build round (older verdicts and checks no longer count).
  const records = to === 'IDLE' ? { ...cleared, round: 0 } : to === 'B' ? { round: state.round + 1 } : {};
  const next: OrcState = { ...state, ...records, phase: to, history: pushHistory(state, entry), updatedAt: event.at };
  const effects: Effect[] = [{ kind: 'publish' }];
  if (to === 'D') effects.push({ kind: 'completed' });
  return { ok: true, state: withStatus(next), effects };
}

export function allowedFrom(phase: Phase): Phase[] {
  const out: Phase[] = [];
  for (const key of [...FORWARD.keys(), ...BACK]) {
    const [from, to] = key.split('>') as [Phase, Phase];
    if (from === phase) out.push(to);
  }
  return out;
}
