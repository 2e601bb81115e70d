// One attempt: one provider CLI process for one prompt. Turns the adapter's output into calls on
// an `AttemptObserver`, enforces the watchdog, and reports how it ended. Retry, fallback, queueing
// and publishing belong to the runtime, not here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mkdirSync, symlinkSync } from 'node:fs';
import type { AdapterOutput, FailureClass, InvocationRequest, NormalizedEvent, PermissionAnswer, ProviderAdapter } from './providers/types.ts';
import { startProcess, type RunningProcess } from './process.ts';
import { runDirBase, runDirCandidates } from './run-dir.ts';

/**
 * How long a CLI may say nothing but that it waits for the network before it is stopped. codex, offline,
 * says "Reconnecting... waiting for network" every few seconds for as long as the network is down (the
 * idle watchdog, 10 minutes by default, was all that ended it); a couple of minutes covers a network
 * coming back (a Wi-Fi reconnect, a VPN).
 */
export const NETWORK_WAIT_MS = 120_000;

/**
 * How long a CLI may take to exit once its turn's result is in and its stdin closed. `gemini --acp` with an
 * MCP server running never exits by itself (checked with 0.61.0): it is ended then, its result kept.
 */
const EXIT_GRACE_MS = 5_000;

export interface AttemptOptions {
  adapter: ProviderAdapter<any>;
  request: Omit<InvocationRequest, 'scratchDir'>;
  env: NodeJS.ProcessEnv;
  pidDir: string;
  /**
   * svc's runs directory (<home>/runs), where the run's private directory is made, or in a directory of
   * this home's own in the user's cache when only that one is root-only (agent/run-dir.ts: Gemini CLI skips
   * a settings file anywhere else). Default: the system's temp directory.
   */
  scratchRoot?: string;
  idleTimeoutMs: number;
  maxRunMs: number;
  killGraceMs?: number;
  /** See NETWORK_WAIT_MS (the default); counted from the first wait since the CLI last made progress. */
  networkWaitMs?: number;
  /**
   * Asked before the CLI starts: why it cannot succeed for want of a login, when svc knows
   * (CliDetector.missingLogin). The attempt then ends at once as an `auth` failure, the CLI never started.
   * `undefined` right away (not a promise): nothing to check, and the CLI starts without a wait.
   */
  missingLogin?: () => Promise<string | undefined> | string | undefined;
}

export interface AttemptObserver {
  onEvent(event: NormalizedEvent): void;
  onRawLine(stream: 'stdout' | 'stderr', line: string): void;
  /** The CLI's process ended (it had started): its exit code or signal, for the run's trace. */
  onExit?(exit: { code: number | null; signal: string | null }): void;
  /**
   * The CLI asks to run a tool: a person's answer (or a rule's, or a timeout's). Absent: every request is
   * declined at once, since nobody could answer it.
   */
  onPermission?(request: Extract<NormalizedEvent, { kind: 'permission_request' }>): Promise<PermissionAnswer>;
}

export type AttemptOutcome =
  | { status: 'ok'; text: string }
  | { status: 'stopped'; text: string; reason: string }
  /** `preflight`: svc found it before starting the CLI (the message is svc's, not the CLI's). */
  | { status: 'error'; text: string; failure: FailureClass; message: string; preflight?: true };

export type SteerResult = 'delivered' | 'unsupported';

export class Attempt {
  private process?: RunningProcess;
  private state: unknown;
  private text = '';
  private result?: Extract<NormalizedEvent, { kind: 'result' }>;
  private lastError?: Extract<NormalizedEvent, { kind: 'error' }>;
  private stopReason?: string;
  /** svc ended it: the watchdog (`timeout`) or the wait for the network (`network`). */
  private ended?: { failure: 'timeout' | 'network'; message: string };
  private idleTimer?: NodeJS.Timeout;
  private maxTimer?: NodeJS.Timeout;
  /** Runs while the CLI only says it waits for the network; progress clears it. */
  private offlineTimer?: NodeJS.Timeout;
  /** Runs from the end of the turn (result in, stdin closed) until the CLI exits. */
  private exitTimer?: NodeJS.Timeout;
  /** The CLI's latest words about the network. */
  private offlineReason = '';
  private exited = false;
  /** Permission requests waiting for an answer: the CLI is silent on purpose meanwhile. */
  private holding = 0;
  readonly done: Promise<AttemptOutcome>;

  constructor(private readonly options: AttemptOptions, private readonly observer: AttemptObserver) {
    this.done = this.run();
  }

