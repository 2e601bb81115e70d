// The UI's merge of a run's streamed output by offsets (web/src/output.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSpan, type Span } from '../../web/src/output.ts';

const span = (start: number, text: string): Span => ({ start, text });
const WHOLE = 'Hello from the fake model.';
const part = (from: number, to: number) => span(from, WHOLE.slice(from, to));

test('chunks in order append; a chunk already known changes nothing', () => {
  let have = span(0, '');
  for (const [from, to] of [[0, 6], [6, 15], [15, 26]] as const) have = mergeSpan(have, part(from, to));
  assert.deepEqual(have, span(0, WHOLE));
  assert.deepEqual(mergeSpan(have, part(6, 15)), have, 'a replayed chunk');
});

test('a snapshot from offset 0 joins chunks seen before it arrived, each part once', () => {
  // the page saw chunks from offset 15 on, then the runtime snapshot (0..20) arrived
  assert.deepEqual(mergeSpan(part(15, 26), part(0, 20)), span(0, WHOLE));
  // the snapshot covers everything seen
  assert.deepEqual(mergeSpan(part(6, 15), part(0, 20)), part(0, 20));
  // the snapshot ends exactly where the seen chunks begin
  assert.deepEqual(mergeSpan(part(15, 26), part(0, 15)), span(0, WHOLE));
});

test('overlapping chunks are taken once; a chunk after a gap is still shown', () => {
  assert.deepEqual(mergeSpan(part(0, 10), part(6, 15)), part(0, 15));
  assert.deepEqual(mergeSpan(part(0, 6), part(15, 26)), span(0, WHOLE.slice(0, 6) + WHOLE.slice(15)));
  assert.deepEqual(mergeSpan(part(15, 26), part(0, 6)), span(0, WHOLE.slice(0, 6) + WHOLE.slice(15)));
  assert.deepEqual(mergeSpan(span(0, ''), part(15, 26)), part(15, 26), 'the first chunk a page sees sets where its text starts');
  assert.deepEqual(mergeSpan(part(0, 6), span(3, '')), part(0, 6));
});
