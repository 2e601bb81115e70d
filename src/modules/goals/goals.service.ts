// Goals of chat sessions: the actions of POST /api/goal through the state machine (machine.ts), the
// evidence rule for done, the turn after each turn (continuation.ts) as a persisted job (scheduler.ts),
// goal-runs with their preflight gates and enforced budget, and wakeups.
import { AppError, badRequest, conflict } from '../../core/errors.ts';
import type { EventBus } from '../../events/bus.ts';
import type { RunEnd } from '../../agent/runtime.ts';
import {
  MAX_OBJECTIVE,
  type Budget,
  type Goal,
  type GoalRunMode,
  type GoalRunView,
  type GoalView,
  type Wakeup,
} from '../../protocol/goals.ts';
import { assertActor, OPEN_GATE, transition, type Actor, type GoalEvent, type Transition } from './machine.ts';
import { budgetExceeded, continuationPrompt, decide, GOAL_POLICY, type OrchestrationView, type TurnKind } from './continuation.ts';
import { assertDirectory, checkFiles, runCheck, verdict, type MergedRun } from './evidence.ts';
import type { GoalRepo } from './goals.repo.ts';
import { TurnScheduler, type TurnJob } from './scheduler.ts';
import type { Db } from '../../store/db.ts';
import type { GoalSettings } from './settings.ts';

/** The runtime as goals see it: a prompt goes in as a user message of a session. */
export interface AgentTurns {
  submit(input: { prompt: string; sessionId: string; meta: Record<string, unknown> }): { requestId: string };
}

export interface GoalServiceDeps {
  db: Db;
  repo: GoalRepo;
  bus: EventBus;
  agent: AgentTurns;
  orchestration: OrchestrationView;
  activeSession(): string;
  /** Where evidence and checks live when a goal has no project root (the agent's working directory). */
  defaultRoot(): string;
  /** The `goals` settings section as it is now. */
  settings(): GoalSettings;
  /** Whether a worker run's worktree was merged (evidence `run:<runId>`). */
  mergedRun?: MergedRun;
  now?: () => number;
}

/** The budget a goal-run gets when the goal has none (bounded mode needs one). */
export const DEFAULT_RUN_BUDGET: Required<Budget> = { maxTurns: 10, maxMinutes: 60, maxDispatches: 5 };
/** Wakeups are clamped to this range. */
export const WAKEUP_MIN_S = 1;
export const WAKEUP_MAX_S = 7 * 24 * 3600;

export type GoalAction =
  | { action: 'set'; objective: string; projectRoot?: string; budget?: Budget; replace?: boolean }
  | { action: 'update'; summary: string; nextAction?: string; evidence?: string[]; check?: string }
  | { action: 'refine'; objective: string }
  | { action: 'done'; note?: string }
  | { action: 'cancel'; reason?: string }
  | { action: 'pause'; reason?: string; audit?: string }
  | { action: 'resume' }
  | { action: 'clear' };

export type GoalRunAction = { action: 'preflight' | 'start' | 'pause' | 'resume' | 'stop' | 'complete' | 'approve'; mode?: GoalRunMode; budget?: Budget };

/** Who is asking: a person (any client), or the agent's run (its run credential names the session). */
export interface Caller {
  actor: Actor;
  sessionId: string;
}

export class GoalService {
  private readonly scheduler: TurnScheduler;
  private readonly now: () => number;
  private closing = false;

  constructor(private readonly deps: GoalServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.scheduler = new TurnScheduler(deps.db, (job) => this.fire(job), this.now);
  }

  /** Arms the scheduler; a goal turn cut by the last stop is scheduled again, once. */
  start(): void {
    for (const job of this.scheduler.start()) {
      if (job.kind === 'wakeup' || !job.goalId) continue;
      const goal = this.deps.repo.get(job.goalId);
      if (goal?.status === 'active' && !this.scheduler.pendingFor(goal.id)) this.scheduleTurn(goal, job.kind, 'the server restarted during this turn');
    }
  }

  /** Called before the runtime stops its run: a turn cut by the stop stays `running`, to resume at start. */
  close(): void {
    this.closing = true;
    this.scheduler.close();
  }

  caller(sessionId?: string): Caller {
    return { actor: 'human', sessionId: sessionId ?? this.deps.activeSession() };
  }

