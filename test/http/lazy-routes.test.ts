// Lazy route groups (src/http/lazy-routes.ts): built on their first request, and from then on
// indistinguishable from routes registered at start: the guard reads the matched route's access, the
// parameters decode the same way, unknown paths get the same 404, the router's errors the same status,
// and the documentation lists them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createServer } from '../../src/http/create-server.ts';
import { defineLazyRoutes, loadAllRoutes, type RouteSet } from '../../src/http/lazy-routes.ts';
import { classifyPeer } from '../../src/http/peers.ts';
import { defineRoutes, route, type Route } from '../../src/http/routes.ts';

// 127.0.0.2 stands for a remote peer: the classifier is injected, the packets really come from there
const REMOTE = '127.0.0.2';
const TOKEN = 'a-token-of-forty-characters-for-the-test-0';

interface Answer {
  status: number;
  body: any;
}

function send(base: string, path: string, options: { method?: string; from?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      `${base}${path}`,
      {
        method: options.method ?? 'GET',
        localAddress: options.from,
        agent: false,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The same routes under two prefixes: `/api/eager` registered at start, `/api/lazy` in a lazy group. */
function routesUnder(prefix: string): Route[] {
  return [
    route({ method: 'GET', url: `${prefix}/items/:id`, summary: 'One item, by id (echoes it).', params: z.strictObject({ id: z.string() }), response: z.object({ id: z.string() }), handler: ({ params }) => ({ id: params.id }) }),
    route({ method: 'POST', url: `${prefix}/items`, summary: 'Adds an item (echoes its name).', body: z.strictObject({ name: z.string().max(10) }), status: 201, response: z.object({ name: z.string() }), handler: ({ body }) => ({ name: body.name }) }),
    route({ method: 'GET', url: `${prefix}/open`, access: 'public', summary: 'A public page of the group.', response: z.object({ open: z.boolean() }), handler: () => ({ open: true }) }),
    route({ method: 'GET', url: `${prefix}/stream`, access: 'token-or-query', summary: 'A route that also takes ?token=.', query: z.looseObject({ token: z.string().optional() }), response: z.object({ ok: z.boolean() }), handler: () => ({ ok: true }) }),
    route({
      method: 'POST',
      url: `${prefix}/capability`,
      access: 'capability',
      summary: 'A route whose body carries its own capability.',
      body: z.strictObject({ capability: z.string() }),
      response: z.object({ ok: z.boolean() }),
      // the handler checks the capability itself
      handler: ({ body }) => ({ ok: body.capability === 'yes' }),
    }),
  ];
}

describe('lazy route groups', () => {
  let app: FastifyInstance;
  let base: string;
  let loads = 0;
  let otherLoads = 0;
  let failNextLoad = false;
  const closed: string[] = [];

  before(async () => {
    app = await createServer({
      info: { title: 'test', version: '0' },
      logLevel: 'silent',
      guard: { token: TOKEN, classifyPeer: (address) => (address?.endsWith(REMOTE) ? 'remote' : classifyPeer(address)), network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) },
    });
    defineRoutes(app, 'eager', routesUnder('/api/eager'));
    defineLazyRoutes(app, ['/api/lazy/*'], async (scope): Promise<RouteSet> => {
      loads++;
      // a module takes a moment to load: concurrent first requests must still load it once
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (failNextLoad) {
        failNextLoad = false;
        throw new Error('the group failed to load');
      }
      scope.onClose(() => void closed.push('lazy'));
      return { group: 'lazy', routes: routesUnder('/api/lazy') };
    });
    // a second group, loaded on its own first request
    defineLazyRoutes(app, ['/api/other'], async () => {
      otherLoads++;
      return { group: 'other', routes: [route({ method: 'GET', url: '/api/other', summary: 'The other group.', response: z.object({ other: z.boolean() }), handler: () => ({ other: true }) })] };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(() => app.close());

  test('nothing is built at start: Fastify has no route of a group, which is undocumented until loaded', () => {
    assert.equal(loads, 0);
    assert.equal(otherLoads, 0);
    assert.ok(!app.routeDocs.some((doc) => doc.url.startsWith('/api/lazy/')));
    assert.ok(!app.routeTable.some((entry) => entry.url.startsWith('/api/lazy')));
    assert.doesNotMatch(app.printRoutes(), /lazy|other/);
    assert.match(app.printRoutes(), /eager/);
  });

  test('a failed load answers 500 and the next request loads again', async () => {
    failNextLoad = true;
    const failed = await send(base, '/api/lazy/items/a');
    assert.equal(failed.status, 500);
    assert.equal(loads, 1);
    const again = await send(base, '/api/lazy/items/a');
    assert.equal(again.status, 200);
    assert.equal(loads, 2);
  });

  test('concurrent requests after that never load it again; the other group loads only when asked', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => send(base, `/api/lazy/items/x${i}`)));
    assert.deepEqual(answers.map((a) => a.body.id), ['x0', 'x1', 'x2', 'x3', 'x4']);
    assert.equal(loads, 2);
    assert.equal(otherLoads, 0);
    assert.equal((await send(base, '/api/nobody/owns/this')).status, 404, 'a path no group owns is not found, loading nothing');
    assert.equal((await send(base, '/api/otherwise')).status, 404, "beside the other group's path, not under it");
    assert.equal(otherLoads, 0);
    assert.deepEqual((await send(base, '/api/other')).body, { other: true });
    assert.equal((await send(base, '/api/other', { method: 'POST', body: {} })).status, 404);
    assert.equal(otherLoads, 1);
  });

  test('each lazy route answers as its eager twin: parameters, bodies, statuses and errors', async () => {
    const paths = ['/items/a%20b', '/items/%C3%A9t%C3%A9', '/items/' + 'x'.repeat(101), '/items', '/nothing/here', '/open', '/items/a?unknown=1'];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const body = method === 'POST' ? { name: 'n' } : undefined;
        const eager = await send(base, `/api/eager${path}`, { method, body });
        const lazy = await send(base, `/api/lazy${path}`, { method, body });
        assert.equal(lazy.status, eager.status, `${method} ${path}`);
        assert.deepEqual(
          JSON.parse(JSON.stringify(lazy.body ?? null).replaceAll('/api/lazy', '/api/eager')),
          eager.body ?? null,
          `${method} ${path}: the same answer`,
        );
      }
    }
    // a body of a type no parser reads: Fastify leaves it unread on a request no route of its own matched
    for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
      const options = { method: 'POST', body: 'name=n', headers: { 'content-type': type } };
      const eager = await send(base, '/api/eager/items', options);
      const lazy = await send(base, '/api/lazy/items', options);
      assert.equal(eager.status, 415, type);
      assert.deepEqual(lazy, eager, `${type}: the same refusal`);
    }
    assert.equal((await send(base, '/api/lazy/items/' + 'x'.repeat(101))).status, 414, 'a parameter over 100 characters');
    assert.equal((await send(base, '/api/lazy/items', { method: 'POST', body: { name: 'far too long a name' } })).body.error, 'VALIDATION_FAILED');
    assert.equal((await send(base, '/api/lazy/items', { method: 'POST', body: { name: 'a\u0000' } })).body.error, 'VALIDATION_FAILED');
    assert.equal((await send(base, '/api/lazy/items/a', { method: 'HEAD' })).status, 200, 'a HEAD is its GET');
  });

  test("from another machine the guard applies the matched route's access, not the not-found answer's", async () => {
    const remote = { from: REMOTE };
    const auth = { authorization: `Bearer ${TOKEN}` };
    assert.equal((await send(base, '/api/lazy/items/a', remote)).status, 401);
    assert.equal((await send(base, '/api/lazy/items/a', { ...remote, headers: auth })).status, 200);
    assert.equal((await send(base, '/api/lazy/open', remote)).status, 200, 'a public route needs no token');
    assert.equal((await send(base, `/api/lazy/stream?token=${TOKEN}`, remote)).status, 200, 'a token-or-query route takes ?token=');
    assert.equal((await send(base, `/api/lazy/items/a?token=${TOKEN}`, remote)).status, 401, 'a token route does not');
    assert.equal((await send(base, '/api/lazy/capability', { ...remote, method: 'POST', body: { capability: 'yes' } })).body.ok, true, 'a capability route passes to its handler');
    assert.equal((await send(base, '/api/lazy/nothing', remote)).status, 401, 'a path the group lacks needs the token, as a not-found one does');
    assert.equal((await send(base, '/api/lazy/nothing', { ...remote, headers: auth })).status, 404);
    assert.equal((await send(base, '/api/lazy/items/' + 'x'.repeat(101), remote)).status, 414, "the router's error comes before the guard, as Fastify's does");
  });

  test('once loaded its routes are documented where the group was declared, and in the OpenAPI document', async () => {
    await loadAllRoutes(app);
    const urls = app.routeDocs.map((doc) => `${doc.method} ${doc.url}`);
    assert.deepEqual(urls.filter((url) => url.includes('/api/lazy/')), ['GET /api/lazy/items/:id', 'POST /api/lazy/items', 'GET /api/lazy/open', 'GET /api/lazy/stream', 'POST /api/lazy/capability']);
    assert.ok(urls.indexOf('GET /api/lazy/items/:id') > urls.indexOf('POST /api/eager/capability'), 'in order of declaration');
    assert.ok(app.routeTable.some((entry) => entry.method === 'POST' && entry.url === '/api/lazy/capability'));
    const document = await send(base, '/api/openapi.json');
    assert.ok(document.body.paths['/api/lazy/items/{id}'].get);
  });

  test('a route with hooks or a body limit of its own is refused by the group, naming it', async () => {
    const strict = await createServer({ info: { title: 't', version: '0' }, logLevel: 'silent', guard: { classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) } });
    defineLazyRoutes(strict, ['/big/*'], async () => ({
      group: 'big',
      routes: [route({ method: 'POST', url: '/big/upload', summary: 'An upload with a limit.', bodyLimit: 10, body: z.unknown(), handler: () => ({}) })],
    }));
    await assert.rejects(loadAllRoutes(strict), /POST \/big\/upload has hooks, a body limit or a WebSocket of its own/);
    await strict.close();
  });

  test('a route registered at start under a lazy group\'s path is refused when the server gets ready', async () => {
    // Fastify would route the group's requests to it
    const mixed = await createServer({ info: { title: 't', version: '0' }, logLevel: 'silent', guard: { classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) } });
    defineLazyRoutes(mixed, ['/api/x/*']);
    defineRoutes(mixed, 'eager', [route({ method: 'GET', url: '/api/x/:id', summary: 'An eager route under it.', params: z.strictObject({ id: z.string() }), handler: () => ({}) })]);
    await assert.rejects(async () => mixed.ready(), /route GET \/api\/x\/:id lies under the paths of a lazy group \(\/api\/x\/\*\)/);
  });

  test("closing the server runs what the loaded group asked to close", async () => {
    await app.close();
    assert.deepEqual(closed, ['lazy']);
  });
});
