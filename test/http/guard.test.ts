import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyPeer } from '../../src/http/peers.ts';
import { startServer, type TestServer } from '../support/server.ts';

// 127.0.0.2 stands for a remote peer and 127.0.0.3 for a private-network one: the server's
// address classifier is injected, the packets really come from those source addresses.
const REMOTE = '127.0.0.2';
const PRIVATE = '127.0.0.3';
const classify = (address: string | undefined) =>
  address?.endsWith(REMOTE) ? 'remote' : address?.endsWith(PRIVATE) ? 'private' : classifyPeer(address);

interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

function request(server: TestServer, path: string, options: { method?: string; from?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${server.url}${path}`,
      { method: options.method ?? 'GET', localAddress: options.from, headers: options.headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep text
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('auth and request guard', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startServer({ classifyPeer: classify });
    token = server.app.services.token;
  });
  after(() => server.close());

  test('loopback needs no token', async () => {
    const answer = await request(server, '/api/session');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.sessionId);
  });

  test('a remote peer without a token, or with a wrong one, gets 401 with the JSON error body', async () => {
    const missing = await request(server, '/api/session', { from: REMOTE });
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error, 'UNAUTHORIZED');
    assert.match(missing.body.message, /svc token/);
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="svc"');
    const wrong = await request(server, '/api/session', { from: REMOTE, headers: { authorization: `Bearer ${token.slice(0, -1)}x` } });
    assert.equal(wrong.status, 401);
    const right = await request(server, '/api/session', { from: REMOTE, headers: { authorization: `Bearer ${token}` } });
    assert.equal(right.status, 200);
  });

  test('media files are not open: a remote peer needs the token to read an upload', async () => {
    writeFileSync(join(server.home, 'media', 'upload-guard.txt'), 'private upload');
    const without = await request(server, '/media/upload-guard.txt', { from: REMOTE });
    assert.equal(without.status, 401);
    assert.equal(without.body.error, 'UNAUTHORIZED');
    assert.ok(!JSON.stringify(without.body).includes('private upload'));
    const wrong = await request(server, '/media/upload-guard.txt', { from: REMOTE, headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const right = await request(server, '/media/upload-guard.txt', { from: REMOTE, headers: { authorization: `Bearer ${token}` } });
    assert.equal(right.status, 200);
    assert.equal(right.body, 'private upload');
    const ui = await request(server, '/', { from: REMOTE });
    assert.notEqual(ui.status, 401, 'the UI page itself is open');
  });

  test('health stays open to a remote peer; the token route does not', async () => {
    assert.equal((await request(server, '/api/health', { from: REMOTE })).status, 200);
    const token403 = await request(server, '/api/auth/token', { from: REMOTE, headers: { authorization: `Bearer ${token}` } });
    assert.equal(token403.status, 403);
    assert.equal(token403.body.error, 'TOKEN_LOOPBACK_ONLY');
  });

  test('the token is handed to a command-line or same-origin loopback request only', async () => {
    const cli = await request(server, '/api/auth/token');
    assert.equal(cli.status, 200);
    assert.equal(cli.body.token, token);
    assert.equal(cli.headers['cache-control'], 'no-store');
    const sameOrigin = await request(server, '/api/auth/token', {
      headers: { origin: server.url, 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(sameOrigin.status, 200);
    const crossSite = await request(server, '/api/auth/token', { headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.body.token, undefined);
  });

  test('the token file is private (0600) and holds the same token', () => {
    const path = join(server.home, 'token');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, 'utf8').trim(), token);
  });

  test('a Host header that does not name this server is refused (DNS rebinding)', async () => {
    const answer = await request(server, '/api/session', { headers: { host: `evil.example:${server.port}` } });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error, 'HOST_NOT_ALLOWED');
    const localhost = await request(server, '/api/session', { headers: { host: `localhost:${server.port}` } });
    assert.equal(localhost.status, 200);
  });

  test('cross-origin browser requests are refused; same-origin ones pass', async () => {
    const cross = await request(server, '/api/session', { headers: { origin: 'http://evil.example' } });
    assert.equal(cross.status, 403);
    assert.equal(cross.body.error, 'ORIGIN_NOT_ALLOWED');
    const otherPort = await request(server, '/api/session', { headers: { origin: 'http://127.0.0.1:1' } });
    assert.equal(otherPort.status, 403, 'another local web app is another origin');
    const noOriginCrossSite = await request(server, '/api/messages', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } });
    assert.equal(noOriginCrossSite.status, 403);
    // a sibling subdomain is another site's page too: same-site is not same-origin
    const noOriginSameSite = await request(server, '/api/messages', { headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' } });
    assert.equal(noOriginSameSite.status, 403);
    assert.equal(noOriginSameSite.body.error, 'ORIGIN_NOT_ALLOWED');
    const sameSiteNavigationToApi = await request(server, '/api/auth/token', { headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' } });
    assert.equal(sameSiteNavigationToApi.status, 403, 'a navigation reaches pages, never the API');
    const crossSiteNavigation = await request(server, '/', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    assert.notEqual(crossSiteNavigation.status, 403, 'a link from elsewhere may open the UI');
    const sameOriginNoOrigin = await request(server, '/api/messages', { headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' } });
    assert.equal(sameOriginNoOrigin.status, 200);
    const same = await request(server, '/api/session', { headers: { origin: server.url } });
    assert.equal(same.status, 200);
    const mutation = await request(server, '/api/chat-sessions', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{"title":"x"}',
    });
    assert.equal(mutation.status, 403);
    assert.equal(server.app.services.chat.sessions.list().some((s) => s.title === 'x'), false);
  });

  test('mutating routes accept JSON only (no simple cross-site form posts)', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const answer = await request(server, '/api/chat-sessions', { method: 'POST', headers: { 'content-type': type }, body: 'title=x' });
      assert.equal(answer.status, 415, type);
      assert.equal(answer.body.error, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('SSE accepts the token as a query parameter (EventSource cannot send headers)', async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.get(`${server.url}/api/events?token=${encodeURIComponent(token)}`, { localAddress: REMOTE, agent: false }, (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    });
    assert.equal(answer, 200);
    const without = await request(server, '/api/events', { from: REMOTE });
    assert.equal(without.status, 401);
    const queryElsewhere = await request(server, `/api/session?token=${encodeURIComponent(token)}`, { from: REMOTE });
    assert.equal(queryElsewhere.status, 401, 'query tokens only on the streaming paths');
  });

  test('private-network peers need the token unless trusted-LAN bypass is enabled', async () => {
    assert.equal((await request(server, '/api/session', { from: PRIVATE })).status, 401);
    const enable = await request(server, '/api/settings', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: { trustedLanBypass: true } }),
    });
    assert.equal(enable.status, 200);
    assert.equal((await request(server, '/api/session', { from: PRIVATE })).status, 200);
    assert.equal((await request(server, '/api/session', { from: REMOTE })).status, 401, 'bypass is for private addresses only');
    await request(server, '/api/settings', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: { trustedLanBypass: false } }),
    });
    assert.equal((await request(server, '/api/session', { from: PRIVATE })).status, 401);
  });
});

describe('refused WebSocket upgrades', () => {
  test('get 401 and do not keep the server from closing', async () => {
    const { default: WebSocket } = await import('ws');
    const server = await startServer({ classifyPeer: () => 'remote' });
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    assert.equal(status, 401);
    const closed = await Promise.race([server.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('hung'), 4000))]);
    assert.equal(closed, 'closed');
  });
});
