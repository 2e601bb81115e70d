// The /i/:instanceId/* reverse proxy: it reaches a registered instance's API and event stream with
// the instance's token, refuses traversal and encoded separators, and knows only registered instances.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, getJson, sendJson } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { startManager, findMessage, auth } from './helpers.ts';
import { startFakeInstance } from './fake-instance.ts';

/** A raw request: fetch would normalize the dot segments the test sends on purpose. */
const raw = (url: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject).end();
  });

test('the proxy reaches a registered instance with its token and refuses bad paths and unknown ids', async () => {
  const instance = await startServer({ classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  try {
    const token = instance.app.services.token;
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token })).body.id;

    const session = await getJson(`${manager.url}/i/${id}/api/session`, { headers: { authorization: 'Bearer not-the-instance-token' } });
    assert.equal(session.status, 200, 'the manager presents the instance token, not the caller\'s');
    assert.equal(typeof session.body.provider, 'string');
    const created = await sendJson(`${manager.url}/i/${id}/api/chat-sessions`, 'POST', { title: 'through the proxy' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.session.title, 'through the proxy');

    const sse = await openSse(`${manager.url}/i/${id}/api/events`);
    try {
      assert.equal(sse.status, 200);
      await sendJson(`${manager.url}/i/${id}/api/chat-sessions`, 'POST', { title: 'second' });
      await findMessage(sse, (d) => d.event === 'session_created' && d.title === 'second', 'the event through the proxied stream', 5000);
    } finally {
      sse.close();
    }

    for (const path of [`/i/${id}/../api/dashboard/instances`, `/i/${id}/api/..%2f..%2fetc`, `/i/${id}/api%2Fsession`, `/i/${id}/api/%2e%2e/session`, `/i/${id}/api\\session`]) {
      const answer = await raw(manager.url, path);
      assert.ok(answer.status === 400 || answer.status === 404, `${path}: ${answer.status}`);
      assert.notEqual(answer.status, 200);
    }
    assert.equal((await raw(manager.url, `/i/${id}/api/..%2fsession`)).status, 400);
    // an empty segment would read as another host if the path were resolved as a URL
    assert.equal((await raw(manager.url, `/i/${id}//127.0.0.1:1/api/session`)).status, 400);
    // the instance hands its token to loopback callers, and the manager is one: never through the proxy
    const tokenAnswer = await raw(manager.url, `/i/${id}/api/auth/token`);
    assert.equal(tokenAnswer.status, 403);
    assert.ok(!tokenAnswer.body.includes(token));
    const bare = await fetch(`${manager.url}/i/${id}?x=1`, { redirect: 'manual' });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get('location'), `/i/${id}/?x=1`);
    const unknown = await getJson(`${manager.url}/i/inst_000000000000/api/session`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'NOT_FOUND');
  } finally {
    await manager.close();
    await instance.close();
  }
});

test('through the proxy a remote caller needs the manager token as on the instance: the UI\'s files are open, the API and media are not', async () => {
  const instance = await startServer();
  const manager = await startManager({ classifyPeer: () => 'remote' as const });
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token, label: 'x' }).then((r) => (r.status === 401 ? null : r))) ?? null;
    assert.equal(id, null, 'adding needs the token too');
    const added = await getJson(`${manager.url}/api/dashboard/instances`, { method: 'POST', headers: { ...auth(manager.app.token), 'content-type': 'application/json' }, body: JSON.stringify({ url: instance.url, token: instance.app.services.token }) });
    assert.equal(added.status, 201);
    assert.equal((await getJson(`${manager.url}/i/${added.body.id}/api/session`)).status, 401);
    assert.equal((await getJson(`${manager.url}/i/${added.body.id}/media/x.png`)).status, 401);
    assert.equal((await getJson(`${manager.url}/i/${added.body.id}/api/events`)).status, 401);
    assert.equal((await getJson(`${manager.url}/i/${added.body.id}/api/session?token=${manager.app.token}`)).status, 401, '?token= only on the event streams, as on the instance');
    const page = await fetch(`${manager.url}/i/${added.body.id}/`);
    assert.notEqual(page.status, 401, 'the UI page loads, as it does on the instance itself');
    assert.equal((await getJson(`${manager.url}/i/${added.body.id}/api/session`, { headers: auth(manager.app.token) })).status, 200);
    const sse = await openSse(`${manager.url}/i/${added.body.id}/api/events?token=${manager.app.token}`);
    try {
      assert.equal(sse.status, 200, 'an EventSource carries the manager token in the query');
    } finally {
      sse.close();
    }
  } finally {
    await manager.close();
    await instance.close();
  }
});

