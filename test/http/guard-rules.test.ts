// The request guard as a function (src/http/guard.ts), without a server: every branch of the Host,
// Origin, Sec-Fetch-Site and token rules on a request object shaped like Fastify's, whose matched
// route declares its access (public, token, token-or-query).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../src/core/errors.ts';
import { createGuard, markRefusedTarget } from '../../src/http/guard.ts';
import type { Access } from '../../src/http/routes.ts';
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
  /** The matched route's declared access; undefined = no route matched (the not-found answer). */
  access?: Access;
  /** Why create-server found no canonical form for the target. */
  refusedTarget?: string;
}

/** The guard's answer: 'pass', or the refusal's status and code. */
async function guard(call: Call = {}): Promise<string> {
  const headers: Record<string, string> = { host: HOST, ...call.headers };
  for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
  const run = createGuard({
    token: call.token === null ? undefined : (call.token ?? TOKEN),
    classifyPeer: (address) => (address === 'peer' ? (call.peer ?? 'loopback') : 'remote'),
    network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [], ...call.network }),
  });
  const raw = {};
  if (call.refusedTarget) markRefusedTarget(raw, call.refusedTarget);
  const config = call.access ? { access: call.access } : {};
  const request = { method: call.method ?? 'GET', url: call.url ?? '/api/session', raw, routeOptions: { config }, headers, query: call.query ?? {}, socket: { remoteAddress: 'peer' } };
  try {
    await run(request as unknown as FastifyRequest);
    return 'pass';
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return `${err.status} ${err.code}`;
  }
}

test('a target without a canonical form is 400 BAD_URL before any other rule, whatever the route', async () => {
  assert.equal(await guard({ refusedTarget: 'the path has a dot segment (..)', access: 'public' }), '400 BAD_URL');
  assert.equal(await guard({ refusedTarget: 'x', headers: { host: 'evil.example' } }), '400 BAD_URL');
});

test('access is the matched route\'s: public passes any peer, token and no route need the token', async () => {
  assert.equal(await guard({ peer: 'remote', access: 'public' }), 'pass');
  assert.equal(await guard({ peer: 'remote', access: 'token' }), '401 UNAUTHORIZED');
  assert.equal(await guard({ peer: 'remote' }), '401 UNAUTHORIZED', 'an unmatched request is not public');
  assert.equal(await guard({ peer: 'loopback' }), 'pass', 'loopback reaches the not-found answer');
  assert.equal(await guard({ peer: 'remote', access: 'public', url: '/api/settings' }), 'pass', 'the URL\'s text decides nothing');
  assert.equal(await guard({ peer: 'remote', access: 'token', url: '/' }), '401 UNAUTHORIZED', 'the URL\'s text decides nothing');
});

test('Host: missing is 400, a foreign name 403, an allowed name passes', async () => {
  assert.equal(await guard({ headers: { host: '' } }), '400 BAD_REQUEST');
  assert.equal(await guard({ headers: { host: 'evil.example:3457' } }), '403 HOST_NOT_ALLOWED');
  assert.equal(await guard({ headers: { host: 'evil.example:3457' }, access: 'public' }), '403 HOST_NOT_ALLOWED', 'even for open routes');
  assert.equal(await guard({ headers: { host: 'box.lan:3457' }, network: { allowedHosts: ['box.lan'] } }), 'pass');
  assert.equal(await guard({ headers: { host: 'localhost:3457' } }), 'pass');
});

test('Origin: same origin or an allowed one passes, any other is 403 even on open routes', async () => {
  assert.equal(await guard({ headers: { origin: `http://${HOST}` } }), 'pass');
  assert.equal(await guard({ headers: { origin: 'http://evil.example' } }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'http://evil.example' }, access: 'public' }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'null' } }), '403 ORIGIN_NOT_ALLOWED');
  assert.equal(await guard({ headers: { origin: 'http://app.example' }, network: { allowedOrigins: ['http://app.example'] } }), 'pass');
});

test('Sec-Fetch-Site without an Origin: cross-site and same-site are refused except a navigation to a page', async () => {
  for (const site of ['cross-site', 'same-site']) {
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' } }), '403 ORIGIN_NOT_ALLOWED', site);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'cors' }, access: 'public' }), '403 ORIGIN_NOT_ALLOWED', `${site} fetch of a page`);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }, access: 'public' }), 'pass', `${site} navigation to the UI`);
    assert.equal(await guard({ headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }, access: 'token' }), '403 ORIGIN_NOT_ALLOWED', `${site} navigation to the API`);
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
  assert.equal(await guard({ peer: 'remote', access: 'public' }), 'pass');
  assert.equal(await guard({ peer: 'remote', access: 'token', url: '/media/a.png' }), '401 UNAUTHORIZED');
});

test('a query token counts only on routes declared token-or-query (the event streams)', async () => {
  const stream = { peer: 'remote' as const, access: 'token-or-query' as const };
  assert.equal(await guard({ ...stream, query: { token: TOKEN } }), 'pass');
  assert.equal(await guard({ ...stream, query: { token: 'wrong' } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ ...stream, query: { token: [TOKEN] } }), '401 UNAUTHORIZED');
  assert.equal(await guard({ ...stream }), '401 UNAUTHORIZED');
  assert.equal(await guard({ ...stream, headers: { authorization: `Bearer ${TOKEN}` } }), 'pass', 'the header works there too');
  assert.equal(await guard({ peer: 'remote', access: 'token', url: '/api/events', query: { token: TOKEN } }), '401 UNAUTHORIZED', 'not on a token route, whatever its path');
  assert.equal(await guard({ peer: 'remote', url: '/api/session?x=1', headers: { authorization: `Bearer ${TOKEN}` } }), 'pass');
});
