// The fleet's tunnel (src/modules/fleet/tunnel.ts) without NATS: two tables wired to each other by a link that
// delivers frames in order, later (as NATS does), and can drop them. Bytes arrive whole and in order, a slow reader
// holds the writer to the window, a lost frame ends the stream with an error (never a gap), and node:http runs over it
// both ways (a server given the tunnel as a connection, a client given it by createConnection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import fc from 'fast-check';
import { CHUNK_BYTES, decodeFrame, encodeFrame, FRAME, TunnelTable, WINDOW_BYTES, type TunnelStream } from '../../../src/modules/fleet/tunnel.ts';

/**
 * Two ends of one link, as NATS carries it: in order, later. `drop(n)` loses the n-th frame sent from a to b, and then,
 * as NATS loses messages only across a reconnect, a's side learns of the interruption (members and the hub abort
 * their tunnels on `disconnect`).
 */
function pair(options: { drop?: (n: number) => boolean } = {}) {
  let sentAB = 0;
  const frames = { ab: 0, ba: 0 };
  // eslint-disable-next-line prefer-const
  let a: TunnelTable, b: TunnelTable;
  a = new TunnelTable((key, frame) => {
    const n = sentAB++;
    frames.ab++;
    if (!options.drop?.(n)) setImmediate(() => b.dispatch(key, frame));
    else setTimeout(() => a.abort('the link was interrupted'), 5);
  });
  b = new TunnelTable((key, frame) => {
    frames.ba++;
    setImmediate(() => a.dispatch(key, frame));
  });
  return { a, b, frames };
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function collect(stream: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

test('frames: encoded and decoded back; anything else is not a frame', () => {
  const payload = randomBytes(100);
  assert.deepEqual(decodeFrame(encodeFrame(FRAME.data, 7, payload)), { type: FRAME.data, seq: 7, payload: new Uint8Array(payload) });
  assert.equal(decodeFrame(new Uint8Array([FRAME.data, 0, 0])), undefined, 'too short');
  assert.equal(decodeFrame(encodeFrame(0x5a as never, 0)), undefined, 'an unknown type');
  assert.equal(decodeFrame(encodeFrame(FRAME.ack, 0, new Uint8Array(3))), undefined, 'an ack of the wrong size');
  fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => void decodeFrame(bytes)));
});

test('8 MiB each way arrive whole and in order, in chunks under the payload limit', async () => {
  const { a, b } = pair();
  const left = a.create('k');
  const right = b.create('k');
  const there = randomBytes(8 * 1024 * 1024);
  const back = randomBytes(8 * 1024 * 1024 + 17);
  const [gotThere, gotBack] = await Promise.all([collect(right), collect(left), left.end(there), right.end(back)]);
  assert.equal(sha(gotThere), sha(there));
  assert.equal(sha(gotBack), sha(back));
  assert.equal(a.size + b.size, 0, 'both ends forgot the tunnel once it ended both ways');
});

test('a reader that does not read holds the writer to its window', async () => {
  const { a, b } = pair();
  const writer = a.create('k');
  const reader = b.create('k') as TunnelStream;
  reader.pause();
  let accepted = 0;
  const chunk = randomBytes(CHUNK_BYTES);
  // write until the writer says stop, then a while longer: what is in flight never passes the window by much
  for (let i = 0; i < 200; i++) if (writer.write(chunk)) accepted += chunk.length;
  await new Promise((r) => setTimeout(r, 200));
  const buffered = reader.readableLength;
  assert.ok(buffered <= WINDOW_BYTES + reader.readableHighWaterMark + CHUNK_BYTES, `the reader holds ${buffered} bytes, the window is ${WINDOW_BYTES}`);
  assert.ok(writer.writableLength > 0, 'the rest waits on the writer\'s side');
  const all = collect(reader);
  reader.resume();
  writer.end();
  assert.equal((await all).length, 200 * chunk.length, 'everything arrives once the reader reads');
  assert.ok(accepted < 200 * chunk.length);
});

test('a lost frame ends the stream with an error, never a gap in the bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 300_000 }), async (lost, size) => {
      const { a, b } = pair({ drop: (n) => n === lost });
      const writer = a.create('k');
      const reader = b.create('k');
      const sent = randomBytes(size);
      const got: Buffer[] = [];
      const outcome = await new Promise<'end' | 'error'>((resolve) => {
        reader.on('data', (c: Buffer) => got.push(c)).on('end', () => resolve('end')).on('error', () => resolve('error'));
        writer.on('error', () => undefined);
        writer.end(sent);
      });
      const received = Buffer.concat(got);
      // what arrived is always a prefix of what was sent; it is all of it only when the stream ended cleanly
      assert.ok(sent.subarray(0, received.length).equals(received), 'the bytes that arrived are the ones sent, in order');
      if (outcome === 'end') assert.equal(received.length, size);
    }),
    { numRuns: 40 },
  );
});

test('a frame for a tunnel that is gone is answered by an abort, once; an abort is never answered', async () => {
  const { a, b, frames } = pair();
  const orphan = a.create('gone');
  const failed = new Promise<Error>((resolve) => orphan.on('error', resolve));
  orphan.write('hello');
  const err = await failed;
  assert.match(err.message, /no such tunnel/);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual({ ab: frames.ab, ba: frames.ba }, { ab: 1, ba: 1 }, 'one data frame, one abort, no ping-pong');
  assert.equal(a.size, 0);
  // and an abort of everything ends each stream with the reason
  const s = b.create('x');
  const reason = new Promise<Error>((resolve) => s.on('error', resolve));
  b.abort('the machine went offline');
  assert.match((await reason).message, /went offline/);
});

test('node:http runs over a tunnel: the server is given it as a connection, the client by createConnection', async () => {
  const { a, b } = pair();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      res.setHeader('x-remote', String(req.socket.remoteAddress));
      res.end(sha(Buffer.concat(chunks)));
    });
  });
  let n = 0;
  const connect = () => {
    const key = `t${n++}`;
    server.emit('connection', b.create(key));
    return a.create(key);
  };
  const body = randomBytes(3 * 1024 * 1024);
  const answer = await new Promise<{ status: number; text: string; remote: string }>((resolve, reject) => {
    const req = http.request('http://127.0.0.1:1/upload', { method: 'POST', createConnection: connect as never }, (res) => {
      collect(res as unknown as Duplex).then((text) => resolve({ status: res.statusCode!, text: text.toString(), remote: String(res.headers['x-remote']) }), reject);
    });
    req.on('error', reject).end(body);
  });
  assert.deepEqual(answer, { status: 200, text: sha(body), remote: 'undefined' }, 'the whole body arrived; the server sees no address (a remote caller)');
  server.close();
});

test('an idle tunnel times out as a socket does, and traffic puts the timeout off', async () => {
  const { a, b } = pair();
  const left = a.create('k');
  const right = b.create('k');
  const timedOut = new Promise<number>((resolve) => {
    const start = Date.now();
    left.setTimeout(150, () => resolve(Date.now() - start));
  });
  // traffic for 300 ms: no timeout meanwhile
  for (let i = 0; i < 6; i++) {
    right.write('tick');
    await new Promise((r) => setTimeout(r, 50));
  }
  left.resume();
  // (the idle timer does not hold the process open: this wait does)
  const waited = await Promise.race([timedOut, new Promise<number>((r) => setTimeout(() => r(-1), 2000))]);
  assert.ok(waited >= 300, `the timeout came only after the traffic stopped (${waited} ms)`);
  left.destroy();
});