  view(sessionId: string): GoalView {
    const goal = this.deps.repo.current(sessionId);
    return { goal, checkpoints: goal ? this.deps.repo.checkpoints(goal.id) : [], pauseGate: goal?.gate ?? OPEN_GATE };
  }

  history(sessionId: string, limit: number): { goals: Goal[] } {
    return { goals: this.deps.repo.history(sessionId, limit) };
  }

  /** The block of the system prompt that says how to work on a goal, when the session has one. */
  policyFor(sessionId: string): string {
    return this.deps.repo.current(sessionId)?.status === 'active' ? GOAL_POLICY : '';
  }

  async act(caller: Caller, input: GoalAction): Promise<GoalView & { outcome: string }> {
    const { repo } = this.deps;
    const now = this.now();
    const { sessionId } = caller;
    if (input.action === 'set') return this.set(caller, input, now);
    const goal = repo.current(sessionId);
    if (input.action === 'clear') {
      assertActor(caller.actor, ['human'], 'clear a goal');
      if (goal) {
        if (goal.status === 'active' || goal.status === 'paused') this.apply(goal, { kind: 'cancel', actor: caller.actor }, now, { note: 'cleared' });
        repo.detach(sessionId);
        this.deps.bus.publish('goal_update', { sessionId, goal: null });
      }
      return { ...this.view(sessionId), outcome: goal ? 'goal cleared' : 'there was no goal' };
    }
    if (!goal) throw new AppError(404, 'NO_GOAL', 'This chat has no goal: set one with `svc goal set "<objective>"`.');
    switch (input.action) {
      case 'update': {
        transition(goal, { kind: 'update', actor: caller.actor }, now); // refuses a paused or ended goal before the check runs
        const root = this.rootOf(goal);
        const evidence = checkFiles(root, input.evidence ?? [], this.deps.mergedRun);
        const check = input.check ? await runCheck(input.check, root) : null;
        repo.addCheckpoint(goal.id, { summary: input.summary, nextAction: input.nextAction ?? '', evidence, check, actor: caller.actor }, now);
        const missing = evidence.filter((e) => !e.exists).map((e) => e.path);
        const outcome = ['checkpoint recorded', missing.length ? `not found under ${root}: ${missing.join(', ')}` : '', check ? `check exited with ${check.exitCode ?? 'no code'}` : ''].filter(Boolean).join('; ');
        this.apply(goal, { kind: 'update', actor: caller.actor }, now, { lastDoneRejection: null });
        return { ...this.view(sessionId), outcome };
      }
      case 'refine': {
        this.checkObjective(input.objective);
        const t = this.apply(goal, { kind: 'refine', actor: caller.actor }, now, { objective: input.objective.trim() });
        return { ...this.view(sessionId), outcome: t.outcome };
      }
      case 'done': {
        const t = this.apply(goal, { kind: 'done', actor: caller.actor, evidence: verdict(repo.checkpoints(goal.id, 1)[0] ?? null, this.rootOf(goal), this.deps.mergedRun) }, now, { note: input.note });
        if (t.rejected) throw conflict('GOAL_DONE_REJECTED', `The goal is not complete: ${t.rejected}.`, { reason: t.rejected });
        return { ...this.view(sessionId), outcome: t.outcome };
      }
      case 'cancel': {
        assertActor(caller.actor, ['human'], 'cancel a goal (the agent asks to pause instead)');
        const t = this.apply(goal, { kind: 'cancel', actor: caller.actor }, now, { note: input.reason ?? 'cancelled' });
        return { ...this.view(sessionId), outcome: t.outcome };
      }
      case 'pause': {
        const t = this.apply(goal, { kind: 'pause', actor: caller.actor, reason: input.reason, audit: input.audit }, now, caller.actor === 'human' ? { note: input.reason ?? 'paused by a person' } : {});
        return { ...this.view(sessionId), outcome: t.outcome };
      }
      case 'resume': {
        const t = this.resume(goal, caller.actor, now);
        return { ...this.view(sessionId), outcome: t.outcome };
      }
    }
  }

