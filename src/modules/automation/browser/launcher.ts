// Finding, launching and watching the browser process. Chromium runs with a dedicated profile
// (<home>/browser-profile) and remote debugging on loopback only, on a port the browser picks itself
// (--remote-debugging-port=0) and writes to <profile>/DevToolsActivePort. An owner record in the profile
// lets a restarted server re-adopt (or clean up) the browser a previous server left running.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { isPidAlive } from '../../../core/pid.ts';
import { AppError } from '../../../core/errors.ts';

export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'] as const;

/** Flags every launch gets. The network-quietening ones matter on closed networks (no update/metrics floods). */
export const BASE_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-breakpad',
  '--disable-default-apps',
  '--metrics-recording-only',
  '--password-store=basic',
  '--window-size=1280,800',
] as const;

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  at: number;
}

const isExecutableFile = (p: string): boolean => {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export interface FindBrowserOptions {
  /** An explicit path (--browser-path / executablePath): used alone, never replaced by a search. */
  explicit?: string;
  env?: NodeJS.ProcessEnv;
  isExecutable?: (path: string) => boolean;
}

/** Where we look, in order: $SVC_BROWSER_PATH, /usr/bin/chromium, then the known names on PATH. */
export function browserCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  if (env.SVC_BROWSER_PATH) out.push(env.SVC_BROWSER_PATH);
  out.push('/usr/bin/chromium');
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d && isAbsolute(d));
  for (const name of BROWSER_NAMES) {
    for (const d of dirs) out.push(join(d, name));
    out.push(join('/usr/bin', name));
  }
  return [...new Set(out)];
}

/** The browser executable to launch, or a 503 BROWSER_NOT_FOUND saying how to get one. */
export function findBrowser(opts: FindBrowserOptions = {}): string {
  const env = opts.env ?? process.env;
  const ok = opts.isExecutable ?? isExecutableFile;
  if (opts.explicit) {
    const p = resolve(opts.explicit);
    if (ok(p)) return p;
    throw new AppError(503, 'BROWSER_NOT_FOUND', `The browser path ${p} is not an executable file. Fix the path or leave it out to use the system Chromium.`);
  }
  if (env.SVC_BROWSER_PATH && !ok(env.SVC_BROWSER_PATH)) {
    throw new AppError(503, 'BROWSER_NOT_FOUND', `SVC_BROWSER_PATH=${env.SVC_BROWSER_PATH} is not an executable file. Fix it or unset it to use the system Chromium.`);
  }
  for (const p of browserCandidates(env)) if (ok(p)) return p;
  throw new AppError(
    503,
    'BROWSER_NOT_FOUND',
    `No Chromium or Chrome found (looked for ${BROWSER_NAMES.join(', ')}). Install one (e.g. \`apt-get install chromium\`) or set SVC_BROWSER_PATH to its executable.`,
  );
}

export interface LaunchArgsOptions {
  profileDir: string;
  headless: boolean;
  noSandbox: boolean;
  extraArgs?: readonly string[];
}

