// HTTPS: a core server given a certificate serves HTTPS only, with HSTS on every answer (refusals and
// the event stream included), records its URL and certificate's fingerprint in its lock file, and
// still asks remote peers for the token. svc's own clients reach it by pinning that fingerprint: the
// right one connects, another one is refused before the request (and its token) is written.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { createServer as createTlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { homePaths } from '../../src/core/home.ts';
import { readServerLock } from '../../src/core/server-lock.ts';
import { connectionOptions, isCertificateRefusal, PinMismatchError, type ServerTls } from '../../src/core/tls.ts';
import { HSTS } from '../../src/http/create-server.ts';
import { RemoteRuleSource } from '../../src/modules/automation/web-routing/index.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { makeCertificate } from '../support/tls.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET; an event stream is read up to its head only. */
function get(url: string, options: { pin?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(target, { headers: options.headers, ...connectionOptions(target, options.pin) }, (response) => {
      const head = { status: response.statusCode ?? 0, headers: response.headers };
      if (String(response.headers['content-type']).startsWith('text/event-stream')) {
        response.destroy();
        return resolve({ ...head, body: '' });
      }
      let body = '';
      response.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ ...head, body }));
    });
    request.on('error', reject);
  });
}

describe('a core server with a certificate', () => {
  let tls: ServerTls;
  let other: ServerTls;
  let server: TestServer;
  let token: string;
  before(async () => {
    tls = makeCertificate();
    other = makeCertificate('another');
    // every peer counts as remote: the token check applies to each request here
    server = await startServer({ tls, classifyPeer: () => 'remote' });
    token = server.app.services.token;
  });
  after(() => server?.close());

  test('answers over HTTPS to a client pinning its fingerprint, with HSTS', async () => {
    assert.match(server.url, /^https:\/\//);
    const health = await get(`${server.url}/api/health`, { pin: tls.fingerprint });
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body).ok, true);
    assert.equal(health.headers['strict-transport-security'], HSTS);
    assert.equal(HSTS, 'max-age=86400');
  });

  test('the token still applies, and a refusal carries HSTS too', async () => {
    const refused = await get(`${server.url}/api/runtime`, { pin: tls.fingerprint });
    assert.equal(refused.status, 401);
    assert.equal(JSON.parse(refused.body).error, 'UNAUTHORIZED');
    assert.equal(refused.headers['strict-transport-security'], HSTS);
    const notFound = await get(`${server.url}/api/no-such-route`, { pin: tls.fingerprint, headers: { authorization: `Bearer ${token}` } });
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers['strict-transport-security'], HSTS);
    const allowed = await get(`${server.url}/api/runtime`, { pin: tls.fingerprint, headers: { authorization: `Bearer ${token}` } });
    assert.equal(allowed.status, 200);
  });

  test('the event stream carries HSTS', async () => {
    const stream = await get(`${server.url}/api/events`, { pin: tls.fingerprint, headers: { authorization: `Bearer ${token}` } });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.equal(stream.headers['strict-transport-security'], HSTS);
  });

  test('plain HTTP on its port gets no answer', async () => {
    await assert.rejects(get(`http://127.0.0.1:${server.port}/api/health`));
  });

  test('another certificate\'s fingerprint is refused before anything is sent', async () => {
    const err = await get(`${server.url}/api/health`, { pin: other.fingerprint }).then(
      () => assert.fail('connected with the wrong pin'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PinMismatchError, String(err));
    assert.ok(isCertificateRefusal(err));
  });

  test('without a pin the certificate is verified the usual way, and a self-signed one fails', async () => {
    const err = await get(`${server.url}/api/health`).then(
      () => assert.fail('an unverified certificate was accepted'),
      (e: unknown) => e,
    );
    assert.ok(isCertificateRefusal(err), String(err));
  });

  test('the lock file records the https URL and the certificate\'s fingerprint', () => {
    const lock = readServerLock(homePaths(server.home).lock);
    assert.equal(lock?.url, server.url);
    assert.equal(lock?.certFingerprint, tls.fingerprint);
  });
});

test('a pinned client writes nothing, token included, to a server with another certificate', async () => {
  const expected = makeCertificate();
  const impostor = makeCertificate('impostor');
  let received = '';
  const server = createTlsServer({ cert: impostor.cert, key: impostor.key }, (socket) => {
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await assert.rejects(get(`https://127.0.0.1:${port}/api/runtime`, { pin: expected.fingerprint, headers: { authorization: 'Bearer secret-token' } }), PinMismatchError);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(received, '');
  } finally {
    server.close();
  }
});

test('the browser server\'s rule fetches reach an https core by its pin, and refuse another certificate', async () => {
  const tls = makeCertificate();
  const server = await startServer({ tls });
  const sources: RemoteRuleSource[] = [];
  try {
    const added = await new Promise<number>((resolve, reject) => {
      const target = new URL(`${server.url}/api/web-routing/rules`);
      const request = https.request(target, { method: 'POST', headers: { 'content-type': 'application/json' }, ...connectionOptions(target, tls.fingerprint) }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject).end(JSON.stringify({ command: '/web-routing mock GET /api/users/:id {"id":1}' }));
    });
    assert.ok(added >= 200 && added < 300, `adding a rule: HTTP ${added}`);

    const errors: unknown[] = [];
    const pinned = new RemoteRuleSource(server.url, (err) => errors.push(err), tls.fingerprint);
    sources.push(pinned);
    const empty = pinned.current();
    await pinned.refresh();
    assert.deepEqual(errors, []);
    assert.notEqual(pinned.current(), empty, 'the rule was fetched');

    const wrong: unknown[] = [];
    const other = new RemoteRuleSource(server.url, (err) => wrong.push(err), makeCertificate('other').fingerprint);
    sources.push(other);
    await other.refresh();
    assert.ok(wrong.some((err) => err instanceof PinMismatchError), String(wrong[0]));
  } finally {
    for (const source of sources) source.close();
    await server.close();
  }
});

test('a server without a certificate sends no HSTS and records no fingerprint', async () => {
  const server = await startServer();
  try {
    const health = await get(`${server.url}/api/health`);
    assert.equal(health.status, 200);
    assert.equal(health.headers['strict-transport-security'], undefined);
    assert.equal(readServerLock(homePaths(server.home).lock)?.certFingerprint, undefined);
  } finally {
    await server.close();
  }
});