  private set(caller: Caller, input: Extract<GoalAction, { action: 'set' }>, now: number): GoalView & { outcome: string } {
    const { repo, bus } = this.deps;
    this.checkObjective(input.objective);
    if (input.projectRoot) assertDirectory(input.projectRoot);
    const old = repo.current(caller.sessionId);
    if (old && (old.status === 'active' || old.status === 'paused')) {
      if (!input.replace) throw conflict('GOAL_EXISTS', `This chat already has ${old.status === 'active' ? 'an active' : 'a paused'} goal (${old.id}); finish or cancel it, or set the new one with replace.`, { goalId: old.id });
      this.apply(old, { kind: 'cancel', actor: 'human' }, now, { note: 'replaced by a new goal' });
    }
    const goal = repo.create({ sessionId: caller.sessionId, objective: input.objective.trim(), projectRoot: input.projectRoot ?? null, budget: input.budget ?? {}, gate: OPEN_GATE, mode: 'assist' }, now);
    bus.publish('goal_update', { sessionId: caller.sessionId, goal });
    return { ...this.view(caller.sessionId), outcome: 'goal set; it continues after each turn of the agent' };
  }

  /** Resume (or withdraw the agent's pause request); the goal-run goes on in its mode. */
  private resume(goal: Goal, actor: Actor, now: number): Transition {
    return this.apply(goal, { kind: 'resume', actor }, now, { note: null, runStatus: goal.mode === 'supervised' ? 'awaiting_approval' : 'running' });
  }

  private checkObjective(objective: string): void {
    if (!objective.trim()) throw badRequest('VALIDATION_FAILED', 'The objective is empty: say what done looks like.');
    if (objective.length > MAX_OBJECTIVE) throw badRequest('VALIDATION_FAILED', `The objective is longer than ${MAX_OBJECTIVE} characters.`);
  }

  private rootOf(goal: Goal): string {
    return goal.projectRoot ?? this.deps.defaultRoot();
  }

  /** Runs one transition, saves it, and carries out its effects. */
  private apply(goal: Goal, event: GoalEvent, now: number, extra: Parameters<GoalRepo['update']>[1] = {}): Transition {
    const { repo, bus } = this.deps;
    const t = transition(goal, event, now);
    const ended = t.status === 'complete' || t.status === 'cancelled';
    // an ended goal's run ends with it: nothing reads as running after done or cancel
    const saved = repo.update(goal.id, { ...extra, status: t.status, gate: t.gate, ...(t.rejected ? { lastDoneRejection: t.rejected } : {}), ...(ended ? { endedAt: now, runStatus: 'stopped' as const } : {}) }, now);
    const ids = { goalId: goal.id, sessionId: goal.sessionId };
    for (const effect of t.effects) {
      switch (effect) {
        case 'cancel_turns':
          this.scheduler.cancelGoal(goal.id);
          break;
        case 'done':
          bus.publish('goal_done', ids);
          break;
        case 'done_rejected':
          bus.publish('goal_done_rejected', { ...ids, reason: t.rejected! });
          break;
        case 'cancelled':
          bus.publish('goal_cancel', { ...ids, reason: typeof extra.note === 'string' ? extra.note : 'cancelled' });
          break;
        case 'gate_pending':
          bus.publish('goal_pause_gate_pending', { ...ids, reason: 'pause_gate_pending' });
          break;
        case 'schedule_audit':
          this.scheduleTurn(saved, 'audit', 'the agent asked to pause');
          break;
        case 'kick':
          // a supervised goal waits for approval, a dry-run never runs
          if (saved.mode === 'assist' || saved.mode === 'bounded') this.scheduleTurn(saved, 'continue', 'resumed', 0);
          break;
      }
    }
    bus.publish('goal_update', { sessionId: goal.sessionId, goal: repo.get(goal.id) });
    return t;
  }

  // ── turns ──────────────────────────────────────────────────────────────────────────────

  /** After every run of the agent: count it against the goal, and schedule the goal's next turn. */
  /**
   * Goal turns taken out of the queue before they ran: a person's stop, so the turn ends and the
   * loop waits for them (as after a stopped turn) instead of waiting for a run that never comes.
   */
  onDropped(requestIds: readonly string[]): void {
    for (const requestId of requestIds) {
      const job = this.scheduler.byRequest(requestId);
      if (job?.state === 'running') this.scheduler.finish(job.id, 'done', 'removed from the queue before it ran');
    }
  }

