// Start-up: `svc serve` as a user runs it (the built CLI) beside a bare node:http server, started
// alternately in the same run: process start → first 200 (from /api/health; from / for the bare
// one) and the RSS of the process tree 5 s later, medians of 12 runs each. Then the client commands
// (`svc status`, `svc token`, `svc --help`, `svc --version`) beside a bare `node -e ''`, the same way.
import { rmSync } from 'node:fs';
import { freePort } from '../test/support/ports.ts';
import { tempHome } from '../test/support/server.ts';
import { bareServerScript, median, svcCommand, timeCommand, timeServerStart, type StartSample } from '../test/support/startup.ts';
import { isMain, ratio } from './support/stats.ts';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 12);
const RSS_AFTER_MS = 5000;

const round = (x: number) => Number(x.toFixed(1));
const summary = (samples: StartSample[]) => ({
  firstOkMs: round(median(samples.map((s) => s.firstOkMs))),
  idleRssMb: round(median(samples.map((s) => s.rssMb))),
});

async function serverStarts() {
  const bareScript = bareServerScript();
  const bare: StartSample[] = [];
  const svc: StartSample[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await timeServerStart((port) => ({ command: process.execPath, args: [bareScript, String(port)] }), '/', RSS_AFTER_MS));
    const home = tempHome('svc-bench-');
    const proxyPort = await freePort();
    svc.push(await timeServerStart((port) => svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', String(proxyPort)]), '/api/health', RSS_AFTER_MS));
    rmSync(home, { recursive: true, force: true });
  }
  const s = summary(svc);
  const b = summary(bare);
  return { svc: s, bareNodeHttp: b, ratio: { firstOk: ratio(s.firstOkMs, b.firstOkMs), idleRss: ratio(s.idleRssMb, b.idleRssMb) } };
}

/** The client commands against a running svc, each beside `node -e ''` in turn. */
async function clientCommands() {
  const home = tempHome('svc-bench-');
  const port = await freePort();
  const server = svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', '0']);
  const { spawn } = await import('node:child_process');
  const child = spawn(server.command, server.args, { stdio: 'ignore' });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.ok).catch(() => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const env = { SVC_HOME: home, SVC_URL: '', SVC_PORT: '' };
    const commands: Record<string, string[]> = { status: ['status'], token: ['token'], help: ['--help'], version: ['--version'] };
    const times: Record<string, number[]> = { bareNode: [], ...Object.fromEntries(Object.keys(commands).map((k) => [k, []])) };
    for (let i = 0; i < RUNS; i++) {
      times.bareNode!.push(timeCommand(process.execPath, ['-e', '']));
      for (const [name, args] of Object.entries(commands)) {
        const { command, args: full } = svcCommand(args);
        times[name]!.push(timeCommand(command, full, env));
      }
    }
    const bareMs = median(times.bareNode!);
    return {
      bareNodeMs: round(bareMs),
      ...Object.fromEntries(Object.keys(commands).map((name) => [name, { ms: round(median(times[name]!)), ratio: ratio(median(times[name]!), bareMs) }])),
    };
  } finally {
    child.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}

export async function benchStartup() {
  return { runs: RUNS, rssAfterMs: RSS_AFTER_MS, serve: await serverStarts(), commands: await clientCommands() };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchStartup(), null, 2));
