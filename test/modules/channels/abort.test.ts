// Giving up on a chat service: `bounded` settles at its bound or on cancel even when the work ignores its
// signal (and tells the work through that signal), and `linked` aborts with either signal and lets go of both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptTimeout, bounded, linked } from '../../../src/modules/channels/abort.ts';

const never = () => new Promise<never>(() => undefined);

test('bounded: the work\'s result, or AttemptTimeout at the bound, or the cancel\'s reason at once', async () => {
  assert.equal(await bounded(async () => 'done', 10_000, new AbortController().signal), 'done');
  await assert.rejects(bounded(async () => Promise.reject(new Error('refused')), 10_000, new AbortController().signal), /refused/);

  let given: AbortSignal | undefined;
  const slow = bounded((signal) => ((given = signal), never()), 20, new AbortController().signal);
  await assert.rejects(slow, (err) => err instanceof AttemptTimeout && err.ms === 20);
  assert.equal(given!.aborted, true, 'the work was told to stop');

  const cancel = new AbortController();
  const cancelled = bounded((signal) => ((given = signal), never()), 600_000, cancel.signal);
  cancel.abort(new Error('switched off'));
  await assert.rejects(cancelled, /switched off/);
  assert.equal(given!.aborted, true);

  const early = new AbortController();
  early.abort(new Error('already'));
  await assert.rejects(bounded(never, 600_000, early.signal), /already/);
});

test('linked: aborts with either signal; unlink lets go of both', () => {
  const a = new AbortController();
  const b = new AbortController();
  const one = linked(a.signal, b.signal);
  assert.equal(one.signal.aborted, false);
  b.abort();
  assert.equal(one.signal.aborted, true);

  const c = new AbortController();
  const d = new AbortController();
  const two = linked(c.signal, d.signal);
  two.unlink();
  c.abort();
  assert.equal(two.signal.aborted, false, 'unlinked: no longer follows');
  assert.equal(linked(undefined, new AbortController().signal).signal.aborted, false);
  assert.equal(linked(c.signal, new AbortController().signal).signal.aborted, true, 'an aborted one aborts it at once');
});