  onRunEnd(end: RunEnd): void {
    if (this.closing) return;
    const { repo } = this.deps;
    const job = this.scheduler.byRequest(end.requestId);
    if (job && job.state === 'running') this.scheduler.finish(job.id, end.status === 'error' ? 'failed' : 'done', end.status === 'error' ? 'the turn failed' : undefined);
    const goal = repo.current(end.sessionId);
    if (!goal || goal.status !== 'active') return;
    const now = this.now();
    repo.addUsage(goal.id, { turns: 1, minutes: end.durationMs / 60_000 });
    let current = repo.get(goal.id)!;
    // the agent asked to pause during this run
    if (current.gate.requestedAt !== null && current.gate.requestedAt >= now - end.durationMs && current.gate.state !== 'open') {
      this.deps.bus.publish('goal_pause_detected', { goalId: goal.id, sessionId: goal.sessionId, traceId: end.traceId, reason: current.gate.reason ?? 'pause requested' });
    }
    if (job?.kind === 'audit') this.apply(current, { kind: 'turn_ended' }, now);
    current = repo.get(goal.id)!;
    this.afterTurn(current, end.status, now);
  }

  private afterTurn(goal: Goal, lastTurn: RunEnd['status'], now: number): void {
    // one turn at a time: e.g. the audit turn the gate just scheduled, or a turn queued behind this run
    if (this.scheduler.inFlight(goal.id)) return;
    const decision = decide({ goal, now, staleMs: this.deps.settings().staleDays * 86_400_000, lastTurn, busyWorkers: this.deps.orchestration.busyWorkers() });
    switch (decision.next) {
      case 'schedule':
        this.scheduleTurn(goal, decision.kind, 'after the last turn');
        return;
      case 'limit':
        this.deps.repo.update(goal.id, { runStatus: 'stopped', note: decision.reason }, goal.updatedAt);
        this.deps.bus.publish('goal_continuation_limit', { goalId: goal.id, sessionId: goal.sessionId, reason: decision.reason });
        this.deps.bus.publish('goal_update', { sessionId: goal.sessionId, goal: this.deps.repo.get(goal.id) });
        return;
      case 'await_approval':
        this.deps.repo.update(goal.id, { runStatus: 'awaiting_approval', note: 'supervised: approve the next turn' }, goal.updatedAt);
        this.deps.bus.publish('goal_update', { sessionId: goal.sessionId, goal: this.deps.repo.get(goal.id) });
        return;
      case 'none':
        this.deps.repo.update(goal.id, { note: decision.reason }, goal.updatedAt);
        this.deps.bus.publish('goal_update', { sessionId: goal.sessionId, goal: this.deps.repo.get(goal.id) });
    }
  }

  private scheduleTurn(goal: Goal, kind: TurnKind, reason: string, delayMs = this.deps.settings().turnDelaySec * 1000): void {
    const over = budgetExceeded(goal.budget, goal.usage);
    if (over && kind === 'continue') {
      this.deps.repo.update(goal.id, { runStatus: 'stopped', note: over }, goal.updatedAt);
      this.deps.bus.publish('goal_continuation_limit', { goalId: goal.id, sessionId: goal.sessionId, reason: over });
      return;
    }
    const job = this.scheduler.schedule({ kind, sessionId: goal.sessionId, goalId: goal.id, dueAt: this.now() + delayMs, reason });
    this.deps.bus.publish('goal_continuation', { goalId: goal.id, sessionId: goal.sessionId, kind, dueAt: job.dueAt, reason });
  }

  /** A due job: the prompt is built now, from the goal as it is now. */
  private fire(job: TurnJob): void {
    if (job.kind === 'wakeup') return this.fireWakeup(job);
    const goal = job.goalId ? this.deps.repo.get(job.goalId) : null;
    if (!goal || goal.status !== 'active' || goal.sessionId !== job.sessionId || this.deps.repo.current(goal.sessionId)?.id !== goal.id) {
      this.scheduler.finish(job.id, 'failed', 'the goal is no longer active');
      return;
    }
    const over = budgetExceeded(goal.budget, goal.usage);
    if (over) {
      this.scheduler.finish(job.id, 'failed', over);
      return;
    }
    if (job.kind === 'audit') this.apply(goal, { kind: 'turn_started', audit: true }, this.now());
    const current = this.deps.repo.get(goal.id)!;
    const prompt = this.promptOf(current, job.kind === 'audit' ? 'audit' : 'continue');
    try {
      const { requestId } = this.deps.agent.submit({ prompt, sessionId: goal.sessionId, meta: { goalId: goal.id, goalTurn: job.kind } });
      this.scheduler.started(job.id, requestId);
    } catch (err) {
      this.scheduler.finish(job.id, 'failed', (err as Error).message);
      this.deps.repo.update(goal.id, { note: `the next turn could not start: ${(err as Error).message}` }, goal.updatedAt);
    }
  }

