// The agent runtime: one active run at a time, a queue behind it, stop and steer, retry and the
// provider fallback chain. It publishes every step on the bus (which feeds SSE and trace files)
// and writes the same steps to the NDJSON streams of the requests waiting on the run.
import type { EventBus } from '../events/bus.ts';
import { AppError, conflict } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { MessageRole } from '../protocol/chat.ts';
import type { EventName, EventPayload } from '../protocol/events.ts';
import { streamLineOf, type RunSink, type StreamLine } from '../protocol/stream-lines.ts';
import { stepSummary, type RunRecordMeta, type RuntimeStatus } from '../protocol/runs.ts';
import type { FailureClass, NormalizedEvent, PermissionAnswer, StepKind } from './providers/types.ts';
import { adapterOf, providerInfo, type ProviderId } from './providers/registry.ts';
import type { ProviderSessionRepo, RunRepo } from './runs.repo.ts';
import { Attempt, type AttemptOutcome } from './attempt.ts';
import { describeFailure } from './failures.ts';
import type { TraceRecorder } from './traces.ts';
import { clip, boundInput, ToolLog } from './tool-log.ts';
import { RUN_TOKEN_ENV, type RunCredentials } from './run-credentials.ts';
import { countQueue } from './queue-count.ts';
import { runRequest, type RunSources } from './run-request.ts';
import { ENDPOINT_PROVIDERS, endpointModel } from '../protocol/models-text.ts';

/** Failures worth trying again with the same provider after a pause. */
const RETRYABLE: ReadonlySet<FailureClass> = new Set(['rate_limit', 'overloaded', 'server_error', 'crash', 'unknown']);
export const MAX_QUEUE = 100;

/** Where the runtime keeps the conversation: the chat module, seen through the two calls runs need. */
export interface Transcript {
  /** Saves a message and publishes it (the `message` event). */
  saveMessage(input: { sessionId: string; role: MessageRole; content: string; meta?: Record<string, unknown> }): { id: number };
  /** A queued message whose turn has come moves behind the answers saved while it waited. */
  moveToEnd(id: number): void;
}

/** The settings, the executable, the MCP servers and the skills of a run are its RunSources (run-request.ts). */
export interface RuntimeDeps extends RunSources {
  bus: EventBus;
  transcript: Transcript;
  providerSessions: ProviderSessionRepo;
  runs: RunRepo;
  recorder: TraceRecorder;
  pidDir: string;
  /** Parent of each run's private directory (see AttemptOptions.scratchRoot). */
  scratchRoot?: string;
  cwd: string;
  /** The system prompt of a run for this prompt in this chat session (the user's setting, the skills' instructions, what memory knows of it, the orchestration phase). */
  systemPrompt(prompt: string, sessionId: string): string | Promise<string>;
  /** Environment of provider CLIs before the adapter's own variables. */
  baseEnv(): NodeJS.ProcessEnv;
  /** Where each run's credential is issued (absent: runs get none). */
  credentials?: RunCredentials;
  /** Told how each provider attempt chain ended (the quota reader learns rate limits from this). */
  onProviderOutcome?(provider: ProviderId, outcome: { ok: true } | { ok: false; failure: FailureClass; message: string }): void;
  /** Told when a run has ended and its answer is saved (goals schedule their next turn from this). */
  onRunEnd?(end: RunEnd): void;
  /** Told when queued messages are dropped before they ran (by stop, or taken out of the queue). */
  onDropped?(requestIds: readonly string[]): void;
  /**
   * Why a provider cannot run for want of a login, when svc knows (CliDetector.missingLogin): its
   * attempt then fails at once as `auth`, without starting the CLI, and the fallback chain goes on.
   */
  missingLogin?(provider: ProviderId): Promise<string | undefined> | undefined;
  /**
   * Who answers a CLI's tool permission requests when auto-approve is off (the permissions module):
   * absent, nobody can, and the CLIs keep their own rules.
   */
  permissions?: {
    ask(context: { sessionId: string; runId: string; provider: string }, call: { tool: string; input: Record<string, unknown>; description?: string }): Promise<PermissionAnswer>;
  };
  /** The chat session the chat shows: the queue count of `queue_update` is its own (absent: every waiting message). */
  activeSession?(): string;
  retryBaseMs?: number;
  killGraceMs?: number;
  /** How long a CLI may only wait for the network (default NETWORK_WAIT_MS in attempt.ts). */
  networkWaitMs?: number;
}

