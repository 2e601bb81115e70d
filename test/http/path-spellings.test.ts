// The class of the percent-encoding bypass, over every operation of both servers: each route of
// GET /api/openapi.json is sent in many spellings of its path (encoded letters in either hex case,
// encoded separators, dot and empty segments, backslashes, case, trailing slash, `;`, NUL, overlong
// UTF-8, a fragment) by a peer that is not on loopback and has no token. Every answer is the
// guard's own refusal (400 BAD_URL or 401 UNAUTHORIZED), so no handler ran, whichever route the
// spelling might have reached; only the routes declared public answer their plain spelling. The
// manager's proxy is walked the same way for the instance paths it withholds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { classifyPeer } from '../../src/http/peers.ts';
import { startServer, sendJson, type TestServer } from '../support/server.ts';
import { startManager, type TestManager } from '../modules/dashboard/helpers.ts';

// 127.0.0.2 stands for a peer on another machine: the classifier is injected, the packets really
// come from that source address.
const REMOTE = '127.0.0.2';
const remoteAt = (address: string | undefined) => (address?.endsWith(REMOTE) ? 'remote' : classifyPeer(address));

interface Answer {
  status: number;
  body: string;
}

/** A request whose path goes on the wire byte for byte (no URL parsing, no normalizing). */
function send(base: string, method: string, path: string, options: { from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const u = new URL(base);
  const hasBody = !['GET', 'HEAD', 'DELETE'].includes(method);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path, localAddress: options.from, agent: false, headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject).end(hasBody ? '{}' : undefined);
  });
}

interface Operation {
  method: string;
  /** The OpenAPI path with sample values for its parameters. */
  path: string;
  public: boolean;
  websocket: boolean;
}

async function operations(base: string): Promise<Operation[]> {
  const document = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>> };
  const out: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    const path = template.replace(/\{path\}$/, 'a/b').replace(/\{[^}]+\}/g, 'x1');
    for (const [method, operation] of Object.entries(methods)) {
      out.push({ method: method.toUpperCase(), path, public: Array.isArray(operation.security) && operation.security.length === 0, websocket: '101' in operation.responses });
    }
  }
  return out;
}

const encode = (char: string, lower: boolean) => {
  const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};

/** Other spellings of a path: each either has no canonical form, or is another path (no route, or a route that needs the token). */
export function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const letterAt = (index: number) => {
    const segment = segments[index] ?? '';
    const i = segment.search(/[A-Za-z0-9]/);
    return i;
  };
  const out = new Set<string>();
  const withSegment = (index: number, value: string) => `/${segments.map((s, i) => (i === index ? value : s)).join('/')}`;
  for (const index of [0, segments.length - 1]) {
    const i = letterAt(index);
    if (i === -1) continue;
    const segment = segments[index]!;
    for (const lower of [true, false]) out.add(withSegment(index, `${segment.slice(0, i)}${encode(segment[i]!, lower)}${segment.slice(i + 1)}`));
    out.add(withSegment(index, segment.toUpperCase()));
  }
  if (segments.length > 1) {
    const [first, ...rest] = segments;
    out.add(`/${first}%2F${rest.join('/')}`).add(`/${first}%2f${rest.join('/')}`).add(`/${first}%5C${rest.join('/')}`).add(`/${first}\\${rest.join('/')}`);
    out.add(`/${first}/./${rest.join('/')}`).add(`/${first}/zz/../${rest.join('/')}`).add(`/${first}//${rest.join('/')}`).add(`/${first}/%2e/${rest.join('/')}`).add(`/${first}/%2E%2E/${first}/${rest.join('/')}`);
  }
  out.add(`/${path}`).add(`${path}/`).add(`${path}/.`).add(`${path};x`).add(`${path}%3Bx`).add(`${path}%00`).add(`${path}%C0%AF`).add(`${path}#x`).add(`${path}%0A`).add(`${path}%`);
  out.delete(path);
  return [...out];
}

const REFUSED = /^\{"error":"(BAD_URL|UNAUTHORIZED)","message":/;

/**
 * What a public route answers for another of its own paths (`/assets/a/B`, `/i/<id>/` for the
 * redirect `/i/<id>`): its page, a redirect, or its not-found. A spelling of a public path that is
 * still canonical may reach a public handler; never one that needs the token (that would be a 401).
 */
const publicAnswer = (answer: Answer) =>
  (answer.status === 200 && answer.body.startsWith('<!doctype html>')) || answer.status === 308 || (answer.status === 404 && answer.body.startsWith('{"error":"NOT_FOUND"'));

async function walk(base: string, ops: Operation[]): Promise<{ sent: number; wrong: string[] }> {
  const wrong: string[] = [];
  let sent = 0;
  for (const op of ops) {
    const plain = await send(base, op.method, op.path, { from: REMOTE });
    sent++;
    if (op.public ? plain.status === 401 : plain.status !== 401) wrong.push(`${op.method} ${op.path} (plain) → ${plain.status} ${plain.body.slice(0, 80)}`);
    for (const path of spellings(op.path)) {
      const headers = op.websocket ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } : undefined;
      const answer = await send(base, op.method, path, { from: REMOTE, ...(headers ? { headers } : {}) });
      sent++;
      const ok = ((answer.status === 400 || answer.status === 401) && REFUSED.test(answer.body)) || (op.public && publicAnswer(answer));
      if (!ok) wrong.push(`${op.method} ${path} → ${answer.status} ${answer.body.slice(0, 80)}`);
    }
  }
  return { sent, wrong };
}

