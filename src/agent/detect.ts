// Which provider CLIs are installed, where, and which version: detected in the background, cached,
// and never waited for by a request. Detection starts on the first snapshot (not at start-up) and
// again on refresh(); a snapshot always answers at once with what is known so far.
//
// Per provider: resolve the executable in-process (an explicit path from the constructor, else a
// PATH scan with fs.access X_OK: no shell, no `which`), then run `<path> --version` in its own
// process group with a 5 s deadline. On the deadline the whole group is killed and the entry says
// so; a CLI that exits but leaves a child holding its stdout is not waited for either.
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ProviderId } from './providers/registry.ts';
import { loginCheckOf, providerInfo, PROVIDER_IDS } from './providers/registry.ts';
import type { CliStatus } from '../protocol/providers.ts';
import { findCredentials, missingLogin, readiness, type CredentialState } from './readiness.ts';
import { executableCandidates, isExecutableFileSync, type ResolveOptions } from '../core/executable.ts';

export type { CliStatus };

export type ReadyCliStatus = Extract<CliStatus, { state: 'ready' }>;

export const VERSION_TIMEOUT_MS = 5_000;
/** Probes at once: on a small machine five node CLIs starting together each need more than 5 s. */
const DEFAULT_CONCURRENCY = 2;
/** After the CLI exited, how long to wait for its pipes to close (a leftover child may hold them). */
const CLOSE_GRACE_MS = 200;
const MAX_OUTPUT_CHARS = 16 * 1024;

// ---------------------------------------------------------------------------------------------
// Executable resolution (the PATH scan itself is src/core/executable.ts, shared with svc service)

/** The same check as a promise (resolveExecutable's default, which a test may replace). */
export const isExecutableFile = async (p: string): Promise<boolean> => isExecutableFileSync(p);

/** The first candidate of `command` that `isExecutable` accepts, or null. */
export async function resolveExecutable(
  command: string,
  opts: ResolveOptions & { isExecutable?: (path: string) => Promise<boolean> },
): Promise<string | null> {
  const check = opts.isExecutable ?? isExecutableFile;
  for (const candidate of executableCandidates(command, opts)) {
    if (await check(candidate)) return candidate;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Version probe

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const VERSION_TOKEN = /(?<![\w.])v?(\d+\.\d+(?:\.\d+)*(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?:\+[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)/;

/** The first version-looking token (`1.2`, `v0.169.0`, `2.0.0-beta.1`) in `text`, without a leading v. */
export function parseVersion(text: string): string | null {
  const match = VERSION_TOKEN.exec(text.replace(ANSI, ''));
  return match ? match[1]! : null;
}

export interface ProbeResult {
  version: string | null;
  error?: string;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/**
 * Runs `<path> --version` (stdin closed, own process group) and parses stdout, then stderr. Never
 * rejects; resolves within `timeoutMs` (+ a little), killing the group when the deadline passes.
 */
export function probeVersion(
  path: string,
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; track?: (child: ChildProcess, done: boolean) => void } = {},
): Promise<ProbeResult> {
  const timeoutMs = opts.timeoutMs ?? VERSION_TIMEOUT_MS;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(path, ['--version'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
        env: { ...(opts.env ?? process.env), NO_COLOR: '1' },
      });
    } catch (err) {
      resolve({ version: null, error: `could not run: ${(err as Error).message}` });
      return;
    }
    opts.track?.(child, false);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS) stdout += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += d;
    });
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (result: ProbeResult, kill: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      if (kill) killGroup(child);
      child.stdout?.destroy();
      child.stderr?.destroy();
      opts.track?.(child, true);
      resolve(result);
    };
    const fromOutput = (code: number | null, signal: NodeJS.Signals | null): ProbeResult => {
      const version = parseVersion(stdout) ?? parseVersion(stderr);
      if (version) return { version };
      const how = signal ? `was killed by ${signal}` : code === 0 ? 'printed no version' : `exited with code ${code}`;
      return { version: null, error: `--version ${how}` };
    };
    const timer = setTimeout(() => finish({ version: null, error: 'version probe timed out' }, true), timeoutMs);
    child.on('error', (err) => finish({ version: null, error: `could not run: ${err.message}` }, false));
    // Normally 'close' follows 'exit' at once; if a leftover child keeps the pipes open, use what
    // was printed so far and kill the rest of the group.
    child.on('exit', (code, signal) => {
      grace = setTimeout(() => finish(fromOutput(code, signal), true), CLOSE_GRACE_MS);
    });
    child.on('close', (code, signal) => finish(fromOutput(code, signal), false));
  });
}

