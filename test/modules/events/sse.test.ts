import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { EventSource } from 'eventsource';
import { startServer, type TestServer } from '../../support/server.ts';
import { openSse, readBody, type SseConnection } from '../../support/sse.ts';

const publishSessions = (server: TestServer, n: number) => {
  for (let i = 0; i < n; i++) server.app.services.bus.publish('session_switched', { sessionId: `s${i}` });
};

describe('SSE /api/events', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ heartbeatMs: 100 });
  });
  after(() => server.close());

  test('data-only JSON messages with topic, event, fields and an id line', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    assert.equal(sse.status, 200);
    assert.match(String(sse.headers['content-type']), /^text\/event-stream/);
    server.app.services.bus.publish('queue_update', { pending: 2, active: true });
    const [message] = await sse.waitFor(1);
    sse.close();
    assert.equal(message!.event, undefined, 'no event: field');
    assert.doesNotMatch(message!.raw, /^event:/m);
    assert.match(message!.id!, /^[0-9a-f]+-\d+$/);
    assert.equal(message!.data.eventId, message!.id);
    assert.equal(message!.data.topic, 'queue');
    assert.equal(message!.data.event, 'queue_update');
    assert.equal(message!.data.pending, 2);
    assert.equal(message!.data.active, true);
  });

  test('reconnecting with Last-Event-ID replays everything missed, in order', async () => {
    const first = await openSse(`${server.url}/api/events`);
    publishSessions(server, 3);
    const seen = await first.waitFor(3);
    first.close();
    publishSessions(server, 5); // published while disconnected
    const second = await openSse(`${server.url}/api/events`, { lastEventId: seen[2]!.id });
    const replayed = await second.waitFor(5);
    second.close();
    assert.deepEqual(replayed.map((m) => m.data.sessionId), ['s0', 's1', 's2', 's3', 's4']);
    assert.ok(replayed.every((m) => m.data.event !== 'replay_gap'));
  });

  test('a new client learns the stream position at once, so a drop before any event loses nothing', async () => {
    const first = await openSse(`${server.url}/api/events`);
    await waitUntil(() => /^id: \S+$/m.test(first.raw));
    first.close();
    const position = /^id: (\S+)$/m.exec(first.raw)?.[1];
    assert.ok(position, 'an id line before any event');
    publishSessions(server, 2); // published while disconnected
    const second = await openSse(`${server.url}/api/events`, { lastEventId: position });
    const replayed = await second.waitFor(2);
    second.close();
    assert.deepEqual(replayed.map((m) => m.data.sessionId), ['s0', 's1']);
    assert.equal(first.messages.length, 0, 'the position is not a message');
  });

  test('lastEventId query parameter works like the header', async () => {
    const first = await openSse(`${server.url}/api/events`);
    publishSessions(server, 1);
    const [seen] = await first.waitFor(1);
    first.close();
    publishSessions(server, 2);
    const second = await openSse(`${server.url}/api/events?lastEventId=${encodeURIComponent(seen!.id!)}`);
    const replayed = await second.waitFor(2);
    second.close();
    assert.deepEqual(replayed.map((m) => m.data.sessionId), ['s0', 's1']);
  });

  test('a cursor older than the 1000-event buffer gets replay_gap, then the whole buffer', async () => {
    const first = await openSse(`${server.url}/api/events`);
    publishSessions(server, 1);
    const [old] = await first.waitFor(1);
    first.close();
    publishSessions(server, 1100);
    const second = await openSse(`${server.url}/api/events`, { lastEventId: old!.id });
    const received = await second.waitFor(1001);
    second.close();
    const [gap, ...rest] = received;
    assert.equal(gap!.data.topic, 'system');
    assert.equal(gap!.data.event, 'replay_gap');
    assert.equal(gap!.data.lastEventId, old!.id);
    assert.equal(gap!.data.reason, 'expired');
    assert.equal(rest.length, 1000);
    assert.equal(rest.at(-1)!.data.sessionId, 's1099');
    assert.equal(rest[0]!.data.sessionId, 's100');
    // reconnecting from the gap's own id replays the buffer without a second gap
    const third = await openSse(`${server.url}/api/events`, { lastEventId: gap!.id });
    const again = await third.waitFor(1000);
    third.close();
    assert.notEqual(again[0]!.data.event, 'replay_gap');
    assert.equal(again[0]!.data.sessionId, 's100');
  });

  test('a client far behind (a buffer of large events, more than the 4 MiB live limit) can still resume from its cursor', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const probe = await openSse(`${server.url}/api/events`);
    server.app.services.bus.publish('queue_update', { pending: 0, active: false });
    const [marker] = await probe.waitFor(1);
    probe.close();
    // 1000 events of 8 KiB: 8 MiB, twice what a client may fall behind in live events
    const content = 'x'.repeat(8192);
    for (let i = 0; i < 1000; i++) server.app.services.bus.publish('agent_output', { traceId: 'tr_big', content, offset: i * content.length });
    const resumed = await openSse(`${server.url}/api/events`, { lastEventId: marker!.id });
    const replay = await resumed.waitFor(1000, 30_000);
    resumed.close();
    assert.ok(replay.every((m) => m.data.event === 'agent_output'), 'no replay_gap: the cursor is inside the buffer');
    assert.deepEqual(replay.map((m) => m.data.offset), Array.from({ length: 1000 }, (_, i) => i * 8192));
  });

  test('a client that stops reading is cut off once 4 MiB of live events wait for it; its slot is freed', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const { listeners, bus } = server.app.services;
    const request = http.get(`${server.url}/api/events`, { headers: { accept: 'text/event-stream' }, agent: false });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    response.pause(); // reads nothing more: the socket fills, then the server's queue
    t.after(() => request.destroy());
    assert.equal(listeners.sse.inUse, 1);
    const content = 'y'.repeat(8192);
    let published = 0;
    for (; published < 4000 && listeners.sse.inUse > 0; published++) {
      bus.publish('agent_output', { traceId: 'tr_slow', content, offset: published * content.length });
      if (published % 100 === 99) await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(listeners.sse.inUse, 0, 'the reader that stopped was cut off');
    // what the socket buffers took, plus the 4 MiB queue: far less than all 4000 events
    assert.ok(published > 4 * 128 && published < 4000, `cut off after ${published} events of 8 KiB`);
  });

  test('a cursor from a previous server process gets replay_gap', async () => {
    publishSessions(server, 1);
    const sse = await openSse(`${server.url}/api/events`, { lastEventId: 'deadbeef0000-5' });
    const [gap, next] = await sse.waitFor(2);
    sse.close();
    assert.equal(gap!.data.event, 'replay_gap');
    assert.equal(gap!.data.reason, 'unknown_stream');
    assert.equal(next!.data.event, 'session_switched');
  });

  test('internal events never reach SSE clients', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const { bus } = server.app.services;
    bus.publish('provider_line', { traceId: 'tr_x', stream: 'stdout', line: 'secret raw line' });
    bus.publish('queue_update', { pending: 0, active: false });
    // events arrive in order: an internal event sent out would come before the public one
    const [only] = await sse.waitFor(1);
    sse.close();
    assert.equal(only!.data.event, 'queue_update');
    assert.ok(!sse.messages.some((m) => m.raw.includes('secret raw line')));
  });

  test('a comment ping is sent at the heartbeat interval', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const comment = await sse.waitForComment(2000);
    sse.close();
    assert.equal(comment, 'ping');
  });

  test('a standard EventSource client receives the events', async () => {
    const source = new EventSource(`${server.url}/api/events`);
    const received = new Promise<any>((resolve, reject) => {
      source.onmessage = (e) => resolve({ data: JSON.parse(e.data), lastEventId: e.lastEventId, type: e.type });
      source.onerror = (e) => reject(new Error(`EventSource error ${String((e as any).message)}`));
    });
    await new Promise<void>((r) => (source.onopen = () => r()));
    server.app.services.bus.publish('steer_started', { prompt: 'go left' });
    const event = await received;
    source.close();
    assert.equal(event.type, 'message');
    assert.equal(event.data.prompt, 'go left');
    assert.equal(event.lastEventId, event.data.eventId);
  });
});

