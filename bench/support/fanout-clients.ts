// Client process of the fan-out benchmark: opens N SSE or WebSocket connections, reports "ready",
// then records publish→receive latency of every event on every connection until it has `expected`
// events per connection, and prints a JSON summary.
import http from 'node:http';
import WebSocket from 'ws';
import { nowMs, summarize } from './stats.ts';

const [transport, url, clientsArg, expectedArg] = process.argv.slice(2);
const clients = Number(clientsArg);
const expected = Number(expectedArg);
const latencies: number[] = [];
let completed = 0;
let first = Infinity;
let last = 0;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** One event arrived on a connection; counts the connection complete at `expected` events. */
function received(now: number, sentAt: number | undefined, count: () => number): void {
  if (sentAt === undefined) return;
  latencies.push(now - sentAt);
  first = Math.min(first, now);
  last = Math.max(last, now);
  if (count() === expected && ++completed === clients) finish();
}

function connectWs(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url!);
    let count = 0;
    socket.on('message', (data) => {
      const now = nowMs();
      received(now, (JSON.parse(String(data)) as { sentAt?: number }).sentAt, () => ++count);
    });
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

function connect(): Promise<void> {
  if (transport === 'ws') return connectWs();
  return new Promise((resolve, reject) => {
    http.get(url!, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      let count = 0;
      res.on('data', (chunk: string) => {
        const now = nowMs();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          received(now, JSON.parse(data.slice(6)).sentAt as number | undefined, () => ++count);
        }
      });
      resolve();
    }).on('error', reject);
  });
}

function finish(): void {
  const delivered = latencies.length;
  console.log(JSON.stringify({ done: true, delivered, dropped: clients * expected - delivered, latencyMs: summarize(latencies), deliveredPerSec: Math.round(delivered / ((last - first) / 1000)) }));
  process.exit(0);
}

for (let i = 0; i < clients; i++) await connect();
console.log(JSON.stringify({ ready: true }));
setTimeout(() => {
  console.log(JSON.stringify({ done: false, delivered: latencies.length, dropped: clients * expected - latencies.length, latencyMs: summarize(latencies) }));
  process.exit(0);
}, 120_000).unref();
