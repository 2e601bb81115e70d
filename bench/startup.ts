// Start-up as a user's machine runs it (the method is in bench/support/start-probe.ts): `svc serve`
// through the executable, beside a bare node:http server, started alternately in one run: process start
// → first 200 (/api/health; / for the bare one), the CPU time of the process tree up to then, and its
// RSS after IDLE_MS idle. Each `svc serve` starts on a new data directory (the first start: migrations,
// token, keys), then once more on it (a later start, what a user's every day is). The first SETTLE_RUNS
// of each also wait SETTLE_MS for the RSS a server settles at. Then the client commands (`svc --help`,
// `svc --version`, `svc status` with no server and with one, `svc token`) beside a bare `node -e ''`,
// alternately too. Medians of RUNS each.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/ports.ts';
import { svcCommand } from '../test/support/startup.ts';
import { cleanEnv, getStatus, measureCommand, measureServerStart, type CommandSample, type ServerSample } from './support/start-probe.ts';
import { isMain, median, ratio, sleep } from './support/stats.ts';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 12);
const IDLE_MS = Number(process.env.BENCH_STARTUP_IDLE_MS ?? 1000);
const SETTLE_RUNS = Number(process.env.BENCH_STARTUP_SETTLE_RUNS ?? 3);
const SETTLE_MS = Number(process.env.BENCH_STARTUP_SETTLE_MS ?? 40_000);

const round = (x: number) => Number(x.toFixed(1));
const tempDir = () => mkdtempSync(join(tmpdir(), 'svc-bench-'));

function medians<T extends object>(samples: T[]): { [K in keyof T]: number } {
  const keys = Object.keys(samples[0]!) as (keyof T)[];
  return Object.fromEntries(keys.map((k) => [k, round(median(samples.map((s) => s[k] as number)))])) as { [K in keyof T]: number };
}

async function serverStarts() {
  const dir = tempDir();
  const bareScript = join(dir, 'bare.mjs');
  writeFileSync(bareScript, "import http from 'node:http'; http.createServer((q, r) => r.end('{}')).listen(Number(process.argv[2]), '127.0.0.1');");
  const bare: ServerSample[] = [];
  const first: ServerSample[] = [];
  const later: ServerSample[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const settle = i < SETTLE_RUNS ? SETTLE_MS : undefined;
      bare.push(await measureServerStart((port) => ({ command: process.execPath, args: [bareScript, String(port)] }), '/', IDLE_MS, settle));
      const home = join(dir, `home-${i}`);
      const serve = async (settleMs?: number) => {
        const proxyPort = await freePort();
        return measureServerStart((port) => svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', String(proxyPort)]), '/api/health', IDLE_MS, settleMs);
      };
      first.push(await serve(settle));
      later.push(await serve());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const b = medians(bare.map(({ settledRssMb: _, ...rest }) => rest));
  const settled = (samples: ServerSample[]) => round(median(samples.flatMap((x) => (x.settledRssMb === undefined ? [] : [x.settledRssMb]))));
  const startOf = (samples: ServerSample[]) => {
    const m = medians(samples.map(({ settledRssMb: _, ...rest }) => rest));
    return { ...m, ratio: { firstOk: ratio(m.wallMs, b.wallMs), cpu: ratio(m.cpuMs, b.cpuMs), idleRss: ratio(m.rssMb, b.rssMb) } };
  };
  const settledSvc = settled(first);
  const settledBare = settled(bare);
  return {
    bareNodeHttp: { ...b, settledRssMb: settledBare },
    firstStart: startOf(first),
    laterStart: startOf(later),
    settledRss: { svcMb: settledSvc, bareMb: settledBare, ratio: ratio(settledSvc, settledBare), afterMs: SETTLE_MS, runs: Math.min(SETTLE_RUNS, RUNS) },
  };
}

/** The client commands, each beside `node -e ''` in turn; `status` both with no server and against one. */
async function clientCommands() {
  const noServerHome = tempDir();
  const home = tempDir();
  const port = await freePort();
  const server = svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', '0']);
  const { spawn } = await import('node:child_process');
  const child = spawn(server.command, server.args, { stdio: 'ignore', env: cleanEnv() });
  try {
    while ((await getStatus(port, '/api/health')) !== 200) await sleep(20);
    // a free port nobody listens on: `svc status` finds no server (it exits 1 then)
    const noServer = { SVC_HOME: noServerHome, SVC_URL: '', SVC_PORT: String(await freePort()) };
    const withServer = { SVC_HOME: home, SVC_URL: '', SVC_PORT: '' };
    const commands: Record<string, { args: string[]; env: NodeJS.ProcessEnv; exit?: number }> = {
      help: { args: ['--help'], env: noServer },
      version: { args: ['--version'], env: noServer },
      statusNoServer: { args: ['status'], env: noServer, exit: 1 },
      statusWithServer: { args: ['status'], env: withServer },
      token: { args: ['token'], env: withServer },
    };
    const samples: Record<string, CommandSample[]> = { bareNode: [], ...Object.fromEntries(Object.keys(commands).map((k) => [k, []])) };
    for (let i = 0; i < RUNS; i++) {
      for (const [name, { args, env, exit }] of Object.entries(commands)) {
        samples.bareNode!.push(measureCommand(process.execPath, ['-e', ''], env));
        const { command, args: full } = svcCommand(args);
        samples[name]!.push(measureCommand(command, full, env, exit));
      }
    }
    const bare = medians(samples.bareNode!);
    return {
      bareNode: bare,
      ...Object.fromEntries(
        Object.keys(commands).map((name) => {
          const m = medians(samples[name]!);
          return [name, { ...m, ratio: { wall: ratio(m.wallMs, bare.wallMs), cpu: ratio(m.cpuMs, bare.cpuMs) } }];
        }),
      ),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
    rmSync(noServerHome, { recursive: true, force: true });
  }
}

export async function benchStartup() {
  return {
    method: 'clean env (no NODE_EXTRA_CA_CERTS/NODE_OPTIONS), bin/svc.js as installed, raw node:http poll every 5 ms, alternating with the baseline; CPU = schedstat of the process tree at the first 200 (servers), wait4 rusage via bash time (commands)',
    runs: RUNS,
    idleMs: IDLE_MS,
    serve: await serverStarts(),
    commands: await clientCommands(),
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchStartup(), null, 2));