export function buildLaunchArgs(o: LaunchArgsOptions): string[] {
  return [
    ...(o.headless ? ['--headless=new'] : []),
    ...(o.noSandbox ? ['--no-sandbox'] : []),
    ...BASE_ARGS,
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${o.profileDir}`,
    ...(o.extraArgs ?? []),
    'about:blank',
  ];
}

/** Parse <profile>/DevToolsActivePort: "<port>\n<browser ws path>". */
export function parseDevToolsActivePort(text: string): { port: number; path: string } | null {
  const [portLine, pathLine] = text.split('\n');
  const port = Number(portLine?.trim());
  const path = pathLine?.trim() ?? '';
  if (!Number.isInteger(port) || port <= 0 || port > 65535 || !path.startsWith('/devtools/browser/')) return null;
  return { port, path };
}

function readActivePort(profileDir: string): { port: number; path: string } | null {
  try {
    return parseDevToolsActivePort(readFileSync(join(profileDir, 'DevToolsActivePort'), 'utf8'));
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));


/** Command line of a live process (Linux /proc); undefined where it cannot be read. */
function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

function killTree(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal); // launched detached: the browser leads its own process group
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

const NOISE = /dbus|Fontconfig|unexpected operator|DevTools listening|^\s*$|ERROR:.*(bus\.cc|object_proxy|gpu|viz)/i;

export interface LaunchOptions {
  profileDir: string;
  headless: boolean;
  executablePath?: string;
  extraArgs?: readonly string[];
  /** Default: true when running as root (Chromium refuses the sandbox there) or SVC_BROWSER_NO_SANDBOX=1. */
  noSandbox?: boolean;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

interface OwnerRecord {
  pid: number;
  headless: boolean;
  executablePath: string;
  startedAt: number;
}

/** A browser process this server owns (launched, or re-adopted from a previous server). */
export class LaunchedBrowser {
  private exitInfo: ExitInfo | null = null;
  private readonly exitListeners: ((e: ExitInfo) => void)[] = [];
  private poll?: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    readonly port: number,
    readonly wsEndpoint: string,
    readonly executablePath: string,
    readonly profileDir: string,
    readonly headless: boolean,
    readonly adopted: boolean,
    child: ChildProcess | null,
    private readonly stderr: { tail: string },
  ) {
    if (child) {
      child.once('exit', (code, signal) => this.markExit(code, signal));
    } else {
      // Not our child (adopted): no exit event, so watch the pid.
      this.poll = setInterval(() => {
        if (!isPidAlive(this.pid)) this.markExit(null, null);
      }, 1000);
      this.poll.unref();
    }
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  isAlive(): boolean {
    return this.exitInfo === null && isPidAlive(this.pid);
  }

  onExit(cb: (e: ExitInfo) => void): void {
    if (this.exitInfo) cb(this.exitInfo);
    else this.exitListeners.push(cb);
  }

  stderrTail(): string {
    return cleanStderr(this.stderr.tail);
  }

  private markExit(code: number | null, signal: string | null): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, signal, at: Date.now() };
    if (this.poll) clearInterval(this.poll);
    // The browser's helpers (renderers, GPU, network service) share its process group; do not leave them
    // running (and writing into the profile) after the browser itself died.
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      /* group already empty */
    }
    removeOwnerRecord(this.profileDir, this.pid);
    for (const cb of this.exitListeners.splice(0)) cb(this.exitInfo);
  }

  /** Wait for the process to exit, up to ms. True if it did. */
  async waitExit(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (!this.isAlive()) {
        this.markExit(this.exitInfo?.code ?? null, this.exitInfo?.signal ?? null);
        return true;
      }
      await sleep(25);
    }
    return !this.isAlive();
  }

  /** Terminate the browser and its children: SIGTERM, then SIGKILL after graceMs. */
  async kill(graceMs = 3000): Promise<void> {
    if (!this.isAlive()) return;
    killTree(this.pid, 'SIGTERM');
    if (await this.waitExit(graceMs)) return;
    killTree(this.pid, 'SIGKILL');
    await this.waitExit(3000);
  }
}

function cleanStderr(s: string): string {
  return s
    .split('\n')
    .filter((l) => !NOISE.test(l))
    .slice(-12)
    .join('\n')
    .trim();
}

const ownerFile = (profileDir: string) => join(profileDir, 'svc-browser-owner.json');

function readOwnerRecord(profileDir: string): OwnerRecord | null {
  try {
    const r = JSON.parse(readFileSync(ownerFile(profileDir), 'utf8')) as OwnerRecord;
    return Number.isInteger(r.pid) ? r : null;
  } catch {
    return null;
  }
}

function removeOwnerRecord(profileDir: string, pid: number): void {
  const r = readOwnerRecord(profileDir);
  if (r && r.pid === pid) rmSync(ownerFile(profileDir), { force: true });
}

async function cdpAnswers(port: number, timeoutMs = 1500): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * A browser a previous server launched on this profile and left running: adopt it when it is ours
 * (its command line names this profile), alive, answering CDP and in the wanted mode; otherwise stop it,
 * since it would hold the profile lock and swallow our launch.
 */
async function reclaimProfile(o: LaunchOptions): Promise<LaunchedBrowser | null> {
  const rec = readOwnerRecord(o.profileDir);
  if (!rec) return null;
  const cmd = isPidAlive(rec.pid) ? cmdlineOf(rec.pid) : undefined;
  if (!cmd || !cmd.includes(`--user-data-dir=${o.profileDir}`)) {
    rmSync(ownerFile(o.profileDir), { force: true });
    return null;
  }
  const active = readActivePort(o.profileDir);
  if (active && rec.headless === o.headless && (await cdpAnswers(active.port))) {
    return new LaunchedBrowser(
      rec.pid,
      active.port,
      `ws://127.0.0.1:${active.port}${active.path}`,
      rec.executablePath,
      o.profileDir,
      rec.headless,
      true,
      null,
      { tail: '' },
    );
  }
  killTree(rec.pid, 'SIGTERM');
  for (let i = 0; i < 120 && isPidAlive(rec.pid); i++) await sleep(25);
  if (isPidAlive(rec.pid)) killTree(rec.pid, 'SIGKILL');
  rmSync(ownerFile(o.profileDir), { force: true });
  return null;
}

