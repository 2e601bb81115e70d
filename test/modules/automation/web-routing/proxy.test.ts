import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { runWebRoutingCommand } from '../../../../src/modules/automation/web-routing/commands.ts';
import { startRoutingProxy, type RoutingProxy } from '../../../../src/modules/automation/web-routing/proxy.ts';
import type { RuleService } from '../../../../src/modules/automation/web-routing/web-routing.service.ts';
import { CURL, curl, memoryService, startUpstream, viaProxy, type Upstream } from './helpers.ts';
import { makeCertificate } from '../../../support/tls.ts';

describe('web-routing proxy (node http client, absolute-form requests)', () => {
  let up: Upstream;
  let other: Upstream;
  let proxy: RoutingProxy;
  let service: RuleService;
  let closeDb: () => void;
  const cmd = (text: string) => runWebRoutingCommand(text, service);

  before(async () => {
    up = await startUpstream('main');
    other = await startUpstream('other');
    ({ service, close: closeDb } = memoryService());
    proxy = await startRoutingProxy({ port: 0, host: '127.0.0.1', rules: service, upstreamTimeoutMs: 500 });
  });
  after(async () => {
    await proxy.close();
    await up.close();
    await other.close();
    closeDb();
  });
  beforeEach(() => {
    service.clear();
    up.seen.length = 0;
    other.seen.length = 0;
  });

  test('no rule: forwards unchanged (method, path, query, headers, body) and strips hop-by-hop headers', async () => {
    const r = await viaProxy(proxy.port, 'POST', `${up.origin}/echo/a?x=1&y=2`, {
      headers: { 'x-client': 'c', 'proxy-connection': 'keep-alive', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    assert.equal(r.status, 200);
    const echo = r.json();
    assert.equal(echo.method, 'POST');
    assert.equal(echo.url, '/echo/a?x=1&y=2');
    assert.equal(echo.headers['x-client'], 'c');
    assert.equal(echo.headers['proxy-connection'], undefined);
    assert.equal(echo.headers.host, `127.0.0.1:${up.port}`);
    assert.match(echo.headers.via, /svc-web-routing/);
    assert.equal(echo.body, '{"a":1}');
    assert.equal(r.headers['x-web-routing'], undefined);
  });

  test('block: 403 JSON naming the rule; the upstream never sees the request', async () => {
    const added = await cmd(`/web-routing block GET ${up.origin}/admin/*`);
    const id = (added.data as { rule: { id: number } }).rule.id;
    const r = await viaProxy(proxy.port, 'GET', `${up.origin}/admin/users?x=1`);
    assert.equal(r.status, 403);
    assert.match(String(r.headers['content-type']), /application\/json/);
    assert.deepEqual(r.json(), {
      error: 'BLOCKED_BY_RULE',
      message: `Blocked by web-routing rule ${id} (block GET http://127.0.0.1:${up.port}/admin/*).`,
      rule: { id, pattern: `GET http://127.0.0.1:${up.port}/admin/*` },
      url: `${up.origin}/admin/users?x=1`,
    });
    assert.equal(r.headers['x-web-routing'], `block#${id}`);
    assert.equal(up.seen.length, 0);
    // method constraint: a POST is not blocked
    assert.equal((await viaProxy(proxy.port, 'POST', `${up.origin}/admin/users`, { body: '' })).status, 200);
  });

  test('mock: static and dynamic bodies with captures, query, headers, request body; --status', async () => {
    await cmd(`/web-routing mock GET /api/health '{"ok": true}'`);
    await cmd(
      `/web-routing mock POST /api/users/:id '{"id": "{{params.id|number}}", "q": "{{query.q}}", "agent": "{{headers.x-agent}}", "name": "{{body.name}}", "m": "{{method}}"}' --status 201 --header "X-Mocked: {{params.id}}"`,
    );
    const a = await viaProxy(proxy.port, 'GET', `${up.origin}/api/health`);
    assert.equal(a.status, 200);
    assert.deepEqual(a.json(), { ok: true });
    const b = await viaProxy(proxy.port, 'POST', `http://unresolvable.invalid/api/users/42?q=hey`, {
      headers: { 'x-agent': 'node', 'content-type': 'application/json' },
      body: JSON.stringify({ name: "O'Brien" }),
    });
    assert.equal(b.status, 201);
    assert.equal(b.headers['x-mocked'], '42');
    assert.deepEqual(b.json(), { id: 42, q: 'hey', agent: 'node', name: "O'Brien", m: 'POST' });
    assert.equal(up.seen.length, 0, 'a mocked request never reaches any upstream (the host need not even exist)');
  });

  test('redirect: 302 with Location built from captures; the client decides to follow', async () => {
    await cmd(`/web-routing add /docs/:page -> ${other.origin}/v2/:page`);
    await cmd(`/web-routing add /moved -> /new-home --status 308`);
    const r = await viaProxy(proxy.port, 'GET', `${up.origin}/docs/intro?lang=en`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, `${other.origin}/v2/intro?lang=en`);
    const s = await viaProxy(proxy.port, 'GET', `${up.origin}/moved`);
    assert.equal(s.status, 308);
    assert.equal(s.headers.location, `${up.origin}/new-home`);
    assert.equal(up.seen.length + other.seen.length, 0);
  });

  test('rewrite: the upstream gets the new path (or another host); the client sees no redirect', async () => {
    await cmd('/web-routing rewrite /api/v1/users/:id => /api/v2/people/:id');
    await cmd(`/web-routing rewrite /legacy/* => ${other.origin}/modern/*`);
    const r = await viaProxy(proxy.port, 'GET', `${up.origin}/api/v1/users/7?full=1`);
    assert.equal(r.status, 200);
    assert.equal(r.json().url, '/api/v2/people/7?full=1');
    assert.equal(r.json().upstream, 'main');
    assert.match(String(r.headers['x-web-routing']), /^rewrite#\d+$/);
    const s = await viaProxy(proxy.port, 'GET', `${up.origin}/legacy/a/b`);
    assert.equal(s.status, 200);
    assert.equal(s.json().upstream, 'other');
    assert.equal(s.json().url, '/modern/a/b');
    assert.equal(s.json().headers.host, `127.0.0.1:${other.port}`, 'Host follows a rewrite to another host');
  });

  test('rewrite to an https upstream: the proxy speaks TLS to it and verifies it (a self-signed one is refused, saying why)', async () => {
    // node:https loads with the proxy's first https upstream (proxy.ts): this is that first one
    const tls = makeCertificate();
    const secure = createHttpsServer({ cert: tls.cert, key: tls.key }, (_req, res) => res.end('secret'));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    try {
      await cmd(`/web-routing rewrite /tls/* => https://127.0.0.1:${(secure.address() as AddressInfo).port}/*`);
      const r = await viaProxy(proxy.port, 'GET', `${up.origin}/tls/page`);
      assert.equal(r.status, 502);
      assert.equal(r.json().error, 'UPSTREAM_ERROR');
      assert.match(r.json().message, /Cannot reach 127\.0\.0\.1:\d+: DEPTH_ZERO_SELF_SIGNED_CERT/);
    } finally {
      secure.close();
    }
  });

  test('transform: request headers set/removed, response headers set/removed', async () => {
    await cmd(
      '/web-routing transform /api/* --header "Authorization: Bearer test-token" --header "X-Path: {{path}}" --remove-header X-Secret ' +
        '--response-header "Cache-Control: no-store" --remove-response-header Server',
    );
    const r = await viaProxy(proxy.port, 'GET', `${up.origin}/api/things`, { headers: { 'x-secret': 's', authorization: 'Basic old' } });
    const echo = r.json();
    assert.equal(echo.headers.authorization, 'Bearer test-token');
    assert.equal(echo.headers['x-path'], '/api/things');
    assert.equal(echo.headers['x-secret'], undefined);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers.server, undefined);
    assert.equal(r.headers['x-upstream'], 'main');
  });

  test('transform: response body replacement (plain and gzip upstream), binary left alone, request body replacement', async () => {
    await cmd('/web-routing transform /* --replace "production" "staging"');
    await cmd(`/web-routing transform POST /submit --request-replace '"debug":false' '"debug":true'`);
    const t = await viaProxy(proxy.port, 'GET', `${up.origin}/text`);
    assert.equal(t.body, 'hello staging world, staging again');
    assert.equal(Number(t.headers['content-length']), Buffer.byteLength(t.body));
    assert.equal(up.seen.at(-1)!.headers['accept-encoding'], 'identity');
    const g = await viaProxy(proxy.port, 'GET', `${up.origin}/gzip`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(g.headers['content-encoding'], undefined);
    assert.equal(g.body, 'hello staging world (gzip)');
    const bin = await viaProxy(proxy.port, 'GET', `${up.origin}/binary`);
    assert.equal(bin.body, 'production');
    const p = await viaProxy(proxy.port, 'POST', `${up.origin}/submit`, {
      headers: { 'content-type': 'application/json' },
      body: '{"debug":false,"n":1}',
    });
    assert.equal(p.json().body, '{"debug":true,"n":1}');
    assert.equal(p.json().headers['content-length'], String('{"debug":true,"n":1}'.length));
  });

  test('rewrite and transforms stack; a terminal rule overrides both', async () => {
    await cmd('/web-routing rewrite /shop/* => /store/*');
    await cmd('/web-routing transform /shop/* --header "X-Layer: generic"');
    await cmd('/web-routing transform GET /shop/cart --header "X-Layer: specific"');
    const r = await viaProxy(proxy.port, 'GET', `${up.origin}/shop/cart`);
    assert.equal(r.json().url, '/store/cart');
    assert.equal(r.json().headers['x-layer'], 'specific');
    assert.equal(String(r.headers['x-web-routing']).split(', ').map((s) => s.split('#')[0]).join(','), 'rewrite,transform,transform');
    await cmd('/web-routing block /shop/*');
    assert.equal((await viaProxy(proxy.port, 'GET', `${up.origin}/shop/cart`)).status, 403);
  });

  test('header-constrained and host-constrained rules', async () => {
    await cmd(`/web-routing mock GET /feature [X-Variant: b] '{"variant": "b"}'`);
    await cmd(`/web-routing mock GET localhost/feature '{"host": "localhost"}'`);
    const a = await viaProxy(proxy.port, 'GET', `${up.origin}/feature`, { headers: { 'x-variant': 'b' } });
    assert.deepEqual(a.json(), { variant: 'b' });
    const b = await viaProxy(proxy.port, 'GET', `${up.origin}/feature`);
    assert.equal(b.json().upstream, 'main', 'no header, other host: passes through');
  });

  test('rule changes apply to the running proxy at once', async () => {
    assert.equal((await viaProxy(proxy.port, 'GET', `${up.origin}/live`)).status, 200);
    const added = await cmd('/web-routing block /live');
    assert.equal((await viaProxy(proxy.port, 'GET', `${up.origin}/live`)).status, 403);
    service.remove((added.data as { rule: { id: number } }).rule.id);
    assert.equal((await viaProxy(proxy.port, 'GET', `${up.origin}/live`)).status, 200);
  });

  test('errors of its own: not a proxy request, unreachable upstream, timeout, loop', async () => {
    const o = await viaProxy(proxy.port, 'GET', `${up.origin}/x`, { origin: true });
    assert.equal(o.status, 400);
    assert.equal(o.json().error, 'NOT_A_PROXY_REQUEST');
    const closedPort = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const d = await viaProxy(proxy.port, 'GET', `http://127.0.0.1:${closedPort}/x`);
    assert.equal(d.status, 502);
    assert.equal(d.json().error, 'UPSTREAM_ERROR');
    assert.match(d.json().message, /ECONNREFUSED/);
    const t = await viaProxy(proxy.port, 'GET', `${up.origin}/slow`);
    assert.equal(t.status, 504);
    assert.equal(t.json().error, 'UPSTREAM_TIMEOUT');
    await cmd(`/web-routing rewrite /loop => http://127.0.0.1:${proxy.port}/loop`);
    const l = await viaProxy(proxy.port, 'GET', `${up.origin}/loop`);
    assert.equal(l.status, 508);
    assert.equal(l.json().error, 'LOOP_DETECTED');
  });

  test('CONNECT opens a plain tunnel (no interception), as used for https://', async () => {
    await cmd('/web-routing block /*');
    const socket = net.connect(proxy.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`CONNECT 127.0.0.1:${up.port} HTTP/1.1\r\nHost: 127.0.0.1:${up.port}\r\n\r\n`);
    let buf = '';
    const read = (until: RegExp) =>
      new Promise<string>((resolve) => {
        const on = (c: Buffer) => {
          buf += c.toString();
          if (until.test(buf)) {
            socket.off('data', on);
            resolve(buf);
          }
        };
        socket.on('data', on);
      });
    const established = await read(/\r\n\r\n/);
    assert.match(established, /^HTTP\/1\.1 200 Connection Established/);
    buf = '';
    socket.write(`GET /through-tunnel HTTP/1.1\r\nHost: 127.0.0.1:${up.port}\r\nConnection: close\r\n\r\n`);
    const response = await read(/"upstream":"main"/);
    assert.match(response, /^HTTP\/1\.1 200 OK/, 'the block-everything rule does not apply inside a tunnel');
    socket.destroy();
  });
});

describe('web-routing proxy: origin-form requests with an upstream option', () => {
  test('forwards GET /path to the configured upstream and applies the rules', async () => {
    const up = await startUpstream('dev');
    const { service, close } = memoryService();
    const proxy = await startRoutingProxy({ port: 0, rules: service, upstream: up.origin });
    try {
      await runWebRoutingCommand(`/web-routing mock GET /api/me '{"me": "mocked"}'`, service);
      const a = await viaProxy(proxy.port, 'GET', `http://127.0.0.1:${proxy.port}/api/me`, { origin: true });
      assert.deepEqual(a.json(), { me: 'mocked' });
      const b = await viaProxy(proxy.port, 'GET', `http://127.0.0.1:${proxy.port}/api/other?z=1`, { origin: true });
      assert.equal(b.json().upstream, 'dev');
      assert.equal(b.json().url, '/api/other?z=1');
    } finally {
      await proxy.close();
      await up.close();
      close();
    }
  });
});

describe('web-routing proxy with curl -x', { skip: CURL ? false : 'curl is not installed' }, () => {
  let up: Upstream;
  let proxy: RoutingProxy;
  let service: RuleService;
  let closeDb: () => void;
  before(async () => {
    up = await startUpstream('curl-upstream');
    ({ service, close: closeDb } = memoryService());
    proxy = await startRoutingProxy({ port: 0, rules: service });
    const add = (t: string) => runWebRoutingCommand(t, service);
    await add('/web-routing block /blocked/*');
    await add(`/web-routing mock GET /api/users/:id '{"id": "{{params.id}}", "via": "{{headers.user-agent}}"}'`);
    await add('/web-routing add /old -> /new');
    await add('/web-routing rewrite /v1/* => /v2/*');
    await add('/web-routing transform /text --replace "production" "staging" --response-header "X-Transformed: yes"');
  });
  after(async () => {
    await proxy.close();
    await up.close();
    closeDb();
  });

  test('each rule type through curl', async () => {
    const b = await curl(proxy.port, [`${up.origin}/blocked/x`]);
    assert.equal(b.status, 403);
    assert.equal(b.json().error, 'BLOCKED_BY_RULE');
    const m = await curl(proxy.port, ['-A', 'curl-test', `${up.origin}/api/users/9`]);
    assert.deepEqual(m.json(), { id: '9', via: 'curl-test' });
    const r = await curl(proxy.port, [`${up.origin}/old`]);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, `${up.origin}/new`);
    const followed = await curl(proxy.port, ['-L', `${up.origin}/old`]);
    assert.match(followed.body, /"url":"\/new"/);
    const w = await curl(proxy.port, [`${up.origin}/v1/things?a=b`]);
    assert.equal(w.json().url, '/v2/things?a=b');
    const t = await curl(proxy.port, [`${up.origin}/text`]);
    assert.equal(t.body, 'hello staging world, staging again');
    assert.equal(t.headers['x-transformed'], 'yes');
    const plain = await curl(proxy.port, ['-X', 'POST', '-d', 'x=1', `${up.origin}/echo`]);
    assert.equal(plain.json().body, 'x=1');
  });
});
