// Measuring a start, for the start-up benchmark (bench/startup.ts): `svc serve` as a user runs it beside
// a bare node:http server, and the svc client commands beside a bare `node -e ''`, alternately in one run
// so both see the same machine. test/cli/startup.test.ts runs `svc` the same way (svcCommand), untimed.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { tempHome } from './server.ts';

export const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

/** The floor: a bare node:http server answering 200 to everything. */
export function bareServerScript(): string {
  const file = join(tempHome('svc-bare-'), 'bare.mjs');
  writeFileSync(file, "import http from 'node:http'; http.createServer((q, r) => r.end('{}')).listen(Number(process.argv[2]), '127.0.0.1');");
  return file;
}

/**
 * `svc` as a user runs it: the executable itself (its shebang line carries its node flags), except
 * on Windows, which has no shebang.
 */
export function svcCommand(args: string[]): { command: string; args: string[] } {
  return process.platform === 'win32' ? { command: process.execPath, args: [BIN, ...args] } : { command: BIN, args };
}

export interface StartSample {
  /** Process start to the first 200 from `path`. */
  firstOkMs: number;
  /** RSS of the process and its children `rssAfterMs` after that 200 (Linux; else NaN). */
  rssMb: number;
}

/** Starts a server, times its first 200, optionally samples the memory of its process tree, stops it. */
export async function timeServerStart(
  start: (port: number) => { command: string; args: string[] },
  path: string,
  rssAfterMs = 0,
): Promise<StartSample> {
  const port = await freePort();
  const { command, args } = start(port);
  const started = performance.now();
  const child = spawn(command, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const firstOkMs = await firstOk(`http://127.0.0.1:${port}${path}`, started, exited);
    let rssMb = NaN;
    if (rssAfterMs > 0) {
      await new Promise((r) => setTimeout(r, rssAfterMs));
      rssMb = treeRssMb(child.pid!);
    }
    return { firstOkMs, rssMb };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function firstOk(url: string, started: number, exited: Promise<unknown>): Promise<number> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`the server exited before ${url} answered`);
    if (performance.now() - started > 30_000) throw new Error(`${url} did not answer within 30 s`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Resident memory of a process and all its descendants, in MiB (Linux /proc). */
export function treeRssMb(pid: number): number {
  if (process.platform !== 'linux') return NaN;
  let kb = 0;
  const visit = (id: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${id}/task`)) {
        for (const child of readFileSync(`/proc/${id}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(child));
      }
    } catch {
      // it ended meanwhile
    }
  };
  visit(pid);
  return kb / 1024;
}

/** Wall time of one short command, in ms. */
export function timeCommand(command: string, args: string[], env?: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: 'ignore', env: env ? { ...process.env, ...env } : process.env, timeout: 30_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return performance.now() - started;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
