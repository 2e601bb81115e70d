// WebSocket upgrades through /i/:instanceId/*: relayed both ways with the instance's token (never
// the caller's credentials or the manager's ?token=), and refused with an HTTP status before any
// handshake when the instance is unknown, the path is bad, the Origin is foreign, the caller lacks
// the manager's token, or the instance itself refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startServer, sendJson } from '../../support/server.ts';
import { startManager, auth, until } from './helpers.ts';
import { startFakeInstance } from './fake-instance.ts';

const wsUrl = (httpUrl: string, path: string) => `${httpUrl.replace(/^http/, 'ws')}${path}`;

/** Opens a WebSocket; resolves once open (with the messages it gets), or with the refusal's status. */
function connect(url: string, options: WebSocket.ClientOptions & { protocols?: string[] } = {}) {
  return new Promise<{ ws: WebSocket; messages: { data: string; binary: boolean }[] } | { status: number }>((resolve, reject) => {
    const ws = new WebSocket(url, options.protocols ?? [], options);
    const messages: { data: string; binary: boolean }[] = [];
    ws.on('message', (data, binary) => messages.push({ data: String(data), binary }));
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** The status a raw upgrade request gets (101 when it is switched): the path goes as written, unnormalized. */
function upgradeStatus(base: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path,
      agent: false,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': randomBytes(16).toString('base64'), 'sec-websocket-version': '13', ...headers },
    });
    req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)));
    req.on('upgrade', (_res, socket) => (socket.destroy(), resolve(101)));
    req.on('error', reject).end();
  });
}

test('a WebSocket through the proxy: echoed both ways, text and binary, with the instance token only', async () => {
  const fake = await startFakeInstance();
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: fake.url, token: fake.token })).body.id as string;
    const opened = await connect(wsUrl(manager.url, `/i/${id}/echo?token=manager-secret&x=1`), {
      protocols: ['echo.v1'],
      headers: { authorization: 'Bearer caller-credential', cookie: 'session=caller' },
    });
    assert.ok('ws' in opened, `refused: ${JSON.stringify(opened)}`);
    const { ws, messages } = opened;
    try {
      assert.equal(ws.protocol, 'echo.v1', 'the subprotocol the instance chose reaches the caller');
      await until(() => (messages.length >= 1 ? true : undefined), 'the greeting the instance sends at once');
      assert.deepEqual(JSON.parse(messages[0]!.data), { hello: 'echo.v1' });
      ws.send('ping through the proxy');
      ws.send(Buffer.from([1, 2, 3]), { binary: true });
      await until(() => (messages.length >= 3 ? true : undefined), 'both echoes');
      assert.deepEqual(messages.slice(1), [
        { data: 'ping through the proxy', binary: false },
        { data: '\u0001\u0002\u0003', binary: true },
      ]);

      const upgrade = fake.seen.find((r) => r.upgrade)!;
      assert.equal(upgrade.url, '/echo?x=1', 'the manager\'s ?token= is not forwarded');
      assert.equal(upgrade.headers.authorization, `Bearer ${fake.token}`);
      assert.equal(upgrade.headers.cookie, undefined);

      // the instance closing ends the caller's side with the same code
      const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code, reason) => resolve([code, String(reason)])));
      ws.send('close please');
      assert.deepEqual(await closed, [4001, 'asked to']);
    } finally {
      ws.terminate();
    }
  } finally {
    await manager.close();
    await fake.close();
  }
});

test('WebSocket upgrades through the proxy are refused before the handshake: unknown id, bad paths, foreign Origin, refusal upstream', async () => {
  const fake = await startFakeInstance();
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: fake.url, token: fake.token })).body.id as string;
    assert.equal(await upgradeStatus(manager.url, `/i/${id}/echo`), 101, 'the plain path is switched');
    const reached = fake.seen.filter((r) => r.upgrade).length;
    assert.equal(await upgradeStatus(manager.url, '/i/inst_000000000000/echo'), 404);
    for (const path of [`/i/${id}/../echo`, `/i/${id}/x/%2e%2e/echo`, `/i/${id}/a%2fecho`, `/i/${id}/a%5Cecho`, `/i/${id}//127.0.0.1/echo`, `/i/${id}/api/auth/token`]) {
      const status = await upgradeStatus(manager.url, path);
      assert.ok(status === 400 || status === 403, `${path}: ${status}`);
    }
    assert.equal(await upgradeStatus(manager.url, `/i/${id}/echo`, { origin: 'http://evil.example' }), 403);
    assert.equal(fake.seen.filter((r) => r.upgrade).length, reached, 'none of these reached the instance');
    // the instance's own refusal keeps its status
    assert.equal(await upgradeStatus(manager.url, `/i/${id}/nothing-here`), 404);
    assert.equal(fake.seen.filter((r) => r.upgrade).length, reached + 1);
  } finally {
    await manager.close();
    await fake.close();
  }
});

test('a remote caller needs the manager token for a proxied WebSocket (header or ?token=), and the core /ws streams events through', async () => {
  const instance = await startServer({ classifyPeer: () => 'remote' as const });
  const manager = await startManager({ classifyPeer: () => 'remote' as const });
  try {
    const added = await fetch(`${manager.url}/api/dashboard/instances`, {
      method: 'POST',
      headers: { ...auth(manager.app.token), 'content-type': 'application/json' },
      body: JSON.stringify({ url: instance.url, token: instance.app.services.token }),
    });
    const id = ((await added.json()) as { id: string }).id;
    assert.deepEqual(await connect(wsUrl(manager.url, `/i/${id}/ws`)), { status: 401 });
    assert.deepEqual(await connect(wsUrl(manager.url, `/i/${id}/ws?token=wrong`)), { status: 401 });
    const opened = await connect(wsUrl(manager.url, `/i/${id}/ws?token=${manager.app.token}`));
    assert.ok('ws' in opened, 'the manager token in the query opens it');
    try {
      const created = await fetch(`${manager.url}/i/${id}/api/chat-sessions`, {
        method: 'POST',
        headers: { ...auth(manager.app.token), 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'over the proxied socket' }),
      });
      assert.equal(created.status, 201);
      await until(() => opened.messages.find((m) => JSON.parse(m.data).title === 'over the proxied socket'), 'the instance\'s event on the proxied /ws');
    } finally {
      opened.ws.terminate();
    }
  } finally {
    await manager.close();
    await instance.close();
  }
});