  /** Stops the CLI (whole process tree); the attempt then ends as `stopped` with this reason. */
  stop(reason: string): void {
    this.stopReason ??= reason;
    this.process?.kill(this.options.killGraceMs);
  }

  /** Writes a steer prompt to the running CLI when its protocol accepts input mid-run. */
  steer(prompt: string): SteerResult {
    const { adapter } = this.options;
    if (adapter.steerMode !== 'live' || !adapter.steer || !this.process || this.stopReason) return 'unsupported';
    const output = adapter.steer(this.state, prompt);
    if (!output.writes?.length) return 'unsupported';
    this.apply(output);
    return 'delivered';
  }

  private async run(): Promise<AttemptOutcome> {
    const { adapter, request } = this.options;
    // a check that fails never keeps a run from starting; one with nothing to check answers at once (no wait)
    let check: ReturnType<NonNullable<AttemptOptions['missingLogin']>>;
    try {
      // a model endpoint needs no vendor login: the run talks to the user's own server
      check = request.endpoint ? undefined : this.options.missingLogin?.();
    } catch {
      check = undefined;
    }
    if (check !== undefined) {
      const noLogin = await Promise.resolve(check).catch(() => undefined);
      if (noLogin) return { status: 'error', text: '', failure: 'auth', message: noLogin, preflight: true };
      // stopped while the check ran, before there was a process to stop
      if (this.stopReason) return { status: 'stopped', text: '', reason: this.stopReason };
    }
    const { scratchRoot } = this.options;
    const place = runDirBase(scratchRoot ? runDirCandidates(scratchRoot) : [{ dir: tmpdir(), prefix: 'svc-run-' }]);
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
    const scratchDir = mkdtempSync(join(place.dir, place.prefix));
    try {
      const full: InvocationRequest = { ...request, scratchDir, ...(place.notRootOnly ? { scratchNotRootOnly: place.notRootOnly } : {}) };
      let invocation;
      try {
        if (full.refusal) throw new Error(full.refusal);
        invocation = adapter.buildInvocation(full);
      } catch (err) {
        return { status: 'error', text: '', failure: 'invalid_request', message: (err as Error).message };
      }
      // what the run goes without is said before it starts, as a failed step of svc's own
      (invocation.notices ?? []).forEach(({ name, message }, i) => {
        const stepId = `svc-notice-${i + 1}`;
        this.emit({ kind: 'step_start', stepId, name, step: 'tool', input: {} });
        this.emit({ kind: 'step_end', stepId, name, ok: false, output: message });
      });
      for (const file of invocation.files ?? []) {
        mkdirSync(dirname(file.path), { recursive: true });
        writeFileSync(file.path, file.content, { mode: file.mode ?? 0o600 });
      }
      for (const link of invocation.links ?? []) {
        mkdirSync(dirname(link.path), { recursive: true });
        symlinkSync(link.target, link.path);
      }
      this.state = adapter.initialState(full);
      const env: NodeJS.ProcessEnv = { ...this.options.env };
      for (const [key, value] of Object.entries(invocation.env)) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
      this.process = startProcess({
        command: invocation.command,
        args: invocation.args,
        cwd: request.cwd,
        env,
        pidDir: this.options.pidDir,
        onLine: (line) => this.onLine(line),
        onStderr: (text) => this.observer.onRawLine('stderr', text),
      });
      this.armIdleTimer();
      this.maxTimer = setTimeout(() => this.timeout(`ran longer than the maximum of ${Math.round(this.options.maxRunMs / 1000)} s (setting agent.maxRunSec)`), this.options.maxRunMs);
      if (invocation.stdin === 'write-close') {
        this.process.write(invocation.stdinText ?? '');
        this.process.closeStdin();
      } else if (invocation.stdin === 'close') {
        this.process.closeStdin();
      } else if (adapter.start) {
        this.apply(adapter.start(this.state, full));
      }
      const exit = await this.process.exited;
      this.exited = true;
      this.clearTimers();
      if (exit.spawnError) {
        const missing = exit.spawnError.code === 'ENOENT';
        return {
          status: 'error',
          text: '',
          failure: missing ? 'cli_missing' : 'crash',
          message: missing ? `'${invocation.command}' was not found` : `could not start '${invocation.command}': ${exit.spawnError.message}`,
        };
      }
      this.observer.onExit?.({ code: exit.code, signal: exit.signal });
      for (const event of adapter.finish(this.state, exit)) this.emit(event);
      return this.outcome();
    } finally {
      this.clearTimers();
      rmSync(scratchDir, { recursive: true, force: true });
    }
  }

