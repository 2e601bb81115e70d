// One attempt: one provider CLI process for one prompt. Turns the adapter's output into calls on
// an `AttemptObserver`, enforces the watchdog, and reports how it ended. Retry, fallback, queueing
// and publishing belong to the runtime, not here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mkdirSync, symlinkSync } from 'node:fs';
import type { AdapterOutput, FailureClass, InvocationRequest, NormalizedEvent, ProviderAdapter } from './providers/types.ts';
import { startProcess, type RunningProcess } from './process.ts';

export interface AttemptOptions {
  adapter: ProviderAdapter<any>;
  request: Omit<InvocationRequest, 'scratchDir'>;
  env: NodeJS.ProcessEnv;
  pidDir: string;
  /**
   * Where the run's private directory is made (default: the system's temp directory). Gemini CLI
   * ignores a settings file under a world-writable directory such as /tmp, so svc uses its own home.
   */
  scratchRoot?: string;
  idleTimeoutMs: number;
  maxRunMs: number;
  killGraceMs?: number;
}

export interface AttemptObserver {
  onEvent(event: NormalizedEvent): void;
  onRawLine(stream: 'stdout' | 'stderr', line: string): void;
}

export type AttemptOutcome =
  | { status: 'ok'; text: string }
  | { status: 'stopped'; text: string; reason: string }
  | { status: 'error'; text: string; failure: FailureClass; message: string };

export type SteerResult = 'delivered' | 'unsupported';

export class Attempt {
  private process?: RunningProcess;
  private state: unknown;
  private text = '';
  private result?: Extract<NormalizedEvent, { kind: 'result' }>;
  private lastError?: Extract<NormalizedEvent, { kind: 'error' }>;
  private stopReason?: string;
  private timeoutReason?: string;
  private idleTimer?: NodeJS.Timeout;
  private maxTimer?: NodeJS.Timeout;
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
    const root = this.options.scratchRoot ?? tmpdir();
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const scratchDir = mkdtempSync(join(root, 'svc-run-'));
    try {
      const full: InvocationRequest = { ...request, scratchDir };
      let invocation;
      try {
        invocation = adapter.buildInvocation(full);
      } catch (err) {
        return { status: 'error', text: '', failure: 'invalid_request', message: (err as Error).message };
      }
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
      clearTimeout(this.idleTimer);
      clearTimeout(this.maxTimer);
      if (exit.spawnError) {
        const missing = exit.spawnError.code === 'ENOENT';
        return {
          status: 'error',
          text: '',
          failure: missing ? 'cli_missing' : 'crash',
          message: missing ? `'${invocation.command}' was not found` : `could not start '${invocation.command}': ${exit.spawnError.message}`,
        };
      }
      for (const event of adapter.finish(this.state, exit)) this.emit(event);
      return this.outcome();
    } finally {
      clearTimeout(this.idleTimer);
      clearTimeout(this.maxTimer);
      rmSync(scratchDir, { recursive: true, force: true });
    }
  }

  private outcome(): AttemptOutcome {
    const text = this.result?.ok && this.result.text !== undefined ? this.result.text : this.text;
    if (this.timeoutReason) return { status: 'error', text, failure: 'timeout', message: this.timeoutReason };
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
  }

  private emit(event: NormalizedEvent): void {
    if (event.kind === 'text_delta') this.text += event.text;
    else if (event.kind === 'result') this.result = event;
    else if (event.kind === 'error') this.lastError = event;
    this.observer.onEvent(event);
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.timeout(`no output for ${Math.round(this.options.idleTimeoutMs / 1000)} s (setting agent.idleTimeoutSec)`),
      this.options.idleTimeoutMs,
    );
  }

  private timeout(reason: string): void {
    if (this.timeoutReason || this.stopReason) return;
    this.timeoutReason = reason;
    this.process?.kill(this.options.killGraceMs);
  }
}