// ---------------------------------------------------------------------------------------------
// The detector

export type PathOverrides = Partial<Record<ProviderId, string>>;

export interface CliDetectorOptions {
  /** Explicit executable per provider (e.g. from settings); a bare name is still looked up on PATH. */
  paths?: PathOverrides | (() => PathOverrides);
  /** The `custom` provider's command template (settings `agent.customCommand`); its first item is the executable. */
  customCommand?: () => readonly string[];
  /** PATH used for the scan (default: the service's own PATH, read at each detection). */
  pathEnv?: () => string | undefined;
  /** Environment of the `--version` processes (default: process.env). */
  env?: () => NodeJS.ProcessEnv;
  cwd?: string;
  /** The working directory of runs (a CLI may read a project configuration there; default: cwd). */
  workingDir?: () => string;
  timeoutMs?: number;
  /** How many `--version` probes run at once (node-based CLIs take seconds of CPU to start). */
  concurrency?: number;
  now?: () => number;
}

/** At most `limit` tasks at once, in call order. */
class Limiter {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.queue.shift()?.();
    }
  }
}

export class CliDetector {
  private readonly statuses = new Map<ProviderId, CliStatus>();
  private running: Promise<void> | null = null;
  /** What a running detection reads changed: run again when it ends. */
  private again = false;
  private readonly children = new Set<ChildProcess>();
  private closed = false;
  private started = false;
  private readonly probes: Limiter;