  private promptOf(goal: Goal, kind: TurnKind): string {
    const { orchestration } = this.deps;
    return continuationPrompt({
      goal,
      checkpoint: this.deps.repo.checkpoints(goal.id, 1)[0] ?? null,
      phase: orchestration.phaseOf(goal.sessionId),
      undeliveredResults: orchestration.undeliveredResults(goal.sessionId),
      kind,
    });
  }

  /** A worker was dispatched for this session's goal (the orchestration calls this). */
  recordDispatch(sessionId: string): void {
    const goal = this.deps.repo.current(sessionId);
    if (goal?.status === 'active') this.deps.repo.addUsage(goal.id, { dispatches: 1 });
  }

  // ── goal-run ───────────────────────────────────────────────────────────────────────────

  preflight(sessionId: string, mode: GoalRunMode): GoalRunView {
    const goal = this.deps.repo.current(sessionId);
    const { orchestration } = this.deps;
    const phase = orchestration.phaseOf(sessionId);
    const busy = orchestration.busyWorkers();
    const undelivered = orchestration.undeliveredResults(sessionId);
    const budget = this.runBudget(goal, mode);
    const over = goal ? budgetExceeded(budget, goal.usage) : null;
    const gates = [
      { gate: 'active-goal', passed: goal?.status === 'active', reason: goal ? `the goal is ${goal.status}` : 'no goal: set one first' },
      { gate: 'orchestration-idle', passed: phase === 'IDLE', reason: `the orchestration is ${phase}` },
      { gate: 'no-busy-worker', passed: busy === 0, reason: busy ? `${busy} worker(s) busy` : 'no worker is busy' },
      { gate: 'no-undelivered-result', passed: undelivered === 0, reason: undelivered ? `${undelivered} worker result(s) not delivered` : 'no result waiting' },
      { gate: 'budget-left', passed: Boolean(goal) && !over, reason: over ?? (goal ? 'budget left' : 'no goal') },
      { gate: 'pause-gate-open', passed: !goal || goal.gate.state === 'open', reason: goal && goal.gate.state !== 'open' ? `the pause gate is ${goal.gate.state}` : 'no pause request pending' },
    ];
    return {
      goalId: goal?.id ?? null,
      mode,
      status: goal?.runStatus ?? null,
      budget,
      usage: goal?.usage ?? { turns: 0, minutes: 0, dispatches: 0 },
      gates,
      nextPrompt: goal && goal.status === 'active' ? this.promptOf(goal, goal.gate.state === 'audit_scheduled' ? 'audit' : 'continue') : null,
    };
  }

  runView(sessionId: string): GoalRunView {
    const goal = this.deps.repo.current(sessionId);
    return this.preflight(sessionId, goal?.mode ?? 'assist');
  }

  private runBudget(goal: Goal | null, mode: GoalRunMode, given?: Budget): Budget {
    const budget = { ...goal?.budget, ...given };
    if (mode !== 'bounded') return budget;
    return { ...DEFAULT_RUN_BUDGET, ...budget };
  }

