// Pure rules about who is calling (src/http/peers.ts) and the token comparison (src/core/token.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken, classifyPeer, isAllowedHost, isAllowedOrigin, parseHostHeader } from '../../src/http/peers.ts';
import { tokensEqual } from '../../src/core/token.ts';

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