  private outcome(): AttemptOutcome {
    const text = this.result?.ok && this.result.text !== undefined ? this.result.text : this.text;
    if (this.ended) return { status: 'error', text, failure: this.ended.failure, message: this.ended.message };
    if (this.stopReason) return { status: 'stopped', text, reason: this.stopReason };
    if (this.result?.ok) return { status: 'ok', text };
    const failure = this.result?.failure ?? this.lastError?.failure ?? 'crash';
    const message = this.result?.message ?? this.lastError?.message ?? 'the CLI ended without an answer';
    return { status: 'error', text, failure, message };
  }

  private onLine(line: string): void {
    this.observer.onRawLine('stdout', this.options.adapter.traceLine?.(line) ?? line);
    const output = this.options.adapter.parseLine(this.state, line);
    // A CLI that only says it is retrying (codex "Reconnecting... waiting for network", every few
    // seconds, for as long as the network is down) is not making progress: the watchdog keeps counting.
    if (output.events.length === 0 || output.events.some((e) => e.kind !== 'provider_retry')) this.armIdleTimer();
    this.apply(output);
  }

  private apply(output: AdapterOutput): void {
    for (const event of output.events) this.emit(event);
    for (const line of output.writes ?? []) this.process?.write(line);
    if (output.closeStdin) this.process?.closeStdin();
    if (output.closeStdin && this.result && !this.exitTimer) {
      this.exitTimer = setTimeout(() => this.process?.kill(this.options.killGraceMs), EXIT_GRACE_MS);
    }
  }

  /**
   * A tool call held for a person: the idle watchdog waits with it (a person's minutes are not the CLI
   * hanging; agent.approvalTimeoutSec bounds the wait), and the answer goes back through the adapter.
   */
  private holdForPermission(request: Extract<NormalizedEvent, { kind: 'permission_request' }>): void {
    const { adapter } = this.options;
    const answered = this.observer.onPermission?.(request) ?? Promise.resolve<PermissionAnswer>({ allow: false, reason: 'nobody can answer permission requests for this run' });
    this.holding++;
    clearTimeout(this.idleTimer);
    void answered
      .catch((err: Error): PermissionAnswer => ({ allow: false, reason: `the request could not be answered: ${err.message}` }))
      .then((answer) => {
        this.holding--;
        if (this.exited || this.stopReason || this.ended || !adapter.answerPermission) return;
        this.apply(adapter.answerPermission(this.state, request.requestId, answer));
        if (this.holding === 0) this.armIdleTimer();
      });
  }

  private emit(event: NormalizedEvent): void {
    if (event.kind === 'permission_request') this.holdForPermission(event);
    if (event.kind === 'text_delta') this.text += event.text;
    else if (event.kind === 'result') this.result = event;
    else if (event.kind === 'error') this.lastError = event;
    if (event.kind === 'provider_retry') {
      if (event.offline) this.waitingForNetwork(event.reason);
    } else {
      // progress: the network is back
      clearTimeout(this.offlineTimer);
      this.offlineTimer = undefined;
    }
    this.observer.onEvent(event);
  }

  /** The first wait since the CLI last made progress starts the clock; later ones only update the words. */
  private waitingForNetwork(reason: string): void {
    this.offlineReason = reason;
    if (this.offlineTimer || this.exited) return;
    const ms = this.options.networkWaitMs ?? NETWORK_WAIT_MS;
    const waited = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
    this.offlineTimer = setTimeout(() => this.end('network', `no connection for ${waited}; ${this.offlineReason}`), ms);
  }

  private clearTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.maxTimer);
    clearTimeout(this.offlineTimer);
    clearTimeout(this.exitTimer);
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.holding > 0) return;
    this.idleTimer = setTimeout(
      () => this.timeout(`no output for ${Math.round(this.options.idleTimeoutMs / 1000)} s (setting agent.idleTimeoutSec)`),
      this.options.idleTimeoutMs,
    );
  }

  private timeout(reason: string): void {
    this.end('timeout', reason);
  }

  /** svc ends the CLI (whole process tree); the first reason given is the one kept. */
  private end(failure: 'timeout' | 'network', message: string): void {
    if (this.ended || this.stopReason) return;
    this.ended = { failure, message };
    this.process?.kill(this.options.killGraceMs);
  }
}
