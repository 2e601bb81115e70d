// The lingering close (src/http/lingering-close.ts) over a real socket: a body refused before it was read
// still gets its answer and a clean close, and a kept-alive connection keeps nothing of the requests it
// carried once they are answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Agent, request, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Requests the server received that are still alive, counted by a FinalizationRegistry. */
function trackRequests(): { alive(): Promise<number>; stop(): void } {
  let received = 0;
  let collected = 0;
  const registry = new FinalizationRegistry(() => collected++);
  const onRequest = (req: IncomingMessage) => {
    received++;
    registry.register(req, null);
  };
  server.app.http.server.on('request', onRequest);
  return {
    async alive() {
      // finalizers run as tasks some time after a collection (later on a loaded machine): collect until the count
      // has not moved for three rounds in a row (one still round was not enough: a loaded run saw 0 of 2,000 collected)
      let still = 0;
      for (let round = 0; round < 50 && still < 3; round++) {
        const before = collected;
        gc();
        await new Promise((resolve) => setTimeout(resolve, 50));
        still = collected === before ? still + 1 : 0;
      }
      return received - collected;
    },
    stop: () => server.app.http.server.off('request', onRequest),
  };
}

const postOn = (agent: Agent, path: string, body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });

test('a kept-alive connection keeps none of the requests it carried: 2,000 bodies, then a GC, leave (almost) no request alive', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const tracked = trackRequests();
  try {
    const statuses = new Set<number>();
    let connections = 0;
    const onConnection = () => connections++;
    server.app.http.server.on('connection', onConnection);
    for (let i = 0; i < 2000; i++) {
      // a body on a route that reads it (400: the title is a number) and one the router never finds (404)
      statuses.add(await postOn(agent, i % 2 ? '/api/chat-sessions' : '/api/no-such-route', JSON.stringify({ title: i })));
    }
    server.app.http.server.off('connection', onConnection);
    assert.deepEqual([...statuses].sort(), [400, 404]);
    // the connection is still open: before the fix, its socket held every request that had a body
    assert.equal(connections, 1, 'one kept-alive connection');
    const alive = await tracked.alive();
    assert.ok(alive <= 5, `${alive} of 2,000 requests are still alive after a GC with their connection open`);
  } finally {
    tracked.stop();
    agent.destroy();
  }
});

/** Writes `head`, then `bodyBytes` of body in chunks while reading the answer; resolves at the close. */
function sendRaw(socket: Socket, head: string, bodyBytes: number): Promise<{ text: string; error?: string }> {
  return new Promise((resolve) => {
    let text = '';
    let error: string | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => resolve({ text, error }));
    socket.write(head);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < bodyBytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

test('a body refused before it is read (413), on a connection that served 10,000 requests: the answer arrives whole and the connection closes cleanly, no EPIPE or reset', async () => {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  // 10,000 requests with bodies, pipelined 500 at a time, each answered before the next batch
  const small = `POST /api/chat-sessions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"title":1}\n`;
  let answered = 0;
  let pending = '';
  const onData = (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    answered += pending.split('HTTP/1.1 400 ').length - 1;
    pending = pending.slice(pending.lastIndexOf('HTTP/1.1 400 ') + 1);
  };
  socket.on('data', onData);
  for (let batch = 0; batch < 20; batch++) {
    socket.write(small.repeat(500));
    const target = (batch + 1) * 500;
    while (answered < target) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.off('data', onData);
  assert.equal(answered, 10_000);
  // then 8 MiB against the 1 MiB limit: Fastify refuses it from Content-Length, before reading a byte of it
  const body = 8 * 1024 * 1024;
  const answer = await sendRaw(socket, `POST /api/chat-sessions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${body}\r\n\r\n`, body);
  assert.equal(answer.error, undefined, `the client's connection failed: ${answer.error}`);
  assert.match(answer.text, /^HTTP\/1\.1 413 /);
  assert.match(answer.text, /connection: close/i);
  assert.match(answer.text, /"error":"PAYLOAD_TOO_LARGE"/);
  // and the server goes on serving
  const agent = new Agent({ keepAlive: false });
  assert.equal(await postOn(agent, '/api/chat-sessions', '{"title":2}'), 400);
});