/** How a run ended, for the parts that act between turns. */
export interface RunEnd {
  requestId: string;
  sessionId: string;
  traceId: string;
  status: 'ok' | 'error' | 'stopped';
  durationMs: number;
}

interface Submission {
  requestId: string;
  /** The saved user message (none for a steer's resumed run: its prompt is saved by steer). */
  messageId?: number;
  sessionId: string;
  prompt: string;
  provider?: ProviderId;
  /** This run's model and working directory, instead of the settings' (work from a fleet's queue). */
  model?: string;
  workingDir?: string;
  sinks: Set<RunSink>;
}

interface ActiveRun {
  submission: Submission;
  traceId: string;
  provider: ProviderId;
  /** The model asked for ('' or absent: the CLI's default). */
  model?: string;
  startedAt: number;
  attempt?: Attempt;
  stopReason?: string;
  /** Its chat session was cleared or deleted: the answer has nowhere to go and is not saved. */
  discardAnswer?: boolean;
  wake?: () => void;
  toolLog: ToolLog;
  /** Every text chunk streamed so far, across attempts (what `agent_output` offsets index into). */
  output: string;
  usage: Record<string, number>;
  thinkingCount: number;
  stepKinds: Map<string, StepKind>;
  /** Made once per run (retries and fallbacks reuse it). */
  systemPrompt?: string;
  /** The run's credential (SVC_RUN_TOKEN), valid while the run lives. */
  credential?: string;
}

