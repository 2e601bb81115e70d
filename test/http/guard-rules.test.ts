// The request guard as a function (src/http/guard.ts), without a server: every branch of the Host,
// Origin, Sec-Fetch-Site and token rules on a request object shaped like Fastify's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../src/core/errors.ts';
import { createGuard, isOpenRoute, proxiedRest } from '../../src/http/guard.ts';
import type { PeerKind } from '../../src/http/peers.ts';

const TOKEN = 'tok-0123456789abcdef';
const HOST = '127.0.0.1:3457';

interface Call {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  peer?: PeerKind;
  query?: Record<string, unknown>;
  token?: string | null;
  network?: Partial<{ trustedLanBypass: boolean; allowedHosts: string[]; allowedOrigins: string[] }>;
  proxyPrefix?: string;
}

/** The guard's answer: 'pass', or the refusal's status and code. */
async function guard(call: Call = {}): Promise<string> {
  const headers: Record<string, string> = { host: HOST, ...call.headers };
  for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
  const run = createGuard({
    token: call.token === null ? undefined : (call.token ?? TOKEN),
    classifyPeer: (address) => (address === 'peer' ? (call.peer ?? 'loopback') : 'remote'),
    network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [], ...call.network }),
    ...(call.proxyPrefix ? { proxyPrefix: call.proxyPrefix } : {}),
  });
  const request = { method: call.method ?? 'GET', url: call.url ?? '/api/session', headers, query: call.query ?? {}, socket: { remoteAddress: 'peer' } };
  try {
    await run(request as unknown as FastifyRequest);
    return 'pass';
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return `${err.status} ${err.code}`;
  }
}

test('open routes: health and the UI files, for GET and HEAD only', () => {
  for (const [method, path] of [['GET', '/api/health'], ['HEAD', '/api/health'], ['GET', '/'], ['GET', '/assets/app.js'], ['HEAD', '/index.html']]) {
    assert.equal(isOpenRoute(method!, path!), true, `${method} ${path}`);
  }
  for (const [method, path] of [
    ['POST', '/api/health'], ['POST', '/'], ['DELETE', '/x'], ['GET', '/api'], ['GET', '/api/'], ['GET', '/api/session'],
    ['GET', '/media/a.png'], ['HEAD', '/media/a.png'], ['GET', '/ws'], ['GET', '/api/healthz'],
  ]) {
    assert.equal(isOpenRoute(method!, path!), false, `${method} ${path}`);
  }
});

test('the manager\'s proxy: a path under /i/<id>/ is judged as the instance judges the rest', async () => {
  assert.equal(proxiedRest('/i/inst_a/api/events', '/i/'), '/api/events');
  assert.equal(proxiedRest('/i/inst_a', '/i/'), '/');
  assert.equal(proxiedRest('/api/session', '/i/'), '/api/session');
  const remote = { peer: 'remote' as const, proxyPrefix: '/i/' };
  for (const url of ['/i/inst_a/', '/i/inst_a', '/i/inst_a/index.html', '/i/inst_a/assets/app-X.js']) assert.equal(await guard({ ...remote, url }), 'pass', url);
  for (const url of ['/i/inst_a/api/session', '/i/inst_a/media/a.png', '/i/inst_a/ws', '/i/inst_a/api/events']) assert.equal(await guard({ ...remote, url }), '401 UNAUTHORIZED', url);
  assert.equal(await guard({ ...remote, method: 'POST', url: '/i/inst_a/' }), '401 UNAUTHORIZED', 'only GET and HEAD are open');
  assert.equal(await guard({ ...remote, url: '/i/inst_a/api/events?token=x', query: { token: TOKEN } }), 'pass', 'its event streams take ?token=');
  assert.equal(await guard({ ...remote, url: '/i/inst_a/ws?token=x', query: { token: TOKEN } }), 'pass');
  assert.equal(await guard({ ...remote, url: '/i/inst_a/api/session?token=x', query: { token: TOKEN } }), '401 UNAUTHORIZED', 'nothing else does');
});

