// Start-up: time from process start to the first 200 from /api/health, and idle RSS, for
// `svc serve` (the built CLI, as a user runs it) beside a bare node:http server in the same run.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempHome } from '../test/support/server.ts';
import { isMain, nowMs, ratio, sleep, summarize } from './support/stats.ts';
import { freePort } from '../test/support/ports.ts';

const RUNS = 5;
const BIN = new URL('../bin/svc.js', import.meta.url).pathname;


async function timeToHealthy(args: (port: number) => string[], path: string): Promise<{ ms: number; rssMb: number }> {
  const port = await freePort();
  const started = nowMs();
  const child = spawn(process.execPath, args(port), { stdio: 'ignore' });
  let ms = NaN;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      if (response.status === 200) {
        ms = nowMs() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  await sleep(1000); // idle
  const status = await import('node:fs').then((fs) => fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { ms, rssMb: Math.round(rssKb / 1024) };
}

export async function benchStartup() {
  const bareScript = join(tempHome('svc-bench-'), 'bare.mjs');
  writeFileSync(bareScript, "import http from 'node:http'; http.createServer((q, r) => r.end('{}')).listen(Number(process.argv[2]), '127.0.0.1');");
  const svc: { ms: number; rssMb: number }[] = [];
  const bare: { ms: number; rssMb: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await timeToHealthy((port) => [bareScript, String(port)], '/'));
    svc.push(await timeToHealthy((port) => [BIN, 'serve', '--port', String(port), '--home', tempHome('svc-bench-')], '/api/health'));
  }
  const svcMs = summarize(svc.map((s) => s.ms), 1);
  const bareMs = summarize(bare.map((s) => s.ms), 1);
  return {
    runs: RUNS,
    svc: { firstHealthyMs: svcMs, idleRssMb: Math.max(...svc.map((s) => s.rssMb)) },
    bareNodeHttp: { firstHealthyMs: bareMs, idleRssMb: Math.max(...bare.map((s) => s.rssMb)) },
    ratio: { p50: ratio(svcMs.p50, bareMs.p50) },
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchStartup(), null, 2));
