// Server process of the fan-out benchmark (bench/fanout.ts). `svc` mode runs the real app and its
// clients use /api/events or /ws; `bare` mode is a plain node:http server writing the same SSE
// frames, or a `ws` server broadcasting the same JSON to every client. On {publish, rate} over IPC
// it publishes that many events at a steady rate (stamping each with its send time) and answers
// with its RSS.
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { createCoreServer } from '../../src/servers/core.ts';
import { tempHome } from '../../test/support/server.ts';
import { nowMs, sleep } from './stats.ts';

const mode = process.argv[2] as 'svc' | 'bare';
const transport = (process.argv[3] ?? 'sse') as 'sse' | 'ws';
const payload = (i: number) => ({ sentAt: nowMs(), seq: i, text: 'benchmark event payload of a typical size' });

async function start(): Promise<{ url: string; publish: (i: number) => void }> {
  if (mode === 'svc') {
    const app = await createCoreServer({ home: tempHome('svc-bench-'), logLevel: 'silent' });
    const address = await app.listen(0, '127.0.0.1');
    const url = transport === 'sse' ? `${address}/api/events` : `${address.replace(/^http/, 'ws')}/ws`;
    return { url, publish: (i) => app.services.bus.publish('orchestrate_done', payload(i)) };
  }
  if (transport === 'ws') {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', r));
    const { port } = wss.address() as { port: number };
    return {
      url: `ws://127.0.0.1:${port}/`,
      publish: (i) => {
        const text = JSON.stringify({ eventId: `x-${i}`, topic: 'orchestrate', event: 'orchestrate_done', ts: Date.now(), ...payload(i) });
        for (const client of wss.clients) client.send(text);
      },
    };
  }
  const responses = new Set<http.ServerResponse>();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 1000\n\n'); // flushes the headers, as svc does
    responses.add(res);
    res.on('close', () => responses.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    publish: (i) => {
      const id = `x-${i}`;
      const frame = `id: ${id}\ndata: ${JSON.stringify({ eventId: id, topic: 'orchestrate', event: 'orchestrate_done', ts: Date.now(), ...payload(i) })}\n\n`;
      for (const res of responses) res.write(frame);
    },
  };
}

const { url, publish } = await start();
process.send!({ url });
process.on('message', async (message: { publish: number; rate: number }) => {
  const interval = 1000 / message.rate;
  const begin = nowMs();
  for (let i = 0; i < message.publish; i++) {
    const wait = begin + i * interval - nowMs();
    if (wait > 1) await sleep(wait);
    publish(i);
  }
  process.send!({ rssMb: Math.round(process.memoryUsage().rss / 1048576) });
});
