// Event fan-out: 256 clients (one client process), N events published at a steady rate by a server
// process. Measures publish→receive latency, delivered events/s and server RSS for svc's
// /api/events (SSE) or /ws (the WebSocket fallback), and for a bare server writing the same frames
// in the same run: node:http for SSE, a `ws` broadcast for WebSocket.
// `node --import tsx bench/fanout.ts sse|ws`; run.ts runs both as sse-fanout and ws-fanout.
import { spawn, type ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import { createInterface } from 'node:readline';
import { isMain, ratio, sleep } from './support/stats.ts';

export type Transport = 'sse' | 'ws';

const CLIENTS = 256;
const EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 1000);
const RATE_PER_SEC = 200;
const OUT = new URL('../node_modules/.cache/svc-bench/', import.meta.url).pathname;

/**
 * Both processes run as plain JavaScript bundles (no TypeScript loader in them), so the server's RSS
 * is the server's, as it would be under `svc serve`.
 */
async function compiled(name: string): Promise<string> {
  const outfile = `${OUT}${name.replace(/\.ts$/, '.mjs')}`;
  await build({
    entryPoints: [new URL(`./support/${name}`, import.meta.url).pathname],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

interface ClientResult { delivered: number; dropped: number; latencyMs: { p50: number; p99: number; max: number }; deliveredPerSec?: number }

const nextMessage = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));

async function side(transport: Transport, mode: 'svc' | 'bare'): Promise<ClientResult & { serverRssMb: number }> {
  const server = spawn(process.execPath, [await compiled('fanout-server.ts'), mode, transport], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await nextMessage<{ url: string }>(server);
  const clients = spawn(process.execPath, [await compiled('fanout-clients.ts'), transport, url, String(CLIENTS), String(EVENTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: clients.stdout! })[Symbol.asyncIterator]();
  if (!JSON.parse((await lines.next()).value as string).ready) throw new Error('clients not ready');
  await sleep(300);
  server.send({ publish: EVENTS, rate: RATE_PER_SEC });
  const { rssMb } = await nextMessage<{ rssMb: number }>(server);
  const result = JSON.parse((await lines.next()).value as string) as ClientResult;
  clients.kill();
  server.kill();
  return { ...result, serverRssMb: rssMb };
}

export async function benchFanout(transport: Transport) {
  // bare, svc, bare, svc: each side's second run counts, so neither gets the cold machine
  await side(transport, 'bare');
  await side(transport, 'svc');
  const bare = await side(transport, 'bare');
  const svc = await side(transport, 'svc');
  return {
    transport,
    clients: CLIENTS,
    events: EVENTS,
    ratePerSec: RATE_PER_SEC,
    svc,
    [transport === 'sse' ? 'bareNodeHttp' : 'bareWs']: bare,
    ratio: { p50: ratio(svc.latencyMs.p50, bare.latencyMs.p50), p99: ratio(svc.latencyMs.p99, bare.latencyMs.p99) },
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchFanout((process.argv[2] as Transport) ?? 'sse'), null, 2));
