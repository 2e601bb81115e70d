// SSE fan-out: 256 clients (in one separate client process), N events published at a steady rate.
// Measures publish→receive latency and delivered events/s for svc's /api/events, and for a bare
// node:http server writing the same frames to the same number of clients in the same run.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { createApp } from '../src/app.ts';
import { tempHome } from '../test/support/server.ts';
import { isMain, nowMs, ratio, sleep } from './support/stats.ts';

const CLIENTS = 256;
const EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 1000);
const RATE_PER_SEC = 200;

interface ClientResult { delivered: number; dropped: number; latencyMs: { p50: number; p99: number; max: number }; deliveredPerSec?: number }

async function runClients(url: string, publish: (i: number) => void): Promise<ClientResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./support/sse-clients.ts', import.meta.url).pathname, url, String(CLIENTS), String(EVENTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const messages = lines[Symbol.asyncIterator]();
  const ready = JSON.parse((await messages.next()).value as string);
  if (!ready.ready) throw new Error('clients not ready');
  await sleep(200);
  const interval = 1000 / RATE_PER_SEC;
  const start = nowMs();
  for (let i = 0; i < EVENTS; i++) {
    const due = start + i * interval;
    const wait = due - nowMs();
    if (wait > 1) await sleep(wait);
    publish(i);
  }
  const result = JSON.parse((await messages.next()).value as string) as ClientResult;
  child.kill();
  return result;
}

async function svcSide(): Promise<ClientResult & { serverRssMb: number }> {
  const app = await createApp({ home: tempHome('svc-bench-'), logLevel: 'silent' });
  const address = await app.listen(0, '127.0.0.1');
  let rss = 0;
  const result = await runClients(`${address}/api/events`, (i) => {
    app.context.bus.publish('orchestrate_done', { sentAt: nowMs(), seq: i, text: 'benchmark event payload of a typical size' });
    if (i === EVENTS - 1) rss = process.memoryUsage().rss;
  });
  await app.close();
  return { ...result, serverRssMb: Math.round(rss / 1048576) };
}

async function bareSide(): Promise<ClientResult> {
  const responses = new Set<http.ServerResponse>();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    responses.add(res);
    res.on('close', () => responses.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const result = await runClients(`http://127.0.0.1:${port}/`, (i) => {
    const frame = `id: x-${i}\ndata: ${JSON.stringify({ eventId: `x-${i}`, topic: 'orchestrate', event: 'orchestrate_done', ts: Date.now(), sentAt: nowMs(), seq: i, text: 'benchmark event payload of a typical size' })}\n\n`;
    for (const res of responses) res.write(frame);
  });
  for (const res of responses) res.end();
  server.close();
  return result;
}

export async function benchSseFanout() {
  const bare = await bareSide();
  const svc = await svcSide();
  return {
    clients: CLIENTS,
    events: EVENTS,
    ratePerSec: RATE_PER_SEC,
    svc,
    bareNodeHttp: bare,
    ratio: { p50: ratio(svc.latencyMs.p50, bare.latencyMs.p50), p99: ratio(svc.latencyMs.p99, bare.latencyMs.p99) },
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchSseFanout(), null, 2));