export class AgentRuntime {
  private readonly queue: Submission[] = [];
  private active?: ActiveRun;
  private current: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly deps: RuntimeDeps) {}

  status(): RuntimeStatus {
    const run = this.active;
    return {
      busy: Boolean(run),
      ...this.queueCount(),
      ...(run
        ? {
            active: {
              traceId: run.traceId,
              provider: run.provider,
              sessionId: run.submission.sessionId,
              requestId: run.submission.requestId,
              startedAt: run.startedAt,
              output: run.output,
              steps: run.toolLog.toJSON(),
            },
          }
        : {}),
    };
  }

  /**
   * Throws when a message cannot be taken now (the queue is full, the server is closing). Callers
   * that answer with a stream check this before opening it, so the refusal is a plain error answer.
   */
  admit(): void {
    if (this.closed) throw new AppError(503, 'SHUTTING_DOWN', 'The server is shutting down.');
    if (this.queue.length >= MAX_QUEUE) throw new AppError(429, 'QUEUE_FULL', `${MAX_QUEUE} messages are already waiting; stop or wait for the agent.`);
  }

  /** Saves the user's message and runs it now, or queues it behind the active run. */
  submit(input: { prompt: string; sessionId: string; provider?: ProviderId; model?: string; workingDir?: string; sink?: RunSink; meta?: Record<string, unknown>; requestId?: string }): { requestId: string; queued: boolean } {
    this.admit();
    const requestId = input.requestId ?? newId('req');
    const queued = Boolean(this.active) || this.queue.length > 0;
    const saved = this.deps.transcript.saveMessage({ sessionId: input.sessionId, role: 'user', content: input.prompt, meta: { ...input.meta, requestId } });
    this.deps.bus.publish('new_message', { role: 'user', content: input.prompt, sessionId: input.sessionId, queued, requestId });
    const { model, workingDir } = input;
    this.queue.push({ requestId, messageId: saved.id, sessionId: input.sessionId, prompt: input.prompt, provider: input.provider, ...(model ? { model } : {}), ...(workingDir ? { workingDir } : {}), sinks: new Set(input.sink ? [input.sink] : []) });
    this.publishQueue();
    this.pump();
    return { requestId, queued };
  }

  /** Stops the active run (its whole process tree) and drops the queued messages. */
  stop(reason = 'stopped by user', discardedSession?: string): { stopped: boolean; cleared: number } {
    const cleared = this.queue.splice(0);
    if (cleared.length) this.deps.onDropped?.(cleared.map((submission) => submission.requestId));
    const unsent = new Map<string, number>();
    for (const submission of cleared) {
      this.finishSinks(submission.sinks, { type: 'done', status: 'stopped', text: '', reason: 'removed from the queue by stop' });
      if (submission.messageId !== undefined) unsent.set(submission.sessionId, (unsent.get(submission.sessionId) ?? 0) + 1);
    }
    // The messages stay in the history where they were sent; a note says they were never answered.
    for (const [sessionId, count] of unsent) {
      if (sessionId === discardedSession) continue;
      const what = count === 1 ? 'A queued message was' : `${count} queued messages were`;
      this.deps.transcript.saveMessage({ sessionId, role: 'system', content: `${what} not sent to the agent: ${reason}.`, meta: { kind: 'queue_dropped', count } });
    }
    const run = this.active;
    if (run) {
      run.stopReason ??= reason;
      run.attempt?.stop(reason);
      run.wake?.();
    }
    this.publishQueue();
    return { stopped: Boolean(run), cleared: cleared.length };
  }

  /**
   * Redirects the running agent. Where the CLI accepts input mid-run (Claude Code's stream-json
   * stdin) the prompt is written to it live; otherwise the run is interrupted and the same provider
   * session is resumed with the steer prompt. `sink` receives the rest of the steered run.
   */
  steer(prompt: string, sink?: RunSink): 'live' | 'resumed' {
    const run = this.active;
    if (!run || run.stopReason) throw conflict('NOT_RUNNING', 'Nothing is running to steer; send the text as a message instead.');
    const { sessionId } = run.submission;
    this.deps.transcript.saveMessage({ sessionId, role: 'user', content: prompt, meta: { steer: true, traceId: run.traceId } });
    this.deps.bus.publish('steer_started', { prompt, traceId: run.traceId });
    if (run.attempt?.steer(prompt) === 'delivered') {
      if (sink) run.submission.sinks.add(sink);
      return 'live';
    }
    run.stopReason = 'steered';
    run.attempt?.stop('steered');
    run.wake?.();
    const { model, workingDir } = run.submission;
    this.queue.unshift({ requestId: newId('req'), sessionId, prompt, provider: run.provider, ...(model ? { model } : {}), ...(workingDir ? { workingDir } : {}), sinks: new Set(sink ? [sink] : []) });
    this.publishQueue();
    return 'resumed';
  }

  /** The messages waiting behind the active run, in the order they will run. */
  queued(): { requestId: string; sessionId: string; prompt: string; position: number }[] {
    return this.queue.map((s, index) => ({ requestId: s.requestId, sessionId: s.sessionId, prompt: s.prompt, position: index + 1 }));
  }

  /** Takes one waiting message out of the queue (it stays in the history, noted as not sent). */
  dropQueued(requestId: string): boolean {
    const index = this.queue.findIndex((s) => s.requestId === requestId);
    if (index < 0) return false;
    const [submission] = this.queue.splice(index, 1);
    this.deps.onDropped?.([submission!.requestId]);
    this.finishSinks(submission!.sinks, { type: 'done', status: 'stopped', text: '', reason: 'removed from the queue' });
    if (submission!.messageId !== undefined) {
      this.deps.transcript.saveMessage({ sessionId: submission!.sessionId, role: 'system', content: 'A queued message was not sent to the agent: removed from the queue.', meta: { kind: 'queue_dropped', count: 1 } });
    }
    this.publishQueue();
    return true;
  }

  /** Runs one waiting message next, interrupting the active run. */
  runQueuedNow(requestId: string): boolean {
    const index = this.queue.findIndex((s) => s.requestId === requestId);
    if (index < 0) return false;
    const [submission] = this.queue.splice(index, 1);
    this.queue.unshift(submission!);
    const run = this.active;
    if (run && !run.stopReason) {
      run.stopReason = 'interrupted by a queued message run now';
      run.attempt?.stop(run.stopReason);
      run.wake?.();
    }
    this.publishQueue();
    this.pump();
    return true;
  }

  /** Forgets the provider sessions of a chat session: the next message starts a fresh conversation. */
  resetProviderSession(sessionId: string): void {
    this.forgetProviderSessions(sessionId);
    this.deps.bus.publish('session_reset', { sessionId });
  }

  /** Forgets them without saying so (the chat session is being cleared or deleted). */
  forgetProviderSessions(sessionId: string): void {
    this.deps.providerSessions.forget(sessionId);
  }

  /**
   * Stops the run and drops the queue when any of it belongs to this chat session, which is being
   * cleared or deleted: its answer has nowhere to go and is not saved.
   */
  stopSessionWork(sessionId: string, reason: string): void {
    const run = this.active?.submission.sessionId === sessionId ? this.active : undefined;
    if (run) run.discardAnswer = true;
    if (run || this.queue.some((s) => s.sessionId === sessionId)) this.stop(reason, sessionId);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop('the server is shutting down');
    await this.current;
  }

  // ── queue ─────────────────────────────────────────────────────────────────────────────

  private pump(): void {
    if (this.active || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    // saved when it was sent; in the history it belongs after the answers that came before its turn
    if (next.messageId !== undefined) this.deps.transcript.moveToEnd(next.messageId);
    const run: ActiveRun = {
      submission: next,
      traceId: newId('tr', 12),
      provider: next.provider ?? this.deps.settings().provider,
      startedAt: Date.now(),
      toolLog: new ToolLog(),
      output: '',
      usage: {},
      thinkingCount: 0,
      stepKinds: new Map(),
    };
    this.active = run;
    this.publishQueue();
    this.current = this.execute(run)
      .catch((err: unknown) => {
        // a bug, not a provider failure: say so, and never leave a client waiting for `done`
        console.error('svc: agent run failed unexpectedly:', err);
        const reason = `internal error: ${(err as Error).message}`;
        const done = this.publish(run, 'agent_done', { traceId: run.traceId, requestId: run.submission.requestId, status: 'error', text: '', error: reason, reason, provider: run.provider, toolLog: run.toolLog.toJSON() });
        this.deps.bus.publish('agent_status', { status: 'error', traceId: run.traceId, provider: run.provider });
        this.finishSinks(run.submission.sinks, done!);
        this.deps.onRunEnd?.({ requestId: run.submission.requestId, sessionId: run.submission.sessionId, traceId: run.traceId, status: 'error', durationMs: Date.now() - run.startedAt });
      })
      .finally(() => {
        this.active = undefined;
        this.publishQueue();
        this.pump();
      });
  }

  /**
   * Tells clients the queue again when what `pending` counts changed (another chat session is shown):
   * only when something waits (an empty queue counts 0 in every session).
   */
  announceQueue(): void {
    if (this.queue.length) this.publishQueue();
  }

  private queueCount() {
    let shown: string | undefined;
    try {
      shown = this.deps.activeSession?.();
    } catch {
      // not known now (the store is closing): every waiting message counts
    }
    return countQueue(this.queue.map((s) => s.sessionId), shown);
  }

  private publishQueue(): void {
    this.deps.bus.publish('queue_update', { ...this.queueCount(), active: Boolean(this.active) });
  }

  // ── one run: retries and fallback around attempts ───────────────────────────────────────

  private async execute(run: ActiveRun): Promise<void> {
    const agentSettings = this.deps.settings();
    const chain = [...new Set<ProviderId>([run.provider, ...agentSettings.fallback])];
    // Bounded by the longest the run can last (every provider, every retry), in case its end is never seen.
    const ttlMs = agentSettings.maxRunSec * 1000 * chain.length * (agentSettings.retries + 1) + 60_000;
    run.credential = this.deps.credentials?.issue({ runId: run.traceId, sessionId: run.submission.sessionId }, ttlMs);
    try {
      await this.runChain(run, chain);
    } finally {
      // finish() revoked it already; this covers a run that failed on the way there
      this.deps.credentials?.revoke(run.traceId);
    }
  }

  private async runChain(run: ActiveRun, chain: ProviderId[]): Promise<void> {
    const { bus, recorder, runs } = this.deps;
    const agentSettings = this.deps.settings();
    recorder.begin(run.traceId);
    const model = run.submission.model ?? agentSettings.model;
    runs.start({ id: run.traceId, chatSessionId: run.submission.sessionId, requestId: run.submission.requestId, provider: run.provider, model, startedAt: run.startedAt });
    bus.publish('agent_status', { status: 'running', traceId: run.traceId, provider: run.provider, model: model || undefined });

    let outcome: AttemptOutcome = { status: 'error', text: '', failure: 'unknown', message: 'no provider ran' };
    for (let index = 0; index < chain.length && !run.stopReason; index++) {
      const provider = chain[index]!;
      run.provider = provider;
      run.model = index === 0 ? model : this.fallbackModel(model, provider);
      outcome = await this.runWithRetries(run, provider, run.model);
      if (outcome.status === 'ok') this.deps.onProviderOutcome?.(provider, { ok: true });
      if (outcome.status !== 'error') break;
      this.deps.onProviderOutcome?.(provider, { ok: false, failure: outcome.failure, message: outcome.message });
      const next = chain[index + 1];
      if (next && !run.stopReason) {
        const { summary } = describeFailure(providerInfo(provider), outcome.failure, outcome.message, outcome.preflight);
        bus.publish('agent_fallback', { traceId: run.traceId, from: provider, to: next, reason: summary });
      }
    }
    if (run.stopReason && outcome.status !== 'ok') outcome = { status: 'stopped', text: outcome.text, reason: run.stopReason };
    await this.finish(run, outcome);
  }

  /**
   * The model a fallback provider runs: the run's own when it is a model endpoint's that this provider can use too
   * (a local model stays local when its first CLI fails), else the provider's default.
   */
  private fallbackModel(model: string, provider: ProviderId): string {
    const named = model ? endpointModel(model) : undefined;
    const endpoint = named && this.deps.endpoint?.(named.id);
    return endpoint && ENDPOINT_PROVIDERS[endpoint.api].includes(provider) ? model : '';
  }

  private async runWithRetries(run: ActiveRun, provider: ProviderId, model: string): Promise<AttemptOutcome> {
    const { bus, providerSessions } = this.deps;
    let retries = 0;
    let freshSessionTried = false;
    for (;;) {
      const outcome = await this.attempt(run, provider, model);
      if (outcome.status !== 'error' || run.stopReason) return outcome;
      if (outcome.failure === 'stale_session' && !freshSessionTried) {
        freshSessionTried = true;
        providerSessions.forget(run.submission.sessionId, provider);
        bus.publish('agent_retry', { traceId: run.traceId, provider, attempt: retries + 1, delayMs: 0, reason: `${providerInfo(provider).displayName} no longer knows the saved session; starting a fresh one`, failure: 'stale_session' });
        continue;
      }
      if (!RETRYABLE.has(outcome.failure) || retries >= this.deps.settings().retries) return outcome;
      retries++;
      const delayMs = (this.deps.retryBaseMs ?? 1000) * 2 ** (retries - 1);
      const { summary } = describeFailure(providerInfo(provider), outcome.failure, outcome.message);
      bus.publish('agent_retry', { traceId: run.traceId, provider, attempt: retries, delayMs, reason: summary, failure: outcome.failure });
      await this.pause(run, delayMs);
      if (run.stopReason) return outcome;
    }
  }

  private pause(run: ActiveRun, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        run.wake = undefined;
        resolve();
      }
      run.wake = done;
    });
  }

  private async attempt(run: ActiveRun, provider: ProviderId, model: string): Promise<AttemptOutcome> {
    const { providerSessions } = this.deps;
    run.systemPrompt ??= await this.deps.systemPrompt(run.submission.prompt, run.submission.sessionId);
    const agent = this.deps.settings();
    const sessionId = run.submission.sessionId;
    const attempt = new Attempt(
      {
        adapter: adapterOf(provider),
        request: runRequest(
          {
            kind: 'chat',
            provider,
            prompt: run.submission.prompt,
            cwd: run.submission.workingDir || agent.workingDir || this.deps.cwd,
            model,
            systemPrompt: run.systemPrompt,
            resumeSessionId: providerSessions.get(sessionId, provider),
            canAsk: this.deps.permissions !== undefined,
          },
          this.deps,
        ),
        env: { ...this.deps.baseEnv(), ...(run.credential ? { [RUN_TOKEN_ENV]: run.credential } : {}) },
        pidDir: this.deps.pidDir,
        scratchRoot: this.deps.scratchRoot,
        idleTimeoutMs: agent.idleTimeoutSec * 1000,
        maxRunMs: agent.maxRunSec * 1000,
        killGraceMs: this.deps.killGraceMs,
        networkWaitMs: this.deps.networkWaitMs,
        ...(this.deps.missingLogin ? { missingLogin: () => this.deps.missingLogin!(provider) } : {}),
      },
      {
        onEvent: (event) => this.onProviderEvent(run, provider, event),
        onRawLine: (stream, line) => this.deps.bus.publish('provider_line', { traceId: run.traceId, stream, line }),
        onExit: (exit) => this.deps.bus.publish('provider_exit', { traceId: run.traceId, ...exit }),
        ...(this.deps.permissions
          ? {
              onPermission: (asked) =>
                this.deps.permissions!.ask({ sessionId, runId: run.traceId, provider }, { tool: asked.tool, input: asked.input, ...(asked.description ? { description: asked.description } : {}) }),
            }
          : {}),
      },
    );
    run.attempt = attempt;
    if (run.stopReason) attempt.stop(run.stopReason);
    try {
      return await attempt.done;
    } finally {
      run.attempt = undefined;
    }
  }

  // ── normalized provider events → bus events (and, derived from them, stream lines) ─────

  private onProviderEvent(run: ActiveRun, provider: ProviderId, event: NormalizedEvent): void {
    const traceId = run.traceId;
    switch (event.kind) {
      case 'session':
        this.deps.providerSessions.set(run.submission.sessionId, provider, event.providerSessionId);
        return;
      case 'text_delta': // never empty (the adapters drop empty chunks)
        this.publish(run, 'agent_output', { traceId, content: event.text, offset: run.output.length }, true);
        run.output += event.text;
        return;
      case 'thinking': {
        const stepId = `${traceId}-thinking-${++run.thinkingCount}`;
        this.publish(run, 'agent_tool', { traceId, stepId, name: 'thinking', step: 'thinking', status: 'ok', input: {}, output: event.text }, true);
        return;
      }
      case 'step_start': {
        const input = boundInput(event.input);
        run.toolLog.start({ stepId: event.stepId, name: event.name, step: event.step, input });
        run.stepKinds.set(event.stepId, event.step);
        this.publish(run, 'agent_tool', { traceId, stepId: event.stepId, name: event.name, step: event.step, status: 'running', input }, true);
        return;
      }
      case 'step_end': {
        const status = event.ok ? 'ok' : 'error';
        const output = event.output === undefined ? undefined : clip(event.output);
        run.toolLog.finish(event.stepId, event.ok, output);
        this.publish(run, 'agent_tool', { traceId, stepId: event.stepId, name: event.name, step: run.stepKinds.get(event.stepId) ?? 'tool', status, input: {}, ...(output !== undefined ? { output } : {}) }, true);
        return;
      }
      case 'usage':
        for (const key of ['inputTokens', 'outputTokens', 'cachedTokens', 'reasoningTokens', 'costUsd'] as const) {
          const value = event[key];
          if (typeof value === 'number') run.usage[key] = (run.usage[key] ?? 0) + value;
        }
        return;
      case 'provider_retry':
        this.deps.bus.publish('agent_retry', { traceId, provider, attempt: event.attempt ?? 0, delayMs: event.delayMs ?? 0, reason: `${providerInfo(provider).displayName} is retrying on its own: ${event.reason}` });
        return;
      case 'error':
      case 'result':
        return; // the attempt's outcome carries these
      case 'permission_request':
        return; // the attempt asks the permissions module, which publishes the request
    }
  }

  /**
   * Publishes an event of a run and returns the stream line it stands for (one function derives it:
   * streamLineOf). `toSinks` writes that line to the run's NDJSON answers at once; `done` is written
   * by the caller, last.
   */
  private publish<N extends EventName>(run: ActiveRun, name: N, payload: EventPayload<N>, toSinks = false): StreamLine | undefined {
    this.deps.bus.publish(name, payload);
    const line = streamLineOf(name, payload);
    if (line && toSinks) for (const sink of run.submission.sinks) sink.write(line);
    return line;
  }

  private finishSinks(sinks: Set<RunSink>, line: StreamLine): void {
    for (const sink of sinks) {
      sink.write(line);
      sink.end();
    }
  }

  private async finish(run: ActiveRun, outcome: AttemptOutcome): Promise<void> {
    const { bus, recorder, runs } = this.deps;
    // dead before anyone hears the run ended
    this.deps.credentials?.revoke(run.traceId);
    const traceId = run.traceId;
    const usage = Object.keys(run.usage).length ? run.usage : undefined;
    const durationMs = Date.now() - run.startedAt;
    const report = outcome.status === 'error' ? describeFailure(providerInfo(run.provider), outcome.failure, outcome.message, outcome.preflight) : undefined;
    const reason = outcome.status === 'stopped' ? outcome.reason : report?.summary;
    const messageId = run.discardAnswer ? undefined : this.saveRecord(run, outcome, { durationMs, usage, report });
    const done = this.publish(run, 'agent_done', {
      traceId,
      requestId: run.submission.requestId,
      status: outcome.status,
      text: outcome.text,
      ...(report ? { error: report.summary, failure: report.failure, ...(report.fix ? { fix: report.fix } : {}) } : {}),
      ...(reason ? { reason } : {}),
      provider: run.provider,
      ...(messageId !== undefined ? { messageId } : {}),
      toolLog: run.toolLog.toJSON(),
      ...(usage ? { usage } : {}),
      durationMs,
    });
    bus.publish('agent_status', { status: outcome.status === 'error' ? 'error' : 'done', traceId, provider: run.provider });
    const eventCount = await recorder.end(traceId);
    runs.finish(traceId, { status: outcome.status, provider: run.provider, error: outcome.status === 'error' ? `${outcome.failure}: ${outcome.message}` : undefined, messageId, usage, eventCount });
    // Last: a client that reads the trace as soon as its stream says `done` finds it complete.
    this.finishSinks(run.submission.sinks, done!);
    if (!run.discardAnswer) this.deps.onRunEnd?.({ requestId: run.submission.requestId, sessionId: run.submission.sessionId, traceId, status: outcome.status, durationMs });
  }

  /**
   * Every run leaves a message in its conversation: the answer (also when a stop cut it short), or,
   * when there is none, a record of why (what failed and what to do, or what stopped it). Returns
   * the message id.
   */
  private saveRecord(run: ActiveRun, outcome: AttemptOutcome, facts: { durationMs: number; usage?: Record<string, number>; report?: ReturnType<typeof describeFailure> }): number {
    const { report } = facts;
    const meta: RunRecordMeta = {
      traceId: run.traceId,
      requestId: run.submission.requestId,
      provider: run.provider,
      ...(run.model ? { model: run.model } : {}),
      status: outcome.status,
      durationMs: facts.durationMs,
      ...(facts.usage ? { usage: facts.usage } : {}),
      ...(report ? { failure: report.failure, ...(report.fix ? { fix: report.fix } : {}) } : {}),
      // the tool log is bounded (100 steps and a line saying how many more); thinking never enters it
      steps: run.toolLog.toJSON().map((s) => ({ stepId: s.stepId, name: s.name, step: s.step, status: s.status, summary: stepSummary(s.input) })),
      ...(outcome.status === 'stopped' ? { interrupted: true } : {}),
    };
    const { sessionId } = run.submission;
    if (outcome.text && outcome.status !== 'error') return this.deps.transcript.saveMessage({ sessionId, role: 'assistant', content: outcome.text, meta }).id;
    const name = providerInfo(run.provider).displayName;
    const content = report ? report.summary : `Stopped before ${name} answered: ${outcome.status === 'stopped' ? outcome.reason : 'no answer'}.`;
    return this.deps.transcript.saveMessage({ sessionId, role: 'system', content, meta }).id;
  }
}