  runAct(sessionId: string, input: GoalRunAction): GoalRunView {
    const { repo } = this.deps;
    const goal = repo.current(sessionId);
    const mode = input.mode ?? goal?.mode ?? 'assist';
    if (input.action === 'preflight') return this.preflight(sessionId, mode);
    if (!goal) throw new AppError(404, 'NO_GOAL', 'This chat has no goal: set one with `svc goal set "<objective>"`.');
    const now = this.now();
    const done = (outcome: string) => ({ ...this.runView(sessionId), outcome });
    switch (input.action) {
      case 'start': {
        const budget = this.runBudget(goal, mode, input.budget);
        repo.update(goal.id, { mode, budget }, goal.updatedAt);
        repo.resetUsage(goal.id);
        const check = this.preflight(sessionId, mode);
        const failed = check.gates.filter((g) => !g.passed);
        if (failed.length) throw conflict('GOAL_PREFLIGHT_FAILED', `The goal-run cannot start: ${failed.map((g) => `${g.gate}: ${g.reason}`).join('; ')}.`, { gates: check.gates });
        const started = repo.update(goal.id, { runStatus: mode === 'supervised' ? 'awaiting_approval' : 'running', note: null }, now);
        this.deps.bus.publish('goal_update', { sessionId, goal: started });
        if (mode === 'dry-run') return done('dry-run: nextPrompt is what the next turn would get; nothing runs');
        if (mode === 'supervised') return done('supervised: approve each turn (action approve)');
        this.scheduleTurn(started, 'continue', `goal-run started (${mode})`, 0);
        return done(`goal-run started (${mode})`);
      }
      case 'approve': {
        if (goal.runStatus !== 'awaiting_approval') throw conflict('GOAL_NOT_SUPERVISED', 'No turn waits for approval: the goal-run is not supervised or a turn runs already.');
        const approved = repo.update(goal.id, { runStatus: 'running', note: null }, goal.updatedAt);
        this.scheduleTurn(approved, approved.gate.state === 'audit_scheduled' ? 'audit' : 'continue', 'approved by a person', 0);
        return done('turn approved');
      }
      case 'pause':
        this.apply(goal, { kind: 'pause', actor: 'human' }, now, { note: 'goal-run paused by a person' });
        return done('goal-run paused');
      case 'resume':
        return done(this.resume(goal, 'human', now).outcome);
      case 'stop': {
        this.scheduler.cancelGoal(goal.id);
        const stopped = repo.update(goal.id, { runStatus: 'stopped', note: 'goal-run stopped by a person' }, goal.updatedAt);
        this.deps.bus.publish('goal_update', { sessionId, goal: stopped });
        return done('goal-run stopped; the goal stays as it is');
      }
      case 'complete': {
        const t = this.apply(goal, { kind: 'done', actor: 'human', evidence: verdict(repo.checkpoints(goal.id, 1)[0] ?? null, this.rootOf(goal), this.deps.mergedRun) }, now);
        if (t.rejected) throw conflict('GOAL_DONE_REJECTED', `The goal is not complete: ${t.rejected}.`, { reason: t.rejected });
        return done('goal complete');
      }
    }
  }

  // ── wakeups ────────────────────────────────────────────────────────────────────────────

  wakeup(sessionId: string, input: { delaySeconds: number; prompt: string; reason?: string }): Wakeup {
    if (!(input.delaySeconds >= WAKEUP_MIN_S && input.delaySeconds <= WAKEUP_MAX_S)) {
      this.deps.bus.publish('schedule_wakeup_failed', { sessionId, reason: `the delay must be ${WAKEUP_MIN_S} s to ${WAKEUP_MAX_S / 86400} days` });
      throw badRequest('INVALID_DELAY', `A wakeup is ${WAKEUP_MIN_S} s to ${WAKEUP_MAX_S / 86400} days away; got ${input.delaySeconds} s.`);
    }
    const reason = input.reason?.trim() || 'wakeup';
    const job = this.scheduler.schedule({ kind: 'wakeup', sessionId, dueAt: this.now() + Math.round(input.delaySeconds * 1000), prompt: input.prompt, reason });
    this.deps.bus.publish('schedule_wakeup', { id: job.id, sessionId, dueAt: job.dueAt, reason });
    return toWakeup(job);
  }

  wakeups(sessionId: string): Wakeup[] {
    return this.scheduler.wakeups(sessionId).map(toWakeup);
  }

  private fireWakeup(job: TurnJob): void {
    try {
      const { requestId } = this.deps.agent.submit({ prompt: job.prompt ?? job.reason, sessionId: job.sessionId, meta: { wakeup: job.id } });
      this.scheduler.started(job.id, requestId);
    } catch (err) {
      const reason = (err as Error).message;
      this.scheduler.finish(job.id, 'failed', reason);
      this.deps.bus.publish('schedule_wakeup_failed', { id: job.id, sessionId: job.sessionId, reason });
    }
  }
}

const toWakeup = (job: TurnJob): Wakeup => ({
  id: job.id,
  sessionId: job.sessionId,
  dueAt: job.dueAt,
  prompt: job.prompt ?? '',
  reason: job.reason,
  state: job.state === 'running' || job.state === 'done' ? 'fired' : job.state === 'interrupted' ? 'failed' : job.state,
  error: job.error,
});