describe('every operation, in every spelling, from another machine without the token', () => {
  let core: TestServer;
  let manager: TestManager;
  let instanceId: string;
  before(async () => {
    core = await startServer({ classifyPeer: remoteAt });
    manager = await startManager({ classifyPeer: remoteAt });
    instanceId = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: core.url, token: core.app.services.token })).body.id;
  });
  after(async () => {
    await manager?.close();
    await core?.close();
  });

  test('the spellings of one path are what the walk sends', () => {
    const sent = spellings('/api/settings');
    for (const expected of ['/%61pi/settings', '/api/%73ettings', '/API/settings', '/api%2Fsettings', '/api/./settings', '/api//settings', '/api\\settings', '/api/settings;x', '/api/settings%00', '/api/settings/']) {
      assert.ok(sent.includes(expected), expected);
    }
  });

  test('core server: no spelling of any operation runs its handler; only the public routes answer their plain path', async () => {
    const ops = await operations(core.url);
    assert.ok(ops.length > 130, `${ops.length} operations`);
    const publicOps = ops.filter((op) => op.public).map((op) => `${op.method} ${op.path}`);
    // (the decision-token route is a capability route: no bearer token, the token in its body instead)
    assert.deepEqual(publicOps.sort(), ['GET /', 'GET /api/health', 'GET /assets/a/b', 'GET /favicon.svg', 'GET /icons/x1', 'GET /index.html', 'GET /manifest.webmanifest', 'GET /sw.js', 'POST /api/permissions/x1/decide-by-token']);
    const sessionsBefore = core.app.services.chat.sessions.list().length;
    const { sent, wrong } = await walk(core.url, ops);
    assert.deepEqual(wrong, [], `${wrong.length} of ${sent} requests`);
    assert.equal(core.app.services.chat.sessions.list().length, sessionsBefore, 'nothing was created');
  });

  test('manager: the same over its operations, its proxy included (with a registered instance behind it)', async () => {
    const ops = (await operations(manager.url)).map((op) => ({ ...op, path: op.path.replace(/^\/i\/x1/, `/i/${instanceId}`) }));
    assert.ok(ops.length > 60, `${ops.length} operations`);
    const { sent, wrong } = await walk(manager.url, ops);
    assert.deepEqual(wrong, [], `${wrong.length} of ${sent} requests`);
  });

  test('the proxy never hands out the instance\'s token, however the path is spelled, even to a loopback caller', async () => {
    const token = core.app.services.token;
    const paths = [
      'api/auth/token', '%61pi/auth/token', 'api/%61uth/token', 'api/auth/%74oken', 'api/auth/%54oken', 'API/auth/token', 'api/auth/token/',
      'api/auth/token;x', 'api/auth/token%3B', 'api/auth/token#x', 'api/auth/./token', 'api/auth//token', 'api/x/../auth/token', 'api%2Fauth%2Ftoken',
      'api/auth/token%00', 'api/auth/token?x=1', 'api/auth/token?token=1', './api/auth/token', '/api/auth/token', 'api\\auth\\token',
    ];
    for (const rest of paths) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const local = await send(manager.url, method, `/i/${instanceId}/${rest}`);
        assert.notEqual(local.status, 200, `${method} ${rest} from loopback`);
        assert.ok(!local.body.includes(token), `${method} ${rest} leaked the token`);
        const remote = await send(manager.url, method, `/i/${instanceId}/${rest}`, { from: REMOTE, headers: { authorization: `Bearer ${manager.app.token}` } });
        assert.ok(!remote.body.includes(token), `${method} ${rest} leaked the token to a remote caller`);
        assert.notEqual(remote.status, 200, `${method} ${rest} with the manager's token`);
      }
    }
    const refused = await send(manager.url, 'GET', `/i/${instanceId}/api/auth/token`);
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(refused.body).error, 'PROXY_PATH_REFUSED');
  });

  test('through the proxy, the public and query-token routes are declared, not guessed from the path', async () => {
    const base = `/i/${instanceId}`;
    assert.equal((await send(manager.url, 'GET', `${base}/api/health`, { from: REMOTE })).status, 200);
    assert.equal((await send(manager.url, 'GET', `${base}/`, { from: REMOTE })).status, 200);
    assert.equal((await send(manager.url, 'GET', `${base}/api/session`, { from: REMOTE })).status, 401);
    assert.equal((await send(manager.url, 'GET', `${base}/api/session?token=${manager.app.token}`, { from: REMOTE })).status, 401);
    assert.equal((await send(manager.url, 'GET', `${base}/media/x.png`, { from: REMOTE })).status, 401);
    assert.equal((await send(manager.url, 'GET', `${base}/%6dedia/x.png`, { from: REMOTE })).status, 400);
    assert.equal((await send(manager.url, 'GET', `${base}/%61pi/settings`, { from: REMOTE })).status, 400);
  });
});
