// The machine's outbox of events for the hub's JetStream (event-outbox.ts), against a stream stand-in that stores a
// message once per message id (as JetStream's deduplication does) and fails on command: frames go in order, a
// failure sends again from the first unacknowledged one, nothing goes while the machine is disconnected, and an
// overflow leaves one replay_gap in place of the oldest frames. The real path (a machine, nats-server, the hub's
// consumer) is in faults.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JetStreamClient } from '@nats-io/jetstream';
import { EventOutbox } from '../../../src/modules/fleet/event-outbox.ts';
import { encodeFrame } from '../../../src/events/wire.ts';
import { until } from '../dashboard/helpers.ts';

/** Stores each message id once; `failing` makes every publish fail (a link down), after a tick as a timeout would. */
function stream() {
  const stored: { id: string; data: Record<string, unknown> }[] = [];
  const state = { failing: false, publishes: 0 };
  const js = {
    async publish(_subject: string, payload: string, options: { msgID: string }) {
      state.publishes++;
      await new Promise((r) => setImmediate(r));
      if (state.failing) throw new Error('timed out');
      if (!stored.some((m) => m.id === options.msgID)) stored.push({ id: options.msgID, data: JSON.parse(payload) });
      return { seq: stored.length, duplicate: false, stream: 'SVC_EVENTS' };
    },
  } as unknown as JetStreamClient;
  return { js, stored, state };
}

const frame = (seq: number) => encodeFrame('abc', seq, { topic: 'tasks', event: 'task_update', n: seq });

test('frames reach the stream once each and in order, also across failures', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 700 }), fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 4 }), async (count, failAt) => {
      const { js, stored, state } = stream();
      const outbox = new EventOutbox({ js, subject: 's', connected: () => true, retryMs: 1 });
      for (let n = 1; n <= count; n++) {
        if (failAt.includes(n)) state.failing = true;
        outbox.send(frame(n));
        if (failAt.includes(n)) setTimeout(() => (state.failing = false), 2);
      }
      await until(() => (outbox.pending === 0 ? true : undefined), 'the outbox empty', 10_000);
      assert.deepEqual(stored.map((m) => m.data.n), Array.from({ length: count }, (_, i) => i + 1));
      outbox.close();
    }),
    { numRuns: 30 },
  );
});

test('nothing is sent while the machine is disconnected; resume() sends what waited', async () => {
  const { js, stored, state } = stream();
  let connected = false;
  const outbox = new EventOutbox({ js, subject: 's', connected: () => connected, retryMs: 60_000 });
  for (let n = 1; n <= 10; n++) outbox.send(frame(n));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(state.publishes, 0, 'no publish piles up in the client while the link is down');
  connected = true;
  outbox.resume();
  await until(() => (outbox.pending === 0 ? true : undefined), 'the outbox empty');
  assert.equal(stored.length, 10);
  outbox.close();
});

test('past its bound the oldest frames go, and one replay_gap names the last one lost', async () => {
  const { js, stored } = stream();
  let connected = false;
  const outbox = new EventOutbox({ js, subject: 's', connected: () => connected, maxQueued: 5, retryMs: 60_000 });
  for (let n = 1; n <= 12; n++) outbox.send(frame(n));
  assert.equal(outbox.pending, 5);
  connected = true;
  outbox.resume();
  await until(() => (outbox.pending === 0 ? true : undefined), 'the outbox empty');
  const [gap, ...rest] = stored.map((m) => m.data);
  assert.equal(gap!.event, 'replay_gap');
  assert.equal(gap!.lastEventId, 'abc-8');
  assert.equal(gap!.oldestAvailableId, 'abc-9');
  assert.deepEqual(rest.map((d) => d.n), [9, 10, 11, 12]);
  outbox.close();
});

test('drain: resolves once all is stored, or at its bound when the hub cannot be reached', async () => {
  const { js, stored } = stream();
  let connected = true;
  const outbox = new EventOutbox({ js, subject: 's', connected: () => connected, retryMs: 60_000 });
  for (let n = 1; n <= 300; n++) outbox.send(frame(n));
  await outbox.drain(10_000);
  assert.equal(stored.length, 300, 'everything was stored when drain returned');
  connected = false;
  outbox.send(frame(301));
  const started = Date.now();
  await outbox.drain(100);
  assert.ok(Date.now() - started >= 100, 'it waited its bound');
  assert.equal(outbox.pending, 1, 'and gave up on what the hub cannot take');
  outbox.close();
});
