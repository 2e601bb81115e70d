// The public event stream (src/events/stream.ts), its wire form and the listener slots, without a
// server: a real bus and sinks that record what they are given. The server-level behaviour (HTTP,
// back-pressure, EventSource) is in test/modules/events/sse.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../src/events/bus.ts';
import { DEFAULT_BUFFER_SIZE, DEFAULT_HEARTBEAT_MS, EventStream, type Sink } from '../../src/events/stream.ts';
import { MAX_SSE_LISTENERS, MAX_WS_LISTENERS, Slots } from '../../src/events/slots.ts';
import { encodeFrame, eventBody, parseEventId, type WireFrame } from '../../src/events/wire.ts';

function recorder(withReplay = false) {
  const sent: WireFrame[] = [];
  const replayed: WireFrame[][] = [];
  const positions: string[] = [];
  let pings = 0;
  const sink: Sink = {
    send: (frame) => sent.push(frame),
    ping: () => pings++,
    position: (id) => positions.push(id),
    ...(withReplay ? { replay: (frames: readonly WireFrame[]) => replayed.push([...frames]) } : {}),
  };
  return { sink, sent, replayed, positions, pings: () => pings };
}

function setup(t: { after(fn: () => void): void }, options: ConstructorParameters<typeof EventStream>[1] = {}) {
  const bus = new EventBus();
  const stream = new EventStream(bus, options);
  t.after(() => stream.close());
  const publish = (n: number) => {
    for (let i = 0; i < n; i++) bus.publish('queue_update', { pending: i, active: false });
  };
  return { bus, stream, publish, id: (seq: number) => `${stream.streamId}-${seq}` };
}

const payloads = (frames: WireFrame[]) => frames.map((f) => JSON.parse(f.json) as Record<string, unknown>);

test('the contract values: a 1000-event buffer, a 15 s heartbeat, 256 listeners of each kind', () => {
  assert.equal(DEFAULT_BUFFER_SIZE, 1000);
  assert.equal(DEFAULT_HEARTBEAT_MS, 15_000);
  assert.equal(MAX_SSE_LISTENERS, 256);
  assert.equal(MAX_WS_LISTENERS, 256);
});

test('the wire form: eventId first, then topic, event, ts and the payload; the SSE message around it', () => {
  const frame = encodeFrame('ab12', 7, { topic: 'queue', event: 'queue_update', ts: 5, pending: 1 });
  const json = '{"eventId":"ab12-7","topic":"queue","event":"queue_update","ts":5,"pending":1}';
  assert.deepEqual(frame, { seq: 7, id: 'ab12-7', json, sse: `id: ab12-7\ndata: ${json}\n\n` });
  assert.deepEqual(eventBody({ name: 'queue_update', topic: 'queue', visibility: 'public', ts: 9, payload: { pending: 2, active: true } }), {
    topic: 'queue', event: 'queue_update', ts: 9, pending: 2, active: true,
  });
});

test('event ids: <stream>-<seq>, up to 15 digits, surrounding spaces ignored', () => {
  assert.deepEqual(parseEventId(' ab12-0 '), { streamId: 'ab12', seq: 0 });
  assert.deepEqual(parseEventId(`Z9-${'9'.repeat(15)}`), { streamId: 'Z9', seq: 999_999_999_999_999 });
  for (const bad of [`a-${'1'.repeat(16)}`, '-1', 'a-', 'a_b-1', 'a-1x', 'xa-1 b', 'a-+1']) assert.equal(parseEventId(bad), null, bad);
});

test('live: public events are numbered from 1 and reach every attached sink once; internal ones never', (t) => {
  const { bus, stream, publish, id } = setup(t);
  const a = recorder();
  const b = recorder();
  assert.deepEqual(stream.attach(a.sink, undefined), { gap: false, replayed: 0 });
  stream.attach(b.sink, '');
  assert.equal(stream.size, 2);
  assert.deepEqual([a.positions, b.positions], [[id(0)], [id(0)]], 'a client without a cursor learns where the stream stands');
  bus.publish('provider_line', { traceId: 't', stream: 'stdout', line: 'secret' });
  publish(2);
  assert.equal(stream.lastSeq, 2);
  assert.deepEqual(a.sent.map((f) => f.id), [id(1), id(2)]);
  assert.equal(b.sent[1], a.sent[1], 'one frame object, serialized once, for every sink');
  assert.deepEqual(payloads(a.sent).map((p) => [p.eventId, p.topic, p.event, p.pending]), [[id(1), 'queue', 'queue_update', 0], [id(2), 'queue', 'queue_update', 1]]);
  stream.detach(a.sink);
  assert.equal(stream.size, 1);
  publish(1);
  assert.equal(a.sent.length, 2);
  assert.equal(b.sent.length, 3);
  const c = recorder();
  stream.attach(c.sink, undefined);
  assert.deepEqual(c.positions, [id(3)]);
});

test('a cursor inside the buffer gets every later event, in order, and nothing else', (t) => {
  const { stream, publish, id } = setup(t, { bufferSize: 5 });
  publish(8); // the buffer holds 4..8
  const later = recorder();
  assert.deepEqual(stream.attach(later.sink, id(5)), { gap: false, replayed: 3 });
  assert.deepEqual(later.sent.map((f) => f.seq), [6, 7, 8]);
  assert.deepEqual(later.positions, []);
  const current = recorder();
  assert.deepEqual(stream.attach(current.sink, id(8)), { gap: false, replayed: 0 });
  assert.equal(current.sent.length, 0);
  // the oldest cursor that loses nothing is the one just before the oldest buffered event
  const edge = recorder();
  assert.deepEqual(stream.attach(edge.sink, ` ${id(3)}`), { gap: false, replayed: 5 });
  assert.deepEqual(edge.sent.map((f) => f.seq), [4, 5, 6, 7, 8]);
  publish(1);
  assert.deepEqual([later.sent.at(-1)!.seq, current.sent.at(-1)!.seq, edge.sent.at(-1)!.seq], [9, 9, 9], 'then live events follow');
});

