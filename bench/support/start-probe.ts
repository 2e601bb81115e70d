// Measuring a start the way a user's machine runs it (bench/startup.ts): a clean environment, the
// executable itself, a light poller, and CPU time as well as wall time.
//
// - Environment: the parent's, less NODE_EXTRA_CA_CERTS and NODE_OPTIONS. Both make every Node process
//   do work at start (a CA bundle to load, flags to parse) that a user's machine does not, and both
//   sides paying it squeezes every ratio toward 1.
// - Server: polled with a raw node:http GET every POLL_MS on a fresh connection, not fetch() every
//   millisecond: the poller shares the machine's cores with the server it waits for.
// - CPU time of a server: at the first 200, the sum over the process tree (the process and its
//   descendants, each with all its threads) of the first field of /proc/<pid>/task/<tid>/schedstat,
//   the nanoseconds the thread has run on a CPU. It counts GC and compiler threads and does not count
//   the time the process waited for a core, so it stays steady on a busy machine where wall time does not.
// - CPU time of a command that exits: bash's `time` reports the user + system time of the command and
//   every descendant it waited for, from wait4()'s resource usage (kept by the kernel in nanoseconds,
//   printed to the millisecond), and the wall time from fork to reaping, without bash's own start.
//   A process that has exited has no /proc entry left to read, so schedstat cannot serve here.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { freePort } from '../../test/support/ports.ts';

export const POLL_MS = 5;

/** The parent's environment without what a user's machine does not set. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  return env;
}

export interface ServerSample {
  /** spawn → the first 200, ms */
  wallMs: number;
  /** CPU time of the process tree up to the first 200, ms */
  cpuMs: number;
  /** RSS of the process tree after it idled `idleMs`, MiB */
  rssMb: number;
  /** RSS of the process tree after it idled `settleMs` (when asked), MiB */
  settledRssMb?: number;
}

/**
 * Starts a server, measures its first 200 from `path`, its CPU time then and its RSS once idle (and, given
 * `settleMs`, once more after that long: V8 gives back the young generation a start grew when the process
 * has been idle for a while, about half a minute), stops it.
 */
export async function measureServerStart(
  start: (port: number) => { command: string; args: string[] },
  path: string,
  idleMs: number,
  settleMs?: number,
): Promise<ServerSample> {
  const port = await freePort();
  const { command, args } = start(port);
  const started = performance.now();
  const child = spawn(command, args, { stdio: 'ignore', env: cleanEnv() });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    for (;;) {
      if (gone) throw new Error(`${command} exited before ${path} answered`);
      if (performance.now() - started > 30_000) throw new Error(`${path} did not answer within 30 s`);
      if ((await getStatus(port, path)) === 200) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const wallMs = performance.now() - started;
    const cpuMs = treeCpuMs(child.pid!);
    await new Promise((r) => setTimeout(r, idleMs));
    const rssMb = treeRssMb(child.pid!);
    if (settleMs === undefined) return { wallMs, cpuMs, rssMb };
    await new Promise((r) => setTimeout(r, settleMs - idleMs));
    return { wallMs, cpuMs, rssMb, settledRssMb: treeRssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** One GET on a fresh connection; its status, or 0 when nothing listens yet. */
export function getStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.end();
  });
}

export interface CommandSample {
  wallMs: number;
  cpuMs: number;
}

/** Runs a command to its end under bash's `time` (it must exit with `exit`): its wall time and the CPU time of its process tree. */
export function measureCommand(command: string, args: string[], env: NodeJS.ProcessEnv = {}, exit = 0): CommandSample {
  const quoted = [command, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = spawnSync('bash', ['-c', `TIMEFORMAT='%3R %3U %3S'; time ${quoted} >/dev/null 2>&1; code=$?; echo "exit $code" >&2`], {
    encoding: 'utf8',
    env: cleanEnv(env),
    timeout: 30_000,
  });
  const times = /^(\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\s*$/m.exec(result.stderr);
  const code = Number(/^exit (\d+)$/m.exec(result.stderr)?.[1]);
  if (code !== exit || !times) throw new Error(`${command} ${args.join(' ')} exited ${code}, not ${exit}: ${result.stderr}`);
  const [real, user, sys] = times.slice(1).map(Number) as [number, number, number];
  return { wallMs: real * 1000, cpuMs: (user + sys) * 1000 };
}

/** The pids of a process and all its descendants (Linux /proc). */
function processTree(pid: number): number[] {
  const pids: number[] = [];
  const visit = (id: number) => {
    pids.push(id);
    try {
      for (const task of readdirSync(`/proc/${id}/task`)) {
        for (const child of readFileSync(`/proc/${id}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(child));
      }
    } catch {
      // it ended meanwhile
    }
  };
  visit(pid);
  return pids;
}

/** CPU time so far of a process tree, every thread of every process, in ms. */
export function treeCpuMs(pid: number): number {
  let ns = 0;
  for (const id of processTree(pid)) {
    try {
      for (const task of readdirSync(`/proc/${id}/task`)) {
        ns += Number(readFileSync(`/proc/${id}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      }
    } catch {
      // it ended meanwhile
    }
  }
  return ns / 1e6;
}

/** Resident memory of a process tree, in MiB. */
export function treeRssMb(pid: number): number {
  let kb = 0;
  for (const id of processTree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // it ended meanwhile
    }
  }
  return kb / 1024;
}
