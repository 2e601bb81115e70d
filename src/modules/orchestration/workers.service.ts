// Worker runs: dispatch (single and batch), a queue bounded by the concurrency setting, one provider
// CLI per run (read-only enforced by the CLI's own permission mode or sandbox), stall and timeout
// policy, verdicts recorded for the gates, and the result delivered to the dispatching session's main
// agent exactly once (claimed in the same SQLite transaction that saves the turn). Runs are rows from
// the moment they are dispatched, so a restart finds them.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { AppError, badRequest, conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { EventBus } from '../../events/bus.ts';
import type { Db } from '../../store/db.ts';
import { Attempt, type AttemptOutcome } from '../../agent/attempt.ts';
import { adapterOf, PROVIDER_IDS, PROVIDERS, type ProviderId } from '../../agent/providers/registry.ts';
import { runRequest, type RunSources } from '../../agent/run-request.ts';
import type { TraceRecorder } from '../../agent/traces.ts';
import { RUN_TOKEN_ENV } from '../../agent/run-credentials.ts';
import { clip } from '../../agent/tool-log.ts';
import {
  TERMINAL_STATUSES,
  type Batch,
  type BatchEntry,
  type DispatchBody,
  type Employee,
  type Isolation,
  type Phase,
  type ReviewComment,
  type WorkerRunStatus,
} from '../../protocol/orchestration.ts';
import type { AuditSink } from '../security-audit/index.ts';
import { auditActor, type Acting, type OrchestrationService } from './orchestration.service.ts';
import type { OrchestrationSettings } from './orchestration.settings.ts';
import type { EmployeeRepo } from './employees.ts';
import { publicRun, type StoredRun, type WorkerRunRepo } from './workers.repo.ts';
import { aggregateVerdict, mayStart } from './batch.ts';
import { workerPrompt, type VerdictKind } from './worker-prompt.ts';
import { parseAudit, parseVerification } from './verdict.ts';
import { changedFiles, outsideScope } from './scope.ts';
import { setupFailureOf, setupNote } from './setup-failure.ts';
import { providerEvents, providerStatus, type ProviderEEvent, type ProviderEWho } from './provider-events.ts';
import { repositoryOf, requireRepository, type WorktreeService } from './worktrees/worktrees.service.ts';
import type { Worktree } from './worktrees/worktrees.repo.ts';
import { followUpTask, mergeMessage } from './worktrees/review.ts';

/** Providers whose CLI svc can hold to read-only (each one's `supports.readOnly`). */
export const READ_ONLY_PROVIDERS: readonly ProviderId[] = PROVIDERS.filter((p) => p.supports.readOnly).map((p) => p.id as ProviderId);
const PERSIST_EVERY_MS = 1000;
const DELIVERED_OUTPUT_CHARS = 6000;

export interface WorkerDeps {
  db: Db;
  repo: WorkerRunRepo;
  employees: EmployeeRepo;
  orchestration: OrchestrationService;
  bus: EventBus;
  recorder: TraceRecorder;
  settings(): OrchestrationSettings;
  /** The agent's settings (a worker with provider '' runs the agent's) and the rest of a run's request (agent/run-request.ts). */
  sources: RunSources;
  /** Provider CLI environment (never with a main-agent credential). */
  env(): NodeJS.ProcessEnv;
  cwd(): string;
  pidDir: string;
  /** Parent of each run's private directory (agent/run-dir.ts): in svc's home, not a world-writable /tmp. */
  scratchRoot: string;
  /** Gives the result to the session's main agent as a turn (queued when it is busy); throws when it cannot take it now. */
  deliver(sessionId: string, text: string): void;
  /** Saves a note in the session that starts no run (the result of a worker whose own CLI could not run: setup-failure.ts). */
  note(sessionId: string, content: string, meta: Record<string, unknown>): void;
  /** Why a provider cannot run for want of a login, when svc knows (the runtime's too): the worker fails at once as `auth`. */
  missingLogin?(provider: ProviderId): Promise<string | undefined> | undefined;
  /** How long a worker's CLI may only wait for the network (default NETWORK_WAIT_MS in agent/attempt.ts). */
  networkWaitMs?: number;
  /** What memory holds for a task (the profile and the relevant procedures), added to the worker's instructions. */
  memoryContext?(task: string): Promise<string>;
  killGraceMs?: number;
  /** Every dispatch is a security audit entry (a worker is a provider CLI run with its own permissions). */
  audit?: AuditSink;
  /** Isolated workers' git worktrees. */
  worktrees: WorktreeService;
}

