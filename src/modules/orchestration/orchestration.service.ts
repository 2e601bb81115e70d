// The orchestration of each chat session: loads and saves its state, feeds events through the pure
// machine, carries out the effects (publish `orc_state`, cancel workers, report completion), runs the
// check command for C → D, and maps who is calling to an actor.
import { createHash } from 'node:crypto';
import { AppError, forbidden } from '../../core/errors.ts';
import type { EventBus } from '../../events/bus.ts';
import type { Caller } from '../../protocol/caller.ts';
import type { Actor, AuditRecord, OrcState, Phase, VerificationRecord } from '../../protocol/orchestration.ts';
import { edgeKind, initialState, transition, type OrcEvent } from './machine.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { OrchestrationRepo } from './orchestration.repo.ts';
import type { OrchestrationSettings } from './orchestration.settings.ts';
import { phaseInstructions } from './phase-instructions.ts';
import { runCheck } from './check.ts';

export interface OrchestrationDeps {
  repo: OrchestrationRepo;
  bus: EventBus;
  settings(): OrchestrationSettings;
  /** The session a request names, or the active one; throws 404 for an unknown id. */
  session(id?: string): string;
  cwd(): string;
  env(): NodeJS.ProcessEnv;
  pidDir: string;
  /** Cancels the session's queued and running worker runs (a reset). */
  cancelWorkers?(sessionId: string, reason: string): void;
  /** The session's isolated runs whose worktrees are neither merged nor discarded yet. */
  openWorktrees?(sessionId: string): string[];
  /** Approvals, rejections, resets and refused credentials are security audit entries. */
  audit?: AuditSink;
  now?(): number;
}

/** Who acts, and for which session. */
export interface Acting {
  actor: Actor;
  sessionId: string;
  runId?: string;
}

/** The audit log's name for an actor: the user, or the agent of one run. */
export const auditActor = (acting: Pick<Acting, 'actor' | 'runId'>) => (acting.actor === 'human' ? 'user' : `agent:${acting.runId ?? '?'}`);

export class OrchestrationService {
  /** Moves of one session are serialised (a check run may sit between the request and the move). */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: OrchestrationDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /**
   * The actor and session of a request. The agent acts only on its own run's session; a credential
   * that is no longer valid (its run ended, or a worker's) acts on nothing.
   */
  acting(caller: Caller, sessionId?: string): Acting {
    if (caller.kind === 'human') return { actor: 'human', sessionId: this.deps.session(sessionId) };
    const refuse = (reason: string, message: string) => {
      const actor = caller.run ? auditActor({ actor: 'agent', runId: caller.run.runId }) : 'agent:none';
      this.deps.audit?.recordLimited(`orchestrate.refused:${actor}`, { actor, action: 'orchestrate.refused', target: sessionId ?? caller.run?.sessionId ?? '', outcome: 'refused', details: { reason } });
      return forbidden('ORC_NOT_ALLOWED', message);
    };
    if (!caller.run) throw refuse('no running main-agent run', 'This credential belongs to no running main-agent run (a worker, or a run that ended): it cannot change the orchestration or dispatch.');
    if (sessionId !== undefined && sessionId !== caller.run.sessionId) {
      throw refuse('another session', `The agent acts on its own chat session (${caller.run.sessionId}), not on '${sessionId}'.`);
    }
    return { actor: 'agent', sessionId: caller.run.sessionId, runId: caller.run.runId };
  }

  state(sessionId: string): OrcState {
    return this.deps.repo.get(sessionId) ?? initialState(sessionId, 0);
  }

  /** Applies one event: saved, then its effects carried out. Throws the machine's refusal. */
  apply(sessionId: string, event: OrcEvent): OrcState {
    const result = transition(this.state(sessionId), event);
    if (!result.ok) throw result.error;
    this.deps.repo.save(result.state);
    for (const effect of result.effects) {
      if (effect.kind === 'publish') this.publish(result.state);
      else if (effect.kind === 'cancel_workers') this.deps.cancelWorkers?.(sessionId, effect.reason);
      else if (effect.kind === 'completed') this.deps.bus.publish('orchestrate_done', { kind: 'cycle', sessionId, phase: 'D', planVersion: result.state.plan?.version ?? null });
    }
    return result.state;
  }

