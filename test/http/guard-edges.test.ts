// The edges of the guard's rules (src/http/guard.ts, src/http/peers.ts) that the main cases do not
// reach: each private range exactly at its bounds, look-alikes of the IPv6 private prefixes, Host and
// Origin parsing corners, and what each refusal tells the caller to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../src/core/errors.ts';
import { createGuard } from '../../src/http/guard.ts';
import { bearerToken, classifyPeer, isAllowedHost, isAllowedOrigin, parseHostHeader } from '../../src/http/peers.ts';

test('private IPv4 ranges at their bounds, and the same second octet under another first one', () => {
  const cases: [string, string][] = [
    ['172.15.255.255', 'remote'], ['172.16.0.0', 'private'], ['172.31.0.1', 'private'], ['172.32.0.0', 'remote'],
    ['8.20.0.1', 'remote'], ['192.168.0.1', 'private'], ['192.167.0.1', 'remote'], ['11.168.0.1', 'remote'],
    ['169.254.3.4', 'private'], ['169.253.0.1', 'remote'], ['1.254.0.1', 'remote'],
    ['100.63.255.255', 'remote'], ['100.64.0.0', 'private'], ['100.127.255.255', 'private'], ['100.128.0.0', 'remote'], ['5.100.0.1', 'remote'], ['5.64.0.1', 'remote'],
    ['10.0.0.1', 'private'], ['9.10.0.1', 'remote'],
  ];
  for (const [address, kind] of cases) assert.equal(classifyPeer(address), kind, address);
});

test('IPv6 private prefixes count only at the start of the address', () => {
  const cases: [string, string][] = [
    ['fc00::1', 'private'], ['fdab::1', 'private'], ['fe80::1', 'private'], ['febf::1', 'private'], ['fec0::1', 'remote'],
    ['2001:fd12::1', 'remote'], ['2001:fe80::1', 'remote'], ['FD12::1', 'private'],
  ];
  for (const [address, kind] of cases) assert.equal(classifyPeer(address), kind, address);
});

test('Host and Origin corners', () => {
  assert.deepEqual(parseHostHeader(' localhost:3457 '), { hostname: 'localhost', port: '3457' }, 'surrounding spaces are ignored');
  assert.deepEqual(parseHostHeader('[fe80::1]'), { hostname: 'fe80::1', port: '' });
  assert.ok(!isAllowedHost('box.lan', ['other.lan']), 'only the names listed');
  assert.ok(isAllowedHost('BOX.lan:1', ['box.LAN']), 'names compare without case');
  assert.ok(isAllowedOrigin('https://localhost:3457', 'localhost:3457', []), 'https is an origin too');
  assert.ok(!isAllowedOrigin('ftp://localhost:3457', 'localhost:3457', []), 'only http and https');
  assert.ok(!isAllowedOrigin('http://a.example', 'localhost:3457', ['not a url']), 'a bad entry allows nothing');
  assert.ok(isAllowedOrigin('http://a.example', 'localhost:3457', ['not a url', 'http://a.example']));
  assert.ok(isAllowedOrigin('http://LOCALHOST:3457', ' localhost:3457 ', []));
  assert.ok(!isAllowedOrigin('http://localhost:3457', undefined, []));
});

test('a bearer token is the whole header: the scheme first, one value, nothing after', () => {
  assert.equal(bearerToken('Bearer  abc'), 'abc', 'several spaces are fine');
  assert.equal(bearerToken('xBearer abc'), undefined);
  assert.equal(bearerToken('Basic Bearer abc'), undefined);
  assert.equal(bearerToken('Bearer abc def'), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test('each refusal says what to do next', async () => {
  const guard = createGuard({
    token: 'tok-0123456789',
    classifyPeer: () => 'remote',
    network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }),
  });
  const refusal = async (headers: Record<string, string>) => {
    try {
      await guard({ method: 'GET', url: '/api/session', raw: {}, routeOptions: { config: { access: 'token' } }, headers, query: {}, socket: { remoteAddress: '8.8.8.8' } } as unknown as FastifyRequest);
    } catch (err) {
      assert.ok(err instanceof AppError);
      return err.message;
    }
    assert.fail('passed');
  };
  assert.equal(await refusal({}), 'The request has no Host header (HTTP/1.1 requires one).');
  assert.equal(
    await refusal({ host: 'evil.example:1' }),
    "Host 'evil.example:1' is not served here. Use localhost or an IP address, or add the name to settings network.allowedHosts.",
  );
  assert.equal(
    await refusal({ host: '127.0.0.1:1', origin: 'http://evil.example' }),
    "Cross-origin requests from 'http://evil.example' are refused. Add it to settings network.allowedOrigins to allow it.",
  );
  assert.equal(await refusal({ host: '127.0.0.1:1', 'sec-fetch-site': 'same-site' }), 'Cross-site requests are refused.');
  assert.match(await refusal({ host: '127.0.0.1:1' }), /svc token/);
});