/** Launch (or re-adopt) a browser on the profile and wait until its DevTools endpoint is up. */
export async function launchBrowser(o: LaunchOptions): Promise<LaunchedBrowser> {
  const env = o.env ?? process.env;
  const exe = findBrowser({ explicit: o.executablePath, env });
  if (!o.headless && process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    throw new AppError(503, 'BROWSER_NO_DISPLAY', 'Headed mode needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set. Use headless mode, or run under a desktop session or xvfb-run.');
  }
  try {
    mkdirSync(o.profileDir, { recursive: true });
    writeFileSync(join(o.profileDir, '.svc-write-probe'), '');
    rmSync(join(o.profileDir, '.svc-write-probe'), { force: true });
  } catch (err) {
    throw new AppError(503, 'BROWSER_PROFILE_UNWRITABLE', `The browser profile directory ${o.profileDir} is not writable (${(err as Error).message}). Fix its permissions or use another --home.`);
  }
  const adopted = await reclaimProfile(o);
  if (adopted) return adopted;

  rmSync(join(o.profileDir, 'DevToolsActivePort'), { force: true });
  const noSandbox = o.noSandbox ?? (process.getuid?.() === 0 || env.SVC_BROWSER_NO_SANDBOX === '1');
  const args = buildLaunchArgs({ profileDir: o.profileDir, headless: o.headless, noSandbox, extraArgs: o.extraArgs });
  const child = spawn(exe, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
  const stderr = { tail: '' };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr.tail = (stderr.tail + d).slice(-8192);
  });
  let spawnError: Error | null = null;
  let early: ExitInfo | null = null;
  child.once('error', (e) => (spawnError = e));
  child.once('exit', (code, signal) => (early = { code, signal, at: Date.now() }));

  const timeoutMs = o.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError) throw new AppError(503, 'BROWSER_LAUNCH_FAILED', `Could not start ${exe}: ${(spawnError as Error).message}.`);
    if (early) {
      const e = early as ExitInfo;
      const tail = cleanStderr(stderr.tail);
      const hint = e.code === 0 ? ` Another browser may be using the profile ${o.profileDir}; close it or use another --home.` : '';
      throw new AppError(503, 'BROWSER_LAUNCH_FAILED', `${exe} exited during start-up (code ${e.code ?? 'none'}, signal ${e.signal ?? 'none'}).${hint}${tail ? ` Its last output: ${tail}` : ''}`);
    }
    const active = readActivePort(o.profileDir);
    if (active) {
      const b = new LaunchedBrowser(child.pid!, active.port, `ws://127.0.0.1:${active.port}${active.path}`, exe, o.profileDir, o.headless, false, child, stderr);
      child.unref();
      (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
      const rec: OwnerRecord = { pid: child.pid!, headless: o.headless, executablePath: exe, startedAt: Date.now() };
      writeFileSync(ownerFile(o.profileDir), JSON.stringify(rec));
      return b;
    }
    if (Date.now() > deadline) {
      killTree(child.pid!, 'SIGKILL');
      const tail = cleanStderr(stderr.tail);
      throw new AppError(503, 'BROWSER_LAUNCH_TIMEOUT', `${exe} did not open its DevTools endpoint within ${timeoutMs} ms.${tail ? ` Its last output: ${tail}` : ''}`);
    }
    await sleep(40);
  }
}

/** Validate and normalise a --cdp-url (http(s)://host:port or ws(s)://.../devtools/browser/...). */
export function normalizeCdpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.includes('://') ? raw : `http://${raw}`);
  } catch {
    throw new AppError(400, 'BAD_CDP_URL', `'${raw}' is not a CDP URL; use http://127.0.0.1:9222 or a ws://.../devtools/browser/... address.`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) {
    throw new AppError(400, 'BAD_CDP_URL', `'${raw}' is not a CDP URL; use http://127.0.0.1:9222 or a ws://.../devtools/browser/... address.`);
  }
  return u.toString().replace(/\/$/, '');
}