  constructor(private readonly options: CliDetectorOptions = {}) {
    this.probes = new Limiter(Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY));
  }

  /** What is known now, for every provider. Starts the first detection; never waits for it. */
  snapshot(): Record<ProviderId, CliStatus> {
    if (!this.started) this.refresh();
    const out = {} as Record<ProviderId, CliStatus>;
    for (const id of PROVIDER_IDS) out[id] = this.statuses.get(id) ?? { state: 'detecting' };
    return out;
  }

  /** True while a detection runs. */
  get refreshing(): boolean {
    return this.running !== null;
  }

  /**
   * Starts a background re-detection; a call while one runs joins it, unless `stale`: what it
   * reads changed (the settings), so it runs again after the current one. Earlier results stay
   * visible until each provider's new result replaces them.
   */
  refresh(stale = false): void {
    if (this.closed) return;
    if (this.running) {
      this.again ||= stale;
      return;
    }
    this.started = true;
    this.running = (async () => {
      do {
        this.again = false;
        await this.detectAll();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = null;
    });
  }

  /** The settings it reads changed: re-detect when anyone has looked (the next snapshot shows it). */
  invalidate(): void {
    if (this.started) this.refresh(true);
  }

  /**
   * Installed or not, and where the login is, for every provider, without running any CLI (no
   * version): a few file checks, cheap enough for `svc serve` to print at start.
   */
  async quickCheck(): Promise<Record<ProviderId, ReadyCliStatus>> {
    const entries = await Promise.all(PROVIDER_IDS.map(async (id) => [id, await this.detectOne(id, false)] as const));
    return Object.fromEntries(entries) as Record<ProviderId, ReadyCliStatus>;
  }

  /**
   * Why a run of this provider cannot succeed for want of a login, read now (a few file checks), when
   * svc can know it (readiness.missingLogin); undefined when it may run, at once when svc cannot know.
   */
  missingLogin(id: ProviderId): Promise<string | undefined> | undefined {
    // svc cannot know: nothing to read, and no run waits for it
    if (!loginCheckOf(id)) return undefined;
    return this.credentials(id).then((credentials) => missingLogin(providerInfo(id), credentials, true));
  }

  /** The snapshot once detection has finished, or after `timeoutMs` with what is known by then. */
  async settled(timeoutMs: number): Promise<Record<ProviderId, CliStatus>> {
    if (!this.started) this.refresh();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.whenIdle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    return this.snapshot();
  }

  /** Resolves when no detection is running (for tests and shutdown). */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops: kills running probes; later refreshes do nothing. */
  async close(): Promise<void> {
    this.closed = true;
    for (const child of this.children) killGroup(child);
    await this.whenIdle();
  }

  private async detectAll(): Promise<void> {
    await Promise.all(
      PROVIDER_IDS.map(async (id) => {
        const status = await this.detectOne(id).catch(
          (err: unknown): ReadyCliStatus => this.result(id, { installed: false, path: null, version: null, error: `detection failed: ${(err as Error)?.message ?? String(err)}` }, { state: 'unknown' }),
        );
        if (!this.closed) this.statuses.set(id, status);
      }),
    );
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private result(id: ProviderId, found: { installed: boolean; path: string | null; version: string | null; error?: string }, credentials: CredentialState): ReadyCliStatus {
    const { error, ...rest } = found;
    return {
      state: 'ready',
      ...rest,
      ...(error !== undefined ? { error } : {}),
      checkedAt: this.now(),
      credentials,
      readiness: readiness(providerInfo(id), found.installed, credentials),
    };
  }

  /** Where the provider's login is (a key in the runs' environment, a login file), without running it. */
  private async credentials(id: ProviderId): Promise<CredentialState> {
    const where = providerInfo(id).credentials;
    if (!where) return { state: 'unknown' };
    const env = this.options.env?.() ?? process.env;
    const home = env.HOME || homedir();
    const existing = new Set<string>();
    for (const file of where.files) {
      const variable = /^\$([A-Z_][A-Z0-9_]*)\/(.+)$/.exec(file);
      const base = variable ? env[variable[1]!] : home;
      if (!base || !isAbsolute(base)) continue;
      const found = statSync(join(base, variable ? variable[2]! : file), { throwIfNoEntry: false });
      if (found?.isFile() && found.size > 0) existing.add(file);
    }
    const credentials = findCredentials(where, env, existing);
    if (credentials.state !== 'missing') return credentials;
    // No login where the CLI keeps one by default: unless its configuration takes it elsewhere.
    const check = loginCheckOf(id);
    const cwd = this.options.workingDir?.() ?? this.options.cwd ?? process.cwd();
    for (const file of check?.configFiles({ home, env, cwd }) ?? []) {
      const config = await readFile(file, 'utf8').catch(() => undefined);
      if (config !== undefined && check!.elsewhere(config)) return { state: 'unknown' };
    }
    return credentials;
  }

  private async detectOne(id: ProviderId, probeVersionToo = true): Promise<ReadyCliStatus> {
    const overrides = typeof this.options.paths === 'function' ? this.options.paths() : (this.options.paths ?? {});
    const override = overrides[id]?.trim();
    let command: string;
    if (override) command = override;
    else if (id === 'custom') command = this.options.customCommand?.()[0]?.trim() ?? '';
    else command = providerInfo(id).command;

    const credentials = await this.credentials(id);
    const missing = (error: string): ReadyCliStatus => this.result(id, { installed: false, path: null, version: null, error }, credentials);
    if (!command) return missing('no custom command configured (settings agent.customCommand)');

    const path = await resolveExecutable(command, {
      pathEnv: this.options.pathEnv ? this.options.pathEnv() : process.env['PATH'],
      cwd: this.options.cwd,
    });
    if (!path) {
      const bare = !command.includes('/') && !command.includes('\\') && !command.startsWith('~');
      return missing(bare ? `'${command}' not found on PATH` : `'${command}' is not an executable file`);
    }
    // The custom command is the user's own program: running it with --version could do anything.
    if (id === 'custom' || !probeVersionToo) return this.result(id, { installed: true, path, version: null }, credentials);
    if (this.closed) return missing('detector closed');

    const probe = await this.probes.run(async () =>
      this.closed
        ? { version: null, error: 'detector closed' }
        : probeVersion(path, {
            timeoutMs: this.options.timeoutMs ?? VERSION_TIMEOUT_MS,
            env: this.options.env?.(),
            track: (child, done) => (done ? this.children.delete(child) : this.children.add(child)),
          }),
    );
    return this.result(id, { installed: true, path, version: probe.version, ...(probe.error ? { error: probe.error } : {}) }, credentials);
  }
}
