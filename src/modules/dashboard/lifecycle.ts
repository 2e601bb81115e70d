// Starting and stopping the instances the manager owns: each in its own home, on a free port, as a
// detached `svc serve` that outlives the manager. A marker in the home (pid, port, token) is how the
// manager recognises its own instances after it restarts; it never signals a process it cannot
// match to its marker.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isPidAlive } from '../../core/pid.ts';
import { AppError } from '../../core/errors.ts';
import { homePaths } from '../../core/home.ts';
import { loadOrCreateToken } from '../../core/token.ts';
import type { ServerTls } from '../../core/tls.ts';
import { probeHealth } from './instance-client.ts';

export const MARKER_FILE = 'dashboard-managed.json';

export interface Marker {
  managedBy: 'svc-dashboard';
  instanceId: string;
  pid: number;
  port: number;
  token: string;
  startedAt: number;
}

export function readMarker(home: string): Marker | undefined {
  try {
    const m = JSON.parse(readFileSync(join(home, MARKER_FILE), 'utf8')) as Marker;
    return m.managedBy === 'svc-dashboard' && Number.isInteger(m.pid) ? m : undefined;
  } catch {
    return undefined;
  }
}


/**
 * Whether `pid` is the `svc serve` the manager started on `home`: alive, and, where the system shows a
 * process's arguments (Linux's /proc), started with `--home <home>`. A dead instance's pid is only a
 * number: the system gives it to another process sooner or later (in a container, after a reboot, at
 * once), and that process is never taken, or signalled, for the instance. A zombie shows no arguments.
 */
export function isInstanceProcess(pid: number, home: string): boolean {
  if (!isPidAlive(pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // no /proc here (macOS, Windows): a live pid that the marker names is all there is to go on
    return !existsSync('/proc/self/cmdline');
  }
  const args = cmdline.split('\0');
  const at = args.indexOf('--home');
  return at >= 0 && args[at + 1] === home;
}

/** A port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Launched {
  pid: number;
  port: number;
  url: string;
  token: string;
}

/**
 * Starts `svc serve` on `home` and waits until it answers. The token is made before the start (the
 * instance reads it from its home), so the manager holds it without asking the instance.
 */
export async function launchInstance(opts: { instanceId: string; home: string; port: number; command: readonly string[]; timeoutMs?: number; tls?: ServerTls }): Promise<Launched> {
  mkdirSync(opts.home, { recursive: true, mode: 0o700 });
  const token = loadOrCreateToken(homePaths(opts.home).token);
  const log = openSync(join(opts.home, 'dashboard-instance.log'), 'a');
  const [bin, ...args] = opts.command;
  // HTTPS or not is the manager's decision, said on the command line: never inherited from its environment
  const { SVC_TLS_CERT: _cert, SVC_TLS_KEY: _key, ...env } = process.env;
  const tlsArgs = opts.tls ? ['--tls-cert', opts.tls.certFile, '--tls-key', opts.tls.keyFile] : [];
  const child = spawn(bin!, [...args, 'serve', '--home', opts.home, '--port', String(opts.port), '--proxy-port', '0', ...tlsArgs], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...env, SVC_HOME: opts.home },
  });
  closeSync(log);
  child.unref();
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  child.once('error', (err) => (exited = err.message));
  const pid = child.pid;
  if (!pid) throw new AppError(500, 'INSTANCE_START_FAILED', `Could not start ${bin}: ${exited ?? 'no process'}.`);
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${opts.port}`;
  const marker: Marker = { managedBy: 'svc-dashboard', instanceId: opts.instanceId, pid, port: opts.port, token, startedAt: Date.now() };
  writeFileSync(join(opts.home, MARKER_FILE), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited) break;
    if (await probeHealth(url, 500, opts.tls?.fingerprint)) return { pid, port: opts.port, url, token };
    await new Promise((r) => setTimeout(r, 150));
  }
  if (!exited) process.kill(-pid, 'SIGKILL');
  rmSync(join(opts.home, MARKER_FILE), { force: true });
  throw new AppError(500, 'INSTANCE_START_FAILED', `The instance on port ${opts.port} did not start (${exited ?? 'no answer in time'}); see ${join(opts.home, 'dashboard-instance.log')}.`);
}

/**
 * Stops the process of a marker (SIGTERM, then SIGKILL after the grace time) and removes the marker;
 * a pid that is no longer the instance's (isInstanceProcess) is left alone.
 */
export async function stopMarked(home: string, graceMs = 10_000): Promise<void> {
  const marker = readMarker(home);
  if (marker && isInstanceProcess(marker.pid, home)) {
    process.kill(marker.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (isInstanceProcess(marker.pid, home) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isInstanceProcess(marker.pid, home)) process.kill(marker.pid, 'SIGKILL');
  }
  rmSync(join(home, MARKER_FILE), { force: true });
}
