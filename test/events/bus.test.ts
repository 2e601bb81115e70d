// The event bus and the wire format's event ids (src/events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventId } from '../../src/events/wire.ts';
import { EventBus } from '../../src/events/bus.ts';

test('event ids', () => {
  assert.deepEqual(parseEventId('a1b2-17'), { streamId: 'a1b2', seq: 17 });
  for (const bad of ['', '17', 'a-b', 'a1-2-3', 'x-' + '9'.repeat(20), undefined]) assert.equal(parseEventId(bad), null, String(bad));
});

test('the bus validates payloads against the catalogue and isolates faulty listeners', () => {
  const errors: unknown[] = [];
  const bus = new EventBus((err) => errors.push(err));
  const seen: string[] = [];
  bus.subscribe(() => {
    throw new Error('faulty');
  });
  bus.subscribe((e) => seen.push(e.name));
  assert.throws(() => bus.publish('queue_update', { pending: 'two' } as never), /pending/);
  assert.throws(() => bus.publish('no_such_event' as never, {} as never), /unknown event/);
  assert.throws(() => bus.publish('orchestrate_done', { topic: 'x' }), /reserved/);
  const event = bus.publish('queue_update', { pending: 2, active: false });
  assert.equal(event.topic, 'queue');
  assert.equal(event.visibility, 'public');
  assert.deepEqual(seen, ['queue_update']);
  assert.equal(errors.length, 1);
  bus.publish('agent:provider-e:runtime_started', { runId: 'r1' });
  assert.deepEqual(seen, ['queue_update', 'agent:provider-e:runtime_started']);
});