describe('SSE listener cap', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('256 listeners are accepted, the 257th gets 503 SSE_CAPACITY, a closed one frees its slot', async () => {
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const open: SseConnection[] = [];
    try {
      for (let i = 0; i < 256; i++) open.push(await openSse(`${server.url}/api/events`, { agent }));
      assert.ok(open.every((c) => c.status === 200));
      const refused = await openSse(`${server.url}/api/events`, { agent });
      assert.equal(refused.status, 503);
      assert.deepEqual(JSON.parse(await readBody(refused)).error, 'SSE_CAPACITY');
      // every accepted listener still gets events
      server.app.services.bus.publish('queue_update', { pending: 1, active: true });
      await Promise.all(open.map((c) => c.waitFor(1)));
      // free one slot: the next listener is accepted at once
      const gone = open.pop()!;
      gone.close();
      await gone.closed;
      await waitUntil(() => server.app.services.listeners.sse.inUse === 255);
      const accepted = await openSse(`${server.url}/api/events`, { agent });
      open.push(accepted);
      assert.equal(accepted.status, 200);
    } finally {
      open.forEach((c) => c.close());
      agent.destroy();
    }
  });
});

describe('WebSocket fallback /ws', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('carries the same public frames as SSE, and replays from lastEventId', async () => {
    const wsUrl = server.url.replace('http', 'ws') + '/ws';
    const sse = await openSse(`${server.url}/api/events`);
    const ws = new WebSocket(wsUrl);
    const frames: any[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await new Promise((r) => ws.once('open', r));
    const { bus } = server.app.services;
    bus.publish('provider_line', { traceId: 't', stream: 'stdout', line: 'internal' });
    bus.publish('agent_output', { traceId: 'tr_1', content: 'hello', offset: 0 });
    const [viaSse] = await sse.waitFor(1);
    await waitUntil(() => frames.length >= 1);
    assert.deepEqual(frames[0], viaSse!.data);
    assert.equal(frames.length, 1, 'internal event not sent');
    ws.close();
    sse.close();
    bus.publish('agent_output', { traceId: 'tr_1', content: 'while away', offset: 5 });
    const replay = new WebSocket(`${wsUrl}?lastEventId=${encodeURIComponent(frames[0].eventId)}`);
    const replayed = await new Promise<any>((r) => replay.once('message', (d) => r(JSON.parse(String(d)))));
    replay.close();
    assert.equal(replayed.content, 'while away');
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