test('a cursor older than the buffer: replay_gap (expired), then the whole buffer', (t) => {
  const { stream, publish, id } = setup(t, { bufferSize: 5 });
  publish(8);
  const sink = recorder();
  const before = Date.now();
  assert.deepEqual(stream.attach(sink.sink, id(2)), { gap: true, replayed: 5 });
  const [gap, ...rest] = sink.sent;
  assert.equal(gap!.id, id(3), "the gap's id sits just before the oldest buffered event");
  const body = JSON.parse(gap!.json) as Record<string, unknown>;
  assert.ok(typeof body.ts === 'number' && body.ts >= before && body.ts <= Date.now());
  assert.deepEqual({ ...body, ts: 0 }, { eventId: id(3), topic: 'system', event: 'replay_gap', ts: 0, lastEventId: id(2), reason: 'expired', oldestAvailableId: id(4) });
  assert.deepEqual(rest.map((f) => f.seq), [4, 5, 6, 7, 8]);
  // reconnecting right after the gap is served the buffer without another gap
  const again = recorder();
  assert.deepEqual(stream.attach(again.sink, gap!.id), { gap: false, replayed: 5 });
});

test('the default buffer keeps the last 1000 events', (t) => {
  const { stream, publish, id } = setup(t);
  publish(1001);
  const lost = recorder();
  assert.deepEqual(stream.attach(lost.sink, id(0)), { gap: true, replayed: 1000 });
  assert.equal(JSON.parse(lost.sent[0]!.json).oldestAvailableId, id(2));
  const kept = recorder();
  assert.deepEqual(stream.attach(kept.sink, id(1)), { gap: false, replayed: 1000 });
  assert.equal(kept.sent[0]!.seq, 2);
});

test('cursors that cannot be resumed: unreadable, from another process, ahead of the stream', (t) => {
  const { stream, publish, id } = setup(t, { bufferSize: 5 });
  const reason = (cursor: string) => {
    const sink = recorder();
    const result = stream.attach(sink.sink, cursor);
    stream.detach(sink.sink);
    const gap = JSON.parse(sink.sent[0]!.json) as Record<string, unknown>;
    return { result, reason: gap.reason, oldest: gap.oldestAvailableId, gapId: gap.eventId, frames: sink.sent.length };
  };
  // nothing published yet: no oldest event, the gap's id is <stream>-0
  assert.deepEqual(reason('garbage'), { result: { gap: true, replayed: 0 }, reason: 'invalid_cursor', oldest: null, gapId: id(0), frames: 1 });
  publish(1);
  assert.deepEqual(reason('garbage'), { result: { gap: true, replayed: 1 }, reason: 'invalid_cursor', oldest: id(1), gapId: id(0), frames: 2 }, 'one event buffered: it is the oldest');
  publish(1);
  assert.deepEqual(reason('ffffffffffff-1'), { result: { gap: true, replayed: 2 }, reason: 'unknown_stream', oldest: id(1), gapId: id(0), frames: 3 });
  assert.deepEqual(reason(id(3)), { result: { gap: true, replayed: 2 }, reason: 'expired', oldest: id(1), gapId: id(0), frames: 3 });
});

test('a sink that paces its writes takes the replay at once; the gap still goes through send', (t) => {
  const { stream, publish, id } = setup(t, { bufferSize: 5 });
  publish(3);
  const paced = recorder(true);
  assert.deepEqual(stream.attach(paced.sink, id(1)), { gap: false, replayed: 2 });
  assert.deepEqual(paced.replayed.map((frames) => frames.map((f) => f.seq)), [[2, 3]]);
  assert.equal(paced.sent.length, 0);
  const behind = recorder(true);
  stream.attach(behind.sink, 'x');
  assert.deepEqual(behind.sent.map((f) => f.id), [id(0)]);
  assert.deepEqual(behind.replayed.map((frames) => frames.map((f) => f.seq)), [[1, 2, 3]]);
  publish(1);
  assert.deepEqual(paced.sent.map((f) => f.seq), [4], 'live events go through send');
});

test('the heartbeat pings every sink at its interval; close stops it, the events and the sinks', async (t) => {
  const { stream, publish } = setup(t, { heartbeatMs: 10 });
  const sink = recorder();
  stream.attach(sink.sink, undefined);
  const deadline = Date.now() + 5000;
  while (sink.pings() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.ok(sink.pings() >= 2, `${sink.pings()} pings`);
  stream.close();
  assert.equal(stream.size, 0);
  const pings = sink.pings();
  publish(1);
  assert.equal(sink.sent.length, 0);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(sink.pings(), pings, 'no ping after close');
});

test('slots: at most capacity in use; a release is counted once however often it is called', () => {
  const slots = new Slots(2);
  assert.equal(slots.capacity, 2);
  const first = slots.acquire();
  const second = slots.acquire();
  assert.ok(first && second);
  assert.equal(slots.inUse, 2);
  assert.equal(slots.acquire(), null);
  first();
  first();
  assert.equal(slots.inUse, 1);
  const third = slots.acquire();
  assert.ok(third);
  assert.equal(slots.acquire(), null);
  second();
  third();
  assert.equal(slots.inUse, 0);
  assert.equal(new Slots(0).acquire(), null);
});