/** What a dispatch resolved: who works, the verdict read from it, and where it writes. */
interface Prepared {
  employee: Employee;
  verdict?: VerdictKind;
  isolation: Isolation;
}

interface Live {
  attempt?: Attempt;
  output: string;
  steps: { stepId: string; name: string; status: 'running' | 'ok' | 'error' }[];
  lastActivityAt: number;
  lastPersistAt: number;
  stallTimer?: NodeJS.Timeout;
  stalled: boolean;
  /** Why it is being ended by svc (cancel, stall policy). */
  endReason?: { status: WorkerRunStatus; reason: string };
  scopeBefore?: Set<string>;
  /** Where its CLI runs: the working directory, or its worktree. */
  cwd: string;
}

/** Whose the run's agent:provider-e:* events are. */
const providerWho = (run: StoredRun): ProviderEWho => ({ runId: run.runId, sessionId: run.sessionId, employeeId: run.employeeId, provider: run.employee.provider });

/** A dispatch as the audit log keeps it: who works, with which provider and rights, on which phase (not the task text). */
function dispatched(runId: string, employee: Employee, body: { phase?: string }) {
  return { runId, employee: employee.id, provider: employee.provider, capability: employee.capability, ...(body.phase ? { phase: body.phase } : {}) };
}

export class WorkerService {
  private readonly live = new Map<string, Live>();
  private readonly waiters = new Map<string, ((run: StoredRun) => void)[]>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly deps: WorkerDeps) {}

  // ── dispatch ───────────────────────────────────────────────────────────────────────────

  /** Queues one run (and starts it when a slot is free). */
  dispatch(acting: Acting, body: Omit<DispatchBody, 'wait' | 'sessionId'>): StoredRun {
    const prepared = this.prepare(body, this.deps.orchestration.state(acting.sessionId).phase);
    const runId = this.insert(acting.sessionId, prepared, body);
    this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.dispatch', target: acting.sessionId, outcome: 'ok', details: dispatched(runId, prepared.employee, body) });
    this.pump();
    return this.deps.repo.get(runId)!;
  }

  /** Validates every entry first, then queues them all; overlapping affectedFiles run in order. */
  dispatchBatch(acting: Acting, entries: BatchEntry[]): Batch {
    const phase = this.deps.orchestration.state(acting.sessionId).phase;
    const prepared = entries.map((entry, index) => {
      try {
        return this.prepare(entry, phase);
      } catch (err) {
        if (err instanceof AppError) throw new AppError(err.status, err.code, `runs[${index}]: ${err.message}`, { ...err.details, index });
        throw err;
      }
    });
    const batchId = newId('wb');
    const runIds = this.deps.db.transaction(() => prepared.map((p, index) => this.insert(acting.sessionId, p, entries[index]!, { batchId, batchIndex: index })))();
    this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.dispatch', target: acting.sessionId, outcome: 'ok', details: { batchId, runs: runIds.map((runId, i) => dispatched(runId, prepared[i]!.employee, entries[i]!)) } });
    this.pump();
    return this.batch(batchId)!;
  }

  /** Resolves when the run ends (or at `timeoutMs`, with the run as it is then). */
  wait(runId: string, timeoutMs: number): Promise<StoredRun> {
    const run = this.deps.repo.get(runId);
    if (!run || TERMINAL_STATUSES.includes(run.status)) return Promise.resolve(run!);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(this.deps.repo.get(runId)!), timeoutMs);
      const done = (value: StoredRun) => {
        clearTimeout(timer);
        resolve(value);
      };
      this.waiters.set(runId, [...(this.waiters.get(runId) ?? []), done]);
    });
  }

  private prepare(body: Omit<DispatchBody, 'wait' | 'sessionId'>, sessionPhase: Phase): Prepared {
    const base: Employee = body.employee
      ? this.deps.employees.require(body.employee)
      : { id: 'virtual', preset: false, ...body.virtual!, name: body.virtual!.name ?? 'virtual worker' };
    const provider = (base.provider || this.deps.sources.settings().provider) as ProviderId;
    if (!(PROVIDER_IDS as readonly string[]).includes(provider)) {
      throw badRequest('UNKNOWN_PROVIDER', `Employee '${base.id}' names provider '${provider}'; use one of ${PROVIDER_IDS.join(', ')}.`);
    }
    if (base.capability === 'read-only' && !READ_ONLY_PROVIDERS.includes(provider)) {
      throw badRequest('READ_ONLY_UNSUPPORTED', `${provider} cannot be held to read-only by svc; give this worker one of ${READ_ONLY_PROVIDERS.join(', ')}, or make it mutable.`);
    }
    const verdict = body.verdict ?? base.verdict ?? (body.phase === 'A' ? 'audit' : undefined);
    return { employee: { ...base, provider }, ...(verdict ? { verdict } : {}), isolation: this.isolationOf(base, body, sessionPhase) };
  }

  /**
   * Where a mutable worker writes: as asked (the dispatch, else its employee); unasked, in a worktree
   * when it builds (phase B), where parallel writers would otherwise step on each other, and the
   * working directory is a git repository. A read-only worker writes nothing and needs none.
   */
  private isolationOf(employee: Pick<Employee, 'capability' | 'isolation'>, body: { isolation?: Isolation; phase?: Phase }, sessionPhase: Phase): Isolation {
    if (employee.capability !== 'mutable') return 'none';
    const asked = body.isolation ?? employee.isolation;
    if (asked === 'worktree') requireRepository(this.deps.cwd());
    if (asked) return asked;
    return (body.phase ?? sessionPhase) === 'B' && repositoryOf(this.deps.cwd()) ? 'worktree' : 'none';
  }

  private insert(sessionId: string, prepared: Prepared, body: Omit<DispatchBody, 'wait' | 'sessionId'>, batch?: { batchId: string; batchIndex: number }, followUp?: { worktreeId: string; reviewOf: string }): string {
    const runId = newId('tr', 12);
    const state = this.deps.orchestration.state(sessionId);
    const employee = prepared.verdict ? { ...prepared.employee, verdict: prepared.verdict } : prepared.employee;
    this.deps.repo.insert({
      runId,
      sessionId,
      employee,
      task: body.task,
      phase: body.phase,
      ...batch,
      affectedFiles: body.affectedFiles,
      planVersion: state.plan?.version,
      round: state.round,
      isolation: prepared.isolation,
      ...followUp,
      createdAt: Date.now(),
    });
    this.publishRun(runId, batch ? { batchId: batch.batchId } : {});
    return runId;
  }

  // ── the queue ──────────────────────────────────────────────────────────────────────────

  private pump(): void {
    if (this.closed) return;
    const limit = this.deps.settings().concurrency;
    for (const run of this.deps.repo.queued()) {
      if (this.live.size >= limit) return;
      if (run.batchId && !mayStart(run, this.deps.repo.list({ batchId: run.batchId, limit: 20 }))) continue;
      const task = this.start(run).finally(() => {
        this.running.delete(task);
        this.pump();
      });
      this.running.add(task);
    }
  }

  private async start(run: StoredRun): Promise<void> {
    const { deps } = this;
    const now = Date.now();
    const live: Live = { output: '', steps: [], lastActivityAt: now, lastPersistAt: now, stalled: false, cwd: deps.cwd() };
    this.live.set(run.runId, live);
    deps.repo.started(run.runId, now);
    deps.recorder.begin(run.runId);
    const employee = run.employee;
    const readOnly = employee.capability === 'read-only';
    let worktree: Worktree | undefined;
    if (run.isolation === 'worktree') {
      try {
        worktree = await this.worktreeOf(run);
      } catch (err) {
        live.endReason = { status: 'failed', reason: `setup: its git worktree could not be made: ${(err as Error).message}` };
        this.publishRun(run.runId);
        return this.end(run, live, { status: 'stopped', text: '', reason: live.endReason.reason });
      }
    }
    this.publishRun(run.runId);
    const cwd = worktree ? deps.worktrees.workdir(worktree) : deps.cwd();
    live.cwd = cwd;
    if (!readOnly && employee.scope?.length) live.scopeBefore = changedFiles(cwd);
    const settings = deps.settings();
    const provider = employee.provider as ProviderId;
    const plan = run.planVersion !== undefined ? deps.orchestration.state(run.sessionId).plan : null;
    // memory never blocks a worker: without an answer it starts with its own instructions only
    const memory = await deps.memoryContext?.(run.task).catch(() => '');
    const instructions = [employee.instructions, memory].filter(Boolean).join('\n\n');
    // the CLI's events as the employee's own (agent:provider-e:*), beside the agent_tool steps the chat shows
    const who = providerWho(run);
    const asProviderE = providerEvents(who);
    this.publishProviderE(providerStatus(who, 'running'));
    const attempt = new Attempt(
      {
        adapter: adapterOf(provider),
        request: runRequest(
          {
            kind: 'worker',
            provider,
            prompt: workerPrompt({ task: run.task, plan: plan?.version === run.planVersion ? plan : null, verdict: employee.verdict, readOnly, scope: employee.scope, ...(worktree ? { worktree } : {}) }),
            cwd,
            model: employee.model,
            systemPrompt: instructions,
            readOnly,
          },
          deps.sources,
        ),
        // A worker gets a credential the server never issued: the svc CLI sends it, and a request that
        // carries one is an agent's without a run, which may neither dispatch nor move phases.
        env: { ...deps.env(), [RUN_TOKEN_ENV]: `svcworker_${randomBytes(18).toString('base64url')}` },
        pidDir: deps.pidDir,
        scratchRoot: deps.scratchRoot,
        idleTimeoutMs: settings.workerTimeoutSec * 1000 + 1000,
        maxRunMs: settings.workerTimeoutSec * 1000,
        killGraceMs: deps.killGraceMs,
        networkWaitMs: deps.networkWaitMs,
        ...(deps.missingLogin ? { missingLogin: () => deps.missingLogin!(provider) } : {}),
      },
      {
        onEvent: (event) => {
          this.activity(run, live);
          const providerE = asProviderE(event, live.output.length);
          if (providerE) this.publishProviderE(providerE);
          if (event.kind === 'text_delta') live.output += event.text;
          else if (event.kind === 'step_start') {
            live.steps.push({ stepId: event.stepId, name: event.name, status: 'running' });
            deps.bus.publish('agent_tool', { traceId: run.runId, workerRunId: run.runId, stepId: event.stepId, name: event.name, step: event.step, status: 'running', input: {} });
          } else if (event.kind === 'step_end') {
            const step = live.steps.find((s) => s.stepId === event.stepId);
            if (step) step.status = event.ok ? 'ok' : 'error';
            const output = event.output === undefined ? undefined : clip(event.output);
            deps.bus.publish('agent_tool', { traceId: run.runId, workerRunId: run.runId, stepId: event.stepId, name: event.name, step: 'tool', status: event.ok ? 'ok' : 'error', input: {}, ...(output !== undefined ? { output } : {}) });
          }
        },
        onRawLine: (stream, line) => {
          this.activity(run, live);
          deps.bus.publish('provider_line', { traceId: run.runId, stream, line });
        },
        onExit: (exit) => deps.bus.publish('provider_exit', { traceId: run.runId, ...exit }),
      },
    );
    live.attempt = attempt;
    this.armStall(run, live);
    if (live.endReason) attempt.stop(live.endReason.reason);
    const outcome = await attempt.done;
    clearTimeout(live.stallTimer);
    await this.end(run, live, outcome);
  }

  /** A `worker_run` update: the run's state as stored, with where it writes and what became of its worktree. */
  private publishRun(runId: string, extra: { reason?: string; verdict?: string; batchId?: string } = {}): void {
    const run = this.deps.repo.get(runId);
    if (!run) return;
    this.deps.bus.publish('worker_run', {
      runId,
      sessionId: run.sessionId,
      status: run.status,
      employeeId: run.employeeId,
      isolation: run.isolation,
      ...(run.worktree ? { branch: run.worktree.branch, mergeState: run.worktree.state } : {}),
      ...(run.reviewOf ? { reviewOf: run.reviewOf } : {}),
      ...extra,
    });
  }

  // ── worktrees ──────────────────────────────────────────────────────────────────────────

  /** A follow-up works in its first run's worktree; any other isolated run gets one of its own now. */
  private async worktreeOf(run: StoredRun): Promise<Worktree> {
    const { worktrees } = this.deps;
    if (run.worktreeId) {
      const shared = worktrees.get(run.worktreeId);
      if (shared?.state !== 'open') throw new Error(`the worktree of ${run.worktreeId} was ${shared?.state ?? 'never made'}`);
      return shared;
    }
    const made = await worktrees.create(run.runId, run.sessionId, this.deps.cwd());
    this.deps.repo.setWorktree(run.runId, made.id);
    return made;
  }

  /** Commits what a run left in its worktree on the worktree's branch, so its diff is whole once it ended. */
  private async commitWorktree(runId: string): Promise<void> {
    const run = this.deps.repo.get(runId);
    const worktree = run?.worktreeId ? this.deps.worktrees.get(run.worktreeId) : undefined;
    if (!run || worktree?.state !== 'open') return;
    await this.deps.worktrees.commit(worktree, `svc: worker run ${run.runId} (${run.employee.id})`).catch((err: Error) => {
      this.deps.bus.publish('orchestrate_warning', { sessionId: run.sessionId, runId, message: `The changes of worker run ${runId} could not be committed in its worktree: ${err.message}` });
    });
  }

  /** The run's open worktree, once no run in it is still going. */
  private settledWorktree(runId: string): { run: StoredRun; worktree: Worktree } {
    const run = this.deps.repo.get(runId);
    if (!run) throw new AppError(404, 'NOT_FOUND', `Worker run '${runId}' not found.`);
    const worktree = run.worktreeId ? this.deps.worktrees.get(run.worktreeId) : undefined;
    if (!worktree) throw conflict('NO_WORKTREE', `Worker run ${runId} has no worktree: it ran with isolation "${run.isolation}".`, { isolation: run.isolation });
    const going = this.deps.repo.inWorktree(worktree.id).find((r) => !TERMINAL_STATUSES.includes(r.status));
    if (going) throw conflict('WORKTREE_BUSY', `Worker run ${going.runId} is still ${going.status} in this worktree: wait for it to end, or cancel it.`, { runId: going.runId, status: going.status });
    return { run, worktree };
  }

  /** The diff of the run's worktree branch against where it started. */
  async diff(runId: string) {
    const { worktree } = this.settledWorktree(runId);
    return { worktree, ...(await this.deps.worktrees.diff(worktree)) };
  }

  /** Lands the run's worktree on the user's current branch (one commit naming it); audited either way. */
  async merge(acting: Pick<Acting, 'actor' | 'runId'>, runId: string) {
    const { run, worktree } = this.settledWorktree(runId);
    const target = { runId, branch: worktree.branch };
    try {
      const merged = await this.deps.worktrees.merge(worktree, mergeMessage(this.deps.repo.inWorktree(worktree.id).at(-1) ?? run));
      this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.merge', target: runId, outcome: 'ok', details: { ...target, commit: merged.commit, files: merged.files.length } });
      this.publishWorktree(worktree.id);
      return { runId, merged: true as const, commit: merged.commit, branch: worktree.branch, files: merged.files };
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'GIT_FAILED';
      this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.merge', target: runId, outcome: code === 'MERGE_CONFLICT' ? 'refused' : 'failed', details: { ...target, error: code } });
      throw err;
    }
  }

  /** Removes the run's worktree and its branch, whatever they hold; audited. */
  async discard(acting: Pick<Acting, 'actor' | 'runId'>, runId: string): Promise<void> {
    const { worktree } = this.settledWorktree(runId);
    await this.deps.worktrees.discard(worktree);
    this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.discard', target: runId, outcome: 'ok', details: { runId, branch: worktree.branch } });
    this.publishWorktree(worktree.id);
  }

  /** Changes requested: a follow-up run of the same employee in the same worktree, told the comments. */
  requestChanges(acting: Pick<Acting, 'actor' | 'runId'>, runId: string, comments: ReviewComment[]): StoredRun {
    const { run, worktree } = this.settledWorktree(runId);
    if (!comments.length) throw badRequest('VALIDATION_FAILED', 'Changes requested without a comment: say what to change (comments: [{path, line?, body}]).');
    const followUp = this.insert(run.sessionId, { employee: run.employee, isolation: 'worktree' }, { employee: run.employeeId, task: followUpTask(run, comments), ...(run.phase ? { phase: run.phase } : {}) }, undefined, { worktreeId: worktree.id, reviewOf: runId });
    this.deps.audit?.record({ actor: auditActor(acting), action: 'orchestrate.review', target: runId, outcome: 'ok', details: { runId, decision: 'changes_requested', comments: comments.length, followUp } });
    this.pump();
    return this.deps.repo.get(followUp)!;
  }

  /** Every run that worked in the worktree hears what became of it. */
  private publishWorktree(worktreeId: string): void {
    for (const run of this.deps.repo.inWorktree(worktreeId)) this.publishRun(run.runId);
  }

  /** The worktrees still open, and whether each is orphaned (its last run did not end on its own, or its directory is gone). */
  openWorktrees() {
    return this.deps.worktrees.open().map((w) => {
      const last = this.deps.repo.inWorktree(w.id).at(-1);
      return { runId: w.id, sessionId: w.sessionId, branch: w.branch, path: w.path, state: w.state, orphaned: !last || last.status === 'orphaned' || !existsSync(w.path), createdAt: w.createdAt };
    });
  }

  private publishProviderE(e: ProviderEEvent): void {
    this.deps.bus.publish(e.name, e.payload);
  }

  private activity(run: StoredRun, live: Live): void {
    const now = Date.now();
    live.lastActivityAt = now;
    live.stalled = false;
    this.armStall(run, live);
    if (now - live.lastPersistAt >= PERSIST_EVERY_MS) {
      live.lastPersistAt = now;
      this.deps.repo.progress(run.runId, { steps: live.steps, output: live.output, lastActivityAt: now });
    }
  }

  private armStall(run: StoredRun, live: Live): void {
    clearTimeout(live.stallTimer);
    const { stallSec, stallAction } = this.deps.settings();
    live.stallTimer = setTimeout(() => {
      if (live.stalled) return;
      live.stalled = true; // once per quiet spell: output clears it
      const reason = `no output for ${stallSec} s (setting orchestration.stallSec)`;
      this.deps.bus.publish('worker_stalled', { runId: run.runId, sessionId: run.sessionId, reason, action: stallAction });
      if (stallAction === 'kill') {
        live.endReason ??= { status: 'failed', reason: `stalled: ${reason}` };
        live.attempt?.stop(live.endReason.reason);
      }
    }, stallSec * 1000);
    live.stallTimer.unref();
  }

  private async end(run: StoredRun, live: Live, outcome: AttemptOutcome): Promise<void> {
    const { deps } = this;
    const settings = deps.settings();
    let status: WorkerRunStatus;
    let reason: string;
    if (live.endReason) ({ status, reason } = live.endReason);
    else if (outcome.status === 'ok') [status, reason] = ['succeeded', 'the CLI finished'];
    else if (outcome.status === 'stopped') [status, reason] = ['cancelled', outcome.reason];
    else if (outcome.failure === 'timeout') [status, reason] = ['timeout', `ran longer than ${settings.workerTimeoutSec} s (setting orchestration.workerTimeoutSec)`];
    // `<failure class>: <message>`: delivery reads the class back (setup-failure.ts)
    else [status, reason] = ['failed', `${outcome.failure}: ${outcome.message}`];
    const text = outcome.text || live.output;
    const verdict = this.recordVerdict(run, status === 'succeeded', text, reason);
    let scopeViolations: string[] | undefined;
    if (live.scopeBefore && run.employee.scope?.length) {
      const after = changedFiles(live.cwd);
      scopeViolations = after ? outsideScope(live.scopeBefore, after, run.employee.scope) : undefined;
      if (scopeViolations?.length) {
        deps.bus.publish('orchestrate_warning', { sessionId: run.sessionId, runId: run.runId, message: `Worker ${run.employee.id} changed files outside its scope: ${scopeViolations.join(', ')}`, scopeViolations });
      }
    }
    await this.commitWorktree(run.runId);
    deps.repo.progress(run.runId, { steps: live.steps, output: text, lastActivityAt: live.lastActivityAt });
    deps.repo.end(run.runId, { status, reason, verdict, scopeViolations, at: Date.now() });
    this.live.delete(run.runId);
    await deps.recorder.end(run.runId);
    if (status === 'timeout') deps.bus.publish('worker_timeout', { runId: run.runId, sessionId: run.sessionId, reason });
    // the process died on its own (not stopped, not timed out): disconnected
    else if (status === 'failed' && !live.endReason && outcome.status === 'error' && outcome.failure === 'crash') deps.bus.publish('worker_disconnected', { runId: run.runId, sessionId: run.sessionId, reason });
    this.publishProviderE(providerStatus(providerWho(run), status, reason));
    this.publishRun(run.runId, { reason, ...(verdict ? { verdict } : {}) });
    // a server going down delivers nothing (the runtime is stopping too): the next start does
    if (!this.closed) this.deliver(run.runId);
    const ended = deps.repo.get(run.runId)!;
    for (const wake of this.waiters.get(run.runId) ?? []) wake(ended);
    this.waiters.delete(run.runId);
    if (run.batchId) this.batchEnded(run.batchId);
  }

  /** Reads the run's structured verdict and records it for its gate; returns it ('invalid' for a schema error). */
  private recordVerdict(run: StoredRun, succeeded: boolean, text: string, reason: string): string | undefined {
    const kind = run.employee.verdict;
    if (!kind) return undefined;
    const parsed = succeeded ? (kind === 'audit' ? parseAudit(text) : parseVerification(text)) : { ok: false as const, error: `the run did not succeed (${reason})` };
    const recordedAt = Date.now();
    const failing = kind === 'audit' ? 'fail' : 'not_done';
    const verdict = parsed.ok ? parsed.value.verdict : failing;
    const findings = parsed.ok ? parsed.value.findings : [];
    const error = parsed.ok ? undefined : parsed.error;
    try {
      if (kind === 'audit') {
        this.deps.orchestration.recordAudit(run.sessionId, { verdict: verdict as 'pass' | 'fail', findings, runId: run.runId, planVersion: run.planVersion ?? 0, ...(error ? { error } : {}), recordedAt });
      } else {
        this.deps.orchestration.recordVerification(run.sessionId, { verdict: verdict as 'done' | 'not_done', findings, runId: run.runId, round: run.round ?? 0, ...(error ? { error } : {}), recordedAt });
      }
    } catch (err) {
      this.deps.bus.publish('orchestrate_warning', { sessionId: run.sessionId, runId: run.runId, message: `The ${kind} verdict could not be recorded: ${(err as Error).message}` });
    }
    if (error) this.deps.bus.publish('orchestrate_warning', { sessionId: run.sessionId, runId: run.runId, message: `Worker ${run.employee.id}: ${error}; the ${kind} counts as ${failing}.` });
    return parsed.ok ? verdict : 'invalid';
  }

  /**
   * Delivers an ended run's result to its session once: the claim and the saved turn commit together. A
   * run whose own CLI could not run (not installed, not logged in) has no result for the agent: the
   * session gets a note for the person instead, and no run starts (setup-failure.ts says why).
   */
  private deliver(runId: string): void {
    const run = this.deps.repo.get(runId);
    if (!run) return;
    const setup = setupFailureOf(run);
    try {
      const delivered = this.deps.db.transaction(() => {
        if (!this.deps.repo.claimDelivery(runId, Date.now())) return false;
        if (setup) {
          const note = setupNote(run, setup);
          this.deps.note(run.sessionId, note.content, { kind: 'worker_result', runId, employeeId: run.employeeId, status: run.status, failure: setup.failure, ...(note.fix ? { fix: note.fix } : {}) });
        } else this.deps.deliver(run.sessionId, resultMessage(run));
        return true;
      })();
      if (delivered) this.deps.bus.publish('orchestrate_done', { kind: 'worker_result', sessionId: run.sessionId, runId, status: run.status, ...(run.verdict ? { verdict: run.verdict } : {}), ...(setup ? { noted: true } : {}) });
    } catch (err) {
      // not claimed: the next start delivers it
      this.deps.bus.publish('orchestrate_warning', { sessionId: run.sessionId, runId, message: `The result of worker run ${runId} could not be delivered yet (${(err as Error).message}); it will be at the next start.` });
    }
  }

  private batchEnded(batchId: string): void {
    const batch = this.batch(batchId);
    if (batch?.status === 'done') this.deps.bus.publish('orchestrate_done', { kind: 'batch', sessionId: batch.sessionId, batchId, verdict: batch.verdict });
  }

  // ── reading and cancelling ─────────────────────────────────────────────────────────────

  get(runId: string): StoredRun | undefined {
    const run = this.deps.repo.get(runId);
    const live = this.live.get(runId);
    return run && live ? { ...run, steps: live.steps, output: live.output, outputChars: live.output.length, lastActivityAt: live.lastActivityAt } : run;
  }

  list(filter: { sessionId?: string; status?: WorkerRunStatus; employeeId?: string; limit: number }) {
    return this.deps.repo.list(filter).map((r) => publicRun(this.get(r.runId) ?? r));
  }

  batch(batchId: string): Batch | undefined {
    const runs = this.deps.repo.list({ batchId, limit: 20 }).sort((a, b) => (a.batchIndex ?? 0) - (b.batchIndex ?? 0));
    if (!runs.length) return undefined;
    const done = runs.every((r) => TERMINAL_STATUSES.includes(r.status));
    return { batchId, sessionId: runs[0]!.sessionId, status: done ? 'done' : 'running', verdict: done ? aggregateVerdict(runs) : 'none', runs: runs.map((r) => publicRun(this.get(r.runId) ?? r)) };
  }

  cancel(runId: string, reason: string): StoredRun {
    const run = this.deps.repo.get(runId);
    if (!run) throw new AppError(404, 'NOT_FOUND', `Worker run '${runId}' not found.`);
    if (TERMINAL_STATUSES.includes(run.status)) throw conflict('WORKER_RUN_ENDED', `Worker run '${runId}' already ended (${run.status}).`, { status: run.status });
    const live = this.live.get(runId);
    if (live) {
      live.endReason ??= { status: 'cancelled', reason };
      live.attempt?.stop(reason);
    } else if (this.deps.repo.end(runId, { status: 'cancelled', reason, at: Date.now() })) {
      this.publishRun(runId, { reason });
      this.deliver(runId);
      if (run.batchId) this.batchEnded(run.batchId);
      this.pump();
    }
    return this.deps.repo.get(runId)!;
  }

  /** Cancels every queued and running run of a session (its orchestration was reset). */
  cancelSession(sessionId: string, reason: string): void {
    for (const status of ['queued', 'running'] as const) {
      for (const run of this.deps.repo.list({ sessionId, status, limit: 1000 })) this.cancel(run.runId, reason);
    }
  }

  // ── start and stop ─────────────────────────────────────────────────────────────────────

  /**
   * After a restart: runs that were running died with the old server (their processes were reaped
   * from the pid files) and end as orphaned; ended results not yet delivered are delivered; the
   * queue resumes.
   */
  recover(): void {
    void this.deps.worktrees.recover();
    for (const runId of this.deps.repo.markOrphaned(Date.now())) {
      const run = this.deps.repo.get(runId)!;
      this.deps.bus.publish('worker_disconnected', { runId, sessionId: run.sessionId, reason: run.reason ?? 'orphaned' });
      this.publishRun(runId, { reason: run.reason });
    }
    for (const run of this.deps.repo.undelivered()) this.deliver(run.runId);
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const live of this.live.values()) {
      live.endReason ??= { status: 'cancelled', reason: 'the server shut down' };
      live.attempt?.stop(live.endReason.reason);
    }
    await Promise.all(this.running);
  }
}

/** The turn the main agent receives when a worker run ends. */
export function resultMessage(run: StoredRun): string {
  const head = `[worker result] Run ${run.runId} of ${run.employee.id} (${run.employee.name}) ended: ${run.status}${run.reason ? ` (${run.reason})` : ''}${run.verdict ? `; verdict ${run.verdict}` : ''}.`;
  const output = run.output.length > DELIVERED_OUTPUT_CHARS ? `…${run.output.slice(-DELIVERED_OUTPUT_CHARS)}` : run.output;
  const more = run.output.length > DELIVERED_OUTPUT_CHARS ? `\n\nThe whole output: svc worker output ${run.runId}` : '';
  return `${head}\n\nTask: ${run.task.slice(0, 500)}\n\nOutput:\n${output || '(none)'}${more}`;
}