test('through the proxy the chat UI\'s files are the manager\'s own, and what an instance answers never runs as the manager\'s origin', async () => {
  const fake = await startFakeInstance();
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: fake.url, token: fake.token })).body.id as string;
    // (meanwhile the manager checks it and its bridge tries its event stream)
    const asked = () => fake.seen.filter((r) => !/^\/api\/(runtime|session|events)$/.test(r.url)).map((r) => r.url);
    for (const path of ['/', '/index.html']) {
      const page = await fetch(`${manager.url}/i/${id}${path}`);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src/, 'the UI\'s own CSP');
      await page.text();
    }
    assert.equal((await fetch(`${manager.url}/i/${id}/assets/app-NOPE.js`)).status, 404);
    assert.deepEqual(asked(), [], 'the instance was not asked for UI files');

    const page = await fetch(`${manager.url}/i/${id}/media/page.html`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), 'sandbox', 'the instance\'s own CSP is replaced');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(asked(), ['/media/page.html']);
  } finally {
    await manager.close();
    await fake.close();
  }
});

/** A request whose body is streamed in pieces, as curl and browsers send large uploads. */
const streamed = (url: string, method: string, path: string, size: number) =>
  new Promise<{ status: number; body: string }>((resolve) => {
    const u = new URL(url);
    const piece = Buffer.alloc(64 * 1024, 'a');
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers: { 'content-type': 'application/json', 'content-length': String(size) }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', (err) => resolve({ status: 0, body: String(err) }));
    let sent = 0;
    const next = () => {
      if (req.destroyed) return;
      const n = Math.min(piece.length, size - sent);
      sent += n;
      if (sent >= size) return void req.end(piece.subarray(0, n));
      req.write(piece.subarray(0, n), () => setImmediate(next));
    };
    next();
  });

test('the proxy passes the instance\'s own answer through: its 413 for a body over its limit, its 200 for a GET that ignores one', async () => {
  const instance = await startServer();
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token })).body.id;
    for (const method of ['POST', 'PUT', 'DELETE']) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const answer = await streamed(manager.url, method, `/i/${id}/api/chat-sessions`, 2 * 1024 * 1024);
        assert.equal(answer.status, 413, `${method}, attempt ${attempt}: ${answer.body}`);
        assert.equal(JSON.parse(answer.body).error, 'PAYLOAD_TOO_LARGE');
      }
    }
    const get = await streamed(manager.url, 'GET', `/i/${id}/api/session`, 2 * 1024 * 1024);
    assert.equal(get.status, 200, get.body);
    assert.equal(typeof JSON.parse(get.body).sessionId, 'string');
    const missing = await raw(manager.url, `/i/${id}/api/chat-sessions/ses_nope/switch`);
    assert.equal(missing.status, 404, 'a GET the instance has no route for: its 404');
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).status, 200, 'the manager still serves');
  } finally {
    await manager.close();
    await instance.close();
  }
});

test('the proxy answers 502 only when the instance did not answer', async () => {
  const instance = await startServer();
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token })).body.id;
    await instance.close();
    const answer = await getJson(`${manager.url}/i/${id}/api/session`);
    assert.equal(answer.status, 502);
    assert.equal(answer.body.error, 'INSTANCE_UNREACHABLE');
  } finally {
    await manager.close();
  }
});
