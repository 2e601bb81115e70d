import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken, classifyPeer, isAllowedHost, isAllowedOrigin, parseHostHeader } from '../../../src/http/peers.ts';
import { DEFAULT_SETTINGS, mergePatch, redactSettings, validateSettings } from '../../../src/config/settings.ts';
import { parseEventId } from '../../../src/events/wire.ts';
import { toFtsQuery } from '../../../src/store/messages.ts';
import { tokensEqual } from '../../../src/config/token.ts';
import { EventBus } from '../../../src/events/bus.ts';

test('peer classes', () => {
  const cases: [string | undefined, string][] = [
    ['127.0.0.1', 'loopback'], ['127.9.9.9', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.5', 'private'],
    ['100.64.0.1', 'private'], ['fd12:3456::1', 'private'], ['fe80::1', 'private'], ['::ffff:192.168.0.2', 'private'],
    ['172.32.0.1', 'remote'], ['8.8.8.8', 'remote'], ['2001:db8::1', 'remote'], [undefined, 'remote'], ['garbage', 'remote'],
  ];
  for (const [address, kind] of cases) assert.equal(classifyPeer(address), kind, String(address));
});

test('Host header rules', () => {
  assert.deepEqual(parseHostHeader('[::1]:3457'), { hostname: '::1', port: '3457' });
  assert.deepEqual(parseHostHeader('LocalHost'), { hostname: 'localhost', port: '' });
  assert.equal(parseHostHeader('a:b:c'), null);
  for (const host of ['localhost:3457', '127.0.0.1:1', '[::1]:3457', '192.168.1.4:3457', 'app.localhost']) {
    assert.ok(isAllowedHost(host, []), host);
  }
  for (const host of ['evil.example', 'localhost.evil.example:3457', undefined, '']) {
    assert.ok(!isAllowedHost(host, []), String(host));
  }
  assert.ok(isAllowedHost('box.lan:3457', ['box.lan']));
});

test('Origin rules', () => {
  assert.ok(isAllowedOrigin('http://localhost:3457', 'localhost:3457', []));
  assert.ok(!isAllowedOrigin('http://localhost:5173', 'localhost:3457', []));
  assert.ok(!isAllowedOrigin('null', 'localhost:3457', []));
  assert.ok(!isAllowedOrigin('file://', 'localhost:3457', []));
  assert.ok(isAllowedOrigin('http://localhost:5173', 'localhost:3457', ['http://localhost:5173']));
});

test('bearer token parsing and constant-time comparison', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer abc '), 'abc');
  assert.equal(bearerToken('abc'), undefined);
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.ok(tokensEqual('same-token', 'same-token'));
  assert.ok(!tokensEqual('same-token', 'same-tokeN'));
  assert.ok(!tokensEqual('same-token', ''));
});

test('settings merge patch: objects merge, arrays replace, null resets, *** keeps secrets', () => {
  const current = structuredClone(DEFAULT_SETTINGS);
  current.agent.env = { KEY: 'secret', OTHER: 'x' };
  current.agent.fallback = ['codex'];
  const merged = mergePatch(current, { agent: { fallback: ['gemini', 'opencode'], model: null, env: { KEY: '***', OTHER: null, NEW: 'n' } } }, DEFAULT_SETTINGS) as typeof current;
  assert.deepEqual(merged.agent.fallback, ['gemini', 'opencode']);
  assert.equal(merged.agent.model, '');
  assert.deepEqual(merged.agent.env, { KEY: 'secret', NEW: 'n' });
  assert.equal(merged.agent.provider, 'claude');
  const redacted = redactSettings(validateSettings(merged)) as typeof current;
  assert.deepEqual(redacted.agent.env, { KEY: '***', NEW: '***' });
});

test('event ids', () => {
  assert.deepEqual(parseEventId('a1b2-17'), { streamId: 'a1b2', seq: 17 });
  for (const bad of ['', '17', 'a-b', 'a1-2-3', 'x-' + '9'.repeat(20), undefined]) assert.equal(parseEventId(bad), null, String(bad));
});

test('FTS queries quote user terms', () => {
  assert.equal(toFtsQuery('hello world'), '"hello" "world"');
  assert.equal(toFtsQuery('pine*'), '"pine"*');
  assert.equal(toFtsQuery('say "hi" OR'), '"say" """hi""" "OR"');
  assert.equal(toFtsQuery('   '), null);
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