test('Host: missing is 400, a foreign name 403, an allowed name passes', async () => {
  assert.equal(await guard({ headers: { host: '' } }), '400 BAD_REQUEST');
  assert.equal(await guard({ headers: { host: 'evil.example:3457' } }), '403 HOST_NOT_ALLOWED');
  assert.equal(await guard({ headers: { host: 'evil.example:3457' }, url: '/api/health' }), '403 HOST_NOT_ALLOWED', 'even for open routes');
  assert.equal(await guard({ headers: { host: 'box.lan:3457' }, network: { allowedHosts: ['box.lan'] } }), 'pass');
  assert.equal(await guard({ headers: { host: 'localhost:3457' } }), 'pass');
});

test('Origin: same origin or an allowed one passes, any other is 403 even on open routes', async () => {
  assert.equal(await guard({ headers: { origin: `http://${HOST}` } }), 'pass');
  assert.equal(await guard({ headers: { origin: 'http://evil.example' } }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'http://evil.example' }, url: '/api/health' }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'null' } }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'http://app.example' }, network: { allowedOrigins: ['http://app.example'] } }), 'pass');
});

test('Sec-Fetch-Site without an Origin: cross-site and same-site are refused except a navigation to a page', async () => {
  for (const site of ['cross-site', 'same-site']) {
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' } }), '403 ORIGIN_NOT_ALLOWED', site);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'cors' }, url: '/' }), '403 ORIGIN_NOT_ALLOWED', `${site} fetch of a page`);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }, url: '/' }), 'pass', `${site} navigation to the UI`);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }, url: '/api/session' }), '403 ORIGIN_NOT_ALLOWED', `${site} navigation to the API`);
  }
  // with an allowed Origin header the Origin rule has already decided
  assert.equal(await guard({ headers: { 'sec-fetch-site': 'same-site', origin: 'http://app.example' }, network: { allowedOrigins: ['http://app.example'] } }), 'pass');
  for (const site of ['same-origin', 'none']) assert.equal(await guard({ headers: { 'sec-fetch-site': site } }), 'pass', site);
});

test('tokens: loopback and (with the bypass) private peers need none; others need the right one', async () => {
  assert.equal(await guard({ peer: 'loopback' }), 'pass');
  assert.equal(await guard({ peer: 'private' }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'private', network: { trustedLanBypass: true } }), 'pass');
  assert.equal(await guard({ peer: 'remote', network: { trustedLanBypass: true } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote' }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', headers: { authorization: `Bearer ${TOKEN}` } }), 'pass');
  assert.equal(await guard({ peer: 'remote', headers: { authorization: `Bearer ${TOKEN}x` } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', headers: { authorization: `Bearer ${TOKEN}` }, token: null }), '401 UNAUTHORIZED', 'a server without a token serves loopback only');
  assert.equal(await guard({ peer: 'remote', url: '/api/health' }), 'pass');
  assert.equal(await guard({ peer: 'remote', url: '/' }), 'pass');
  assert.equal(await guard({ peer: 'remote', url: '/media/a.png' }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', url: '/api/health', method: 'POST' }), '401 UNAUTHORIZED');
});

test('a query token counts only on the streaming paths', async () => {
  for (const url of ['/api/events', '/ws', '/api/events?token=x']) {
    assert.equal(await guard({ peer: 'remote', url, query: { token: TOKEN } }), 'pass', url);
  }
  assert.equal(await guard({ peer: 'remote', url: '/api/events', query: { token: 'wrong' } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', url: '/api/events', query: { token: [TOKEN] } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', url: '/api/events' }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', url: '/api/session', query: { token: TOKEN } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote', url: '/api/session?x=1', headers: { authorization: `Bearer ${TOKEN}` } }), 'pass');
});
