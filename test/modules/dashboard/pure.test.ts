// The dashboard's pure parts: the proxy's path rule, the latest-message cache, SSE parsing, git paths, the health
// loop's spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proxiedPath } from '../../../src/modules/dashboard/proxy.ts';
import { applyEvent, emptyLatest } from '../../../src/modules/dashboard/latest.ts';
import { parseSseBlock } from '../../../src/modules/dashboard/sse-reader.ts';
import { checkRepoPath } from '../../../src/modules/dashboard/git.ts';
import { spreadChecks } from '../../../src/modules/dashboard/instances.service.ts';
import fc from 'fast-check';

test('proxiedPath maps a canonical /i/<id>/<rest> to the instance\'s /<rest>, drops the manager\'s token and withholds the token route', () => {
  assert.equal(proxiedPath('/i/inst_a/api/messages?limit=2'), '/api/messages?limit=2');
  assert.equal(proxiedPath('/i/inst_a/'), '/');
  assert.equal(proxiedPath('/i/inst_a'), '/');
  assert.equal(proxiedPath('/i/inst_a/api/x?next=..%2f'), '/api/x?next=..%2f', 'the query is not a path');
  assert.equal(proxiedPath('/i/inst_a/api/events?token=mgr&lastEventId=a-1'), '/api/events?lastEventId=a-1', 'the manager\'s token stays here');
  assert.equal(proxiedPath('/i/inst_a/ws?tok%65n=mgr'), '/ws', 'however it is spelled');
  assert.equal(proxiedPath('/i/inst_a/ws?token=mgr'), '/ws');
  assert.equal(proxiedPath('/i/inst%20a/api/session'), '/api/session', 'an encoded id is one segment');
  assert.throws(() => proxiedPath('/api/session'), /Proxied paths/);
  assert.throws(() => proxiedPath('/i/inst_a/api/auth/token'), /token stays with the manager/);
  assert.throws(() => proxiedPath('/i/inst_a/api/auth/token?x=1'), /token stays with the manager/);
});

test('the latest-message cache follows messages, runs, queue, orchestration and worker events', () => {
  let l = emptyLatest('i1');
  l = applyEvent(l, 'message', { id: 3, role: 'user', content: 'hi', createdAt: 1, sessionId: 's' }, 10);
  l = applyEvent(l, 'agent_status', { status: 'running', traceId: 't1', provider: 'claude' }, 11);
  l = applyEvent(l, 'agent_output', { traceId: 't1', content: 'Hel', offset: 0 }, 12);
  l = applyEvent(l, 'agent_output', { traceId: 't1', content: 'lo', offset: 3 }, 13);
  assert.deepEqual(l.run, { traceId: 't1', status: 'running', provider: 'claude', output: 'Hello' });
  l = applyEvent(l, 'message', { id: 4, role: 'assistant', content: 'Hello', createdAt: 2, sessionId: 's' }, 14);
  l = applyEvent(l, 'message', { id: 2, role: 'assistant', content: 'older', createdAt: 0, sessionId: 's' }, 15);
  assert.equal(l.lastAssistant!.content, 'Hello', 'an older message never replaces a newer one');
  l = applyEvent(l, 'queue_update', { pending: 2, active: true }, 16);
  l = applyEvent(l, 'orc_state', { phase: 'B', status: 'running' }, 17);
  l = applyEvent(l, 'worker_stalled', { worker: 'w1' }, 18);
  l = applyEvent(l, 'some_future_event', { x: 1 }, 19);
  assert.deepEqual(l.queue, { pending: 2, active: true });
  assert.deepEqual(l.orchestration, { phase: 'B', status: 'running' });
  assert.deepEqual(l.workers.worker_stalled, { worker: 'w1', at: 18 });
  assert.equal(l.lastUser!.id, 3);
  assert.equal(l.lastEventAt, 19);
  // a new run starts with empty output
  l = applyEvent(l, 'agent_status', { status: 'running', traceId: 't2' }, 20);
  assert.equal(l.run!.output, '');
});

test('SSE blocks: id and data kept, comments and retry dropped', () => {
  assert.deepEqual(parseSseBlock('id: ab-3\ndata: {"event":"x","n":1}'), { id: 'ab-3', data: { event: 'x', n: 1 } });
  assert.equal(parseSseBlock(': ping'), null);
  assert.equal(parseSseBlock('retry: 1000'), null);
  assert.equal(parseSseBlock('id: ab-3'), null, 'a position line without data dispatches nothing');
});

test('git paths stay inside the working directory', () => {
  assert.equal(checkRepoPath('/w', 'src/a.ts'), 'src/a.ts');
  for (const bad of ['../x', '/etc/passwd', '-p', '--output=/tmp/x', 'a/../../x', '.', 'a\\..\\b']) assert.throws(() => checkRepoPath('/w', bad), /working directory|leading dash/, bad);
});

test('the health loop spreads its checks over the period: evenly, the first at once, each inside the period', () => {
  assert.deepEqual(spreadChecks(1, 10_000), [0]);
  assert.deepEqual(spreadChecks(4, 10_000), [0, 2_500, 5_000, 7_500]);
  assert.deepEqual(spreadChecks(0, 10_000), []);
  fc.assert(fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 3_600_000 }), (count, period) => {
    const offsets = spreadChecks(count, period);
    assert.equal(offsets.length, count);
    assert.equal(offsets[0], 0);
    offsets.forEach((o, i) => {
      assert.ok(o >= 0 && o < period);
      if (i) assert.ok(o >= offsets[i - 1]!);
    });
  }));
});