  private publish(state: OrcState): void {
    this.deps.bus.publish('orc_state', {
      sessionId: state.sessionId,
      phase: state.phase,
      status: state.status,
      ...(state.waitingOn ? { waitingOn: state.waitingOn } : {}),
      round: state.round,
      planVersion: state.plan?.version ?? null,
    });
  }

  async move(acting: Acting, input: { phase: Phase; approve?: boolean; reason?: string }): Promise<OrcState> {
    return this.serial(acting.sessionId, async () => {
      const state = this.state(acting.sessionId);
      // C → D: the server runs the check itself first, unless a human approves without it
      if (state.phase === 'C' && input.phase === 'D' && !input.approve && !(state.check?.exitCode === 0 && state.check.round === state.round)) {
        await this.check(acting.sessionId);
      }
      const from = state.phase;
      const entry = { actor: auditActor(acting), target: acting.sessionId };
      let next: OrcState;
      try {
        next = this.apply(acting.sessionId, { type: 'move', to: input.phase, actor: acting.actor, approve: input.approve, reason: input.reason, runId: acting.runId, at: this.now() });
      } catch (err) {
        if ((err as AppError).code === 'ORC_HUMAN_ONLY') this.deps.audit?.record({ ...entry, action: 'orchestrate.approve', outcome: 'refused', details: { from, to: input.phase } });
        throw err;
      }
      const approved = next.history.at(-1)?.approved;
      const reason = input.reason ? { reason: input.reason } : {};
      if (approved?.length) this.deps.audit?.record({ ...entry, action: 'orchestrate.approve', outcome: 'ok', details: { from, to: input.phase, gates: approved, ...reason } });
      else if (acting.actor === 'human' && edgeKind(from, input.phase) === 'back') this.deps.audit?.record({ ...entry, action: 'orchestrate.reject', outcome: 'ok', details: { from, to: input.phase, ...reason } });
      return next;
    });
  }

  reset(acting: Acting, reason?: string): OrcState {
    const from = this.state(acting.sessionId).phase;
    const next = this.apply(acting.sessionId, { type: 'reset', actor: acting.actor, reason, at: this.now() });
    this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.reset', target: acting.sessionId, outcome: 'ok', details: { from, ...(reason ? { reason } : {}) } });
    return next;
  }

  submitPlan(acting: Acting, content: string): OrcState {
    const hash = createHash('sha256').update(content).digest('hex');
    return this.apply(acting.sessionId, { type: 'plan', content, hash, actor: acting.actor, at: this.now() });
  }

  /** Runs the check command now and records its result for this build round. */
  async check(sessionId: string): Promise<OrcState> {
    const { checkCommand, checkTimeoutSec } = this.deps.settings();
    if (!checkCommand.trim()) {
      throw new AppError(409, 'CHECK_NOT_SET', 'No check command is set: set orchestration.checkCommand (e.g. "npm test") in the settings, or have a human approve D.', { gate: 'check' });
    }
    // the check runs in the working directory: what a worker built in a worktree counts once it is merged there
    const open = this.deps.openWorktrees?.(sessionId) ?? [];
    if (open.length) {
      throw new AppError(409, 'UNMERGED_WORKTREES', `The check runs against your tree, and worker runs ${open.join(', ')} still hold changes in their worktrees: review and merge or discard them first.`, { gate: 'check', runIds: open });
    }
    const round = this.state(sessionId).round;
    const result = await runCheck({ command: checkCommand, cwd: this.deps.cwd(), env: this.deps.env(), pidDir: this.deps.pidDir, timeoutMs: checkTimeoutSec * 1000 });
    return this.apply(sessionId, { type: 'check', record: { command: checkCommand, ...result, round, ranAt: this.now() } });
  }

  recordAudit(sessionId: string, record: AuditRecord): OrcState {
    return this.apply(sessionId, { type: 'audit', record });
  }

  recordVerification(sessionId: string, record: VerificationRecord): OrcState {
    return this.apply(sessionId, { type: 'verification', record });
  }

  /** The block for the main agent's system prompt in this session ('' when it is not orchestrating). */
  promptBlock(sessionId: string): string {
    return phaseInstructions(this.state(sessionId), this.deps.settings().checkCommand);
  }

  private serial<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const before = this.locks.get(sessionId) ?? Promise.resolve();
    const next = before.then(work, work);
    const settled = next.catch(() => undefined);
    this.locks.set(sessionId, settled);
    void settled.then(() => {
      if (this.locks.get(sessionId) === settled) this.locks.delete(sessionId);
    });
    return next;
  }
}
