// The hub's nats-server: found on PATH (or in /usr/sbin, where Debian puts it), started with the config the hub
// renders, told to reload it (SIGHUP) when the machines change, and started again (1 s, 2 s … 30 s apart) if it
// exits on its own. Its log comes on its stderr and goes to svc's own rotated log file (core/log-file.ts: 5 MiB,
// three before it kept), not to a file of nats-server's, which grew without bound (nats-server 2.9, Debian's, keeps
// every file it rotates).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { createInterface } from 'node:readline';
import { findOnPath } from '../../core/executable.ts';
import { LogFile } from '../../core/log-file.ts';
import { reachableHost } from './nats-config.ts';
import { onInfo } from './nats-info.ts';

export const NATS_INSTALL_HINT =
  'nats-server was not found on PATH or in /usr/sbin: install it (Debian/Ubuntu: `sudo apt-get install nats-server`; macOS: `brew install nats-server`; or the release from https://github.com/nats-io/nats-server/releases) and start the dashboard again';

/** Where nats-server is looked for after PATH: Debian installs it in /usr/sbin, which is not on a user's PATH. */
export const NATS_SERVER_DIRS = '/usr/sbin:/usr/local/sbin';

/** nats-server on PATH, then in `dirs`. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env, dirs = NATS_SERVER_DIRS): string | null {
  return findOnPath('nats-server', env) ?? findOnPath('nats-server', { PATH: dirs });
}

export type NatsServerState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface NatsServerOptions {
  binary: string;
  configFile: string;
  /** Where nats-server's log is kept (JSON lines, rotated by size). */
  logFile: string;
  host: string;
  port: number;
  /** The server_name its config gives it (see waitForOwnServer). */
  serverName: string;
  /** Told of every state change, with the reason of an exit. */
  onState?: (state: NatsServerState, reason?: string) => void;
  maxBackoffMs?: number;
}

const READY_TIMEOUT_MS = 15_000;
/** How long a reload may take to show in the log before the hub goes on anyway (it takes a few ms). */
const RELOAD_WAIT_MS = 2_000;

/** nats-server's level tags, as svc's log names them. */
const LEVELS: Record<string, string> = { INF: 'info', WRN: 'warn', ERR: 'error', FTL: 'error', DBG: 'debug', TRC: 'debug' };

/** A line of nats-server's log (`[pid] [INF] Server is ready`, a date after the pid with logtime on): its level and text. */
export function parseNatsLogLine(line: string): { level: string; message: string } {
  const m = /^\[\d+\] (?:[\d/]+ [\d:.]+ )?\[([A-Z]{3})\] (.*)$/.exec(line);
  return m ? { level: LEVELS[m[1]!] ?? 'info', message: m[2]! } : { level: 'info', message: line };
}

/** The server_name of the NATS server answering on host:port (its INFO line), or undefined when none answers. */
function serverNameAt(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (name: string | undefined) => {
      socket.destroy();
      resolve(name);
    };
    socket.setTimeout(2_000, () => done(undefined));
    socket.once('error', () => done(undefined));
    onInfo(socket, (info) => done(typeof info?.server_name === 'string' ? info.server_name : undefined));
  });
}

/**
 * Resolves once the server we started answers on host:port (~100 ms): its INFO names it. Another program that holds
 * the port is not taken for it; our server then exits (the port is in use) and the error says so.
 */
async function waitForOwnServer(o: { host: string; port: number; serverName: string }, alive: () => boolean, why: () => string): Promise<void> {
  const end = Date.now() + READY_TIMEOUT_MS;
  const target = reachableHost(o.host);
  while (Date.now() < end) {
    if (!alive()) throw new Error(`nats-server exited while starting: ${why()}`);
    if ((await serverNameAt(target, o.port)) === o.serverName) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not answer on ${o.host}:${o.port} within ${READY_TIMEOUT_MS / 1000} s: ${why()}`);
}

export class NatsServerProcess {
  private child?: ChildProcess;
  private stopping = false;
  private restartTimer?: NodeJS.Timeout;
  private failures = 0;
  private log?: LogFile;
  /** The last line it logged: an exit's reason (a port in use, a bad certificate…). */
  private lastLine?: string;
  /** Told of each line it logs (a reload waiting for its confirmation). */
  private readonly lineWatchers = new Set<(message: string) => void>();
  state: NatsServerState = 'stopped';

  constructor(private readonly options: NatsServerOptions) {}

  /** Writes the config and starts the server; resolves when it listens. */
  async start(config: string): Promise<void> {
    this.stopping = false;
    writeFileSync(this.options.configFile, config, { mode: 0o600 });
    await this.spawn();
  }

  /**
   * Writes the new config and has the running server read it again (users added or removed); resolves once its
   * log says it did (a joined machine's key works from then on), or after RELOAD_WAIT_MS.
   */
  async reload(config: string): Promise<void> {
    writeFileSync(this.options.configFile, config, { mode: 0o600 });
    if (this.child?.exitCode !== null || !this.child) return;
    let watcher: ((message: string) => void) | undefined;
    const reloaded = new Promise<void>((resolve) => {
      watcher = (message) => void (message.includes('Reloaded server configuration') && resolve());
      this.lineWatchers.add(watcher);
    });
    this.child.kill('SIGHUP');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([reloaded, new Promise((r) => (timer = setTimeout(r, RELOAD_WAIT_MS)))]);
    clearTimeout(timer);
    this.lineWatchers.delete(watcher!);
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    this.log?.close();
    this.log = undefined;
    this.setState('stopped');
  }

  private setState(state: NatsServerState, reason?: string): void {
    this.state = state;
    this.options.onState?.(state, reason);
  }

  private async spawn(): Promise<void> {
    this.setState(this.failures ? 'restarting' : 'starting');
    const child = spawn(this.options.binary, ['-c', this.options.configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.log ??= new LogFile({ path: this.options.logFile });
    const log = this.log;
    this.lastLine = undefined;
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (line) => {
      const { level, message } = parseNatsLogLine(line);
      // a line that comes after stop() closed the log is dropped
      if (this.log === log) log.write(level, message);
      this.lastLine = message;
      for (const watcher of this.lineWatchers) watcher(message);
    });
    const why = () => this.lastLine ?? `see ${this.options.logFile}`;
    child.once('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.failures++;
      const reason = `nats-server exited (${signal ?? `code ${code}`}): ${why()}`;
      this.setState('restarting', reason);
      const delay = Math.min(1000 * 2 ** (this.failures - 1), this.options.maxBackoffMs ?? 30_000);
      this.restartTimer = setTimeout(() => void this.spawn().catch(() => undefined), delay);
    });
    child.once('error', () => undefined); // an exit follows
    await waitForOwnServer(this.options, () => child.exitCode === null && child.signalCode === null, why);
    this.failures = 0;
    this.setState('running');
  }
}
