// The route documentation: GET /api/openapi.json is a valid OpenAPI 3.1 document that lists every
// route a server registered, with its schemas, and the documentation's generated tables are made from
// it (scripts/routes.ts): the core's route table in docs/api.md, the manager's in docs/dashboard.md, and
// the table of public routes in README.md's trust model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { accessTable, routeTable } from '../../src/http/route-table.ts';
import { openApiPath } from '../../src/http/openapi.ts';
import { loadAllRoutes } from '../../src/http/lazy-routes.ts';
import { startBrowserServer, type BrowserServer } from '../../src/servers/browser.ts';
import { createManagerServer, type ManagerServer } from '../../src/servers/manager.ts';
import { getJson, startServer, tempHome, type TestServer } from '../support/server.ts';

const ROOT = join(import.meta.dirname, '../..');

/** The text of a generated block (`<!-- name:start -->` … `<!-- name:end -->`) of a documentation file. */
function generatedBlock(file: string, name: string): string | undefined {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(text)?.[1];
}

async function validate(document: unknown): Promise<void> {
  const result = await new Validator().validate(document as Parameters<Validator['validate']>[0]);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  assert.equal((document as { openapi: string }).openapi, '3.1.0');
}

/** Every route Fastify registered is in the document, with the schemas its path and answer need. */
function assertEveryRouteDocumented(app: FastifyInstance, document: { paths: Record<string, Record<string, any>> }): void {
  const documented = new Set(app.routeDocs.map((d) => `${d.method} ${d.url}`));
  const registered = app.routeTable.map((r) => `${r.method} ${r.url}`);
  assert.deepEqual(registered.filter((r) => !documented.has(r)), [], 'routes without a declaration');
  assert.equal(new Set(registered).size, documented.size);
  for (const doc of app.routeDocs) {
    const operation = document.paths[openApiPath(doc.url)]?.[doc.method.toLowerCase()];
    assert.ok(operation, `${doc.method} ${doc.url} is in the document`);
    assert.ok(doc.summary.length > 10, `${doc.method} ${doc.url} says what it does`);
    const pathParams = [...doc.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const declared = operation.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
    for (const name of pathParams) assert.ok(declared.includes(name), `${doc.method} ${doc.url} declares its parameter ${name}`);
    if (doc.produces === 'json') assert.ok(doc.response, `${doc.method} ${doc.url} declares its answer`);
    if (doc.produces === 'ndjson' || doc.produces === 'sse') assert.ok(doc.item, `${doc.method} ${doc.url} declares its stream items`);
    if (['POST', 'PUT', 'PATCH'].includes(doc.method)) assert.ok(doc.body || doc.rawBody, `${doc.method} ${doc.url} declares its body`);
  }
}

describe('OpenAPI document', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.close();
  });

  test('the core server: valid OpenAPI 3.1, every registered route documented with its schemas', async () => {
    const { status, body } = await getJson(`${server.url}/api/openapi.json`);
    assert.equal(status, 200);
    await validate(body);
    assertEveryRouteDocumented(server.app.http, body);
    // a sample of what the schemas say
    const messages = body.paths['/api/messages'].get;
    assert.deepEqual(
      messages.parameters.map((p: { name: string }) => p.name).sort(),
      ['after', 'before', 'limit', 'sessionId'],
    );
    assert.equal(messages.parameters.find((p: { name: string }) => p.name === 'limit').schema.maximum, 200);
    const answer = messages.responses['200'].content['application/json'].schema;
    assert.deepEqual(answer.required.sort(), ['after', 'before', 'hasMore', 'messages', 'sessionId']);
    assert.equal(body.paths['/api/message'].post.responses['200'].content['application/x-ndjson'].schema.oneOf.length, 4);
    assert.ok(body.components.schemas.ErrorBody.properties.error.enum.includes('SSE_CAPACITY'));
  });

  test('the route table of docs/api.md and the README access table are the ones the routes make', async () => {
    await loadAllRoutes(server.app.http);
    const table = generatedBlock('docs/api.md', 'routes');
    assert.ok(table, 'docs/api.md has a generated route table (npm run routes)');
    assert.equal(table, routeTable(server.app.http.routeDocs), 'the route table of docs/api.md is out of date: run `npm run routes -- --write`');
    const access = generatedBlock('README.md', 'access') ?? '';
    assert.equal(access.split('\n').find((line) => line.startsWith('| core')), accessTable([{ name: 'core (`svc serve`)', docs: server.app.http.routeDocs }]).split('\n')[2], 'the README access table is out of date: run `npm run routes -- --write`');
  });
});

describe('OpenAPI document of the browser server', () => {
  let browser: BrowserServer;
  const home = tempHome();
  before(async () => {
    browser = await startBrowserServer({ port: 0, home });
  });
  after(async () => {
    await browser?.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('valid, and every route documented (the browser itself is not started)', async () => {
    const { status, body } = await getJson(`${browser.url}/api/openapi.json`);
    assert.equal(status, 200);
    await validate(body);
    assertEveryRouteDocumented(browser.app, body);
    assert.equal(browser.session.status().running, false);
  });
});

describe('OpenAPI document of the manager dashboard', () => {
  let manager: ManagerServer;
  let url: string;
  const home = tempHome('svc-manager-');
  before(async () => {
    manager = await createManagerServer({ home, scan: { from: 1, count: 0 }, logLevel: 'silent' });
    url = await manager.listen(0);
  });
  after(async () => {
    await manager?.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('valid, every route documented, and docs/dashboard.md has its route table', async () => {
    const { status, body } = await getJson(`${url}/api/openapi.json`);
    assert.equal(status, 200);
    await validate(body);
    assertEveryRouteDocumented(manager.http, body);
    const table = generatedBlock('docs/dashboard.md', 'dashboard-routes');
    assert.ok(table, 'docs/dashboard.md has a generated route table (npm run routes)');
    assert.equal(table, routeTable(manager.http.routeDocs), 'the route table of docs/dashboard.md is out of date: run `npm run routes -- --write`');
    // the trust model's table of public routes, from the same declarations as the guard reads
    const access = generatedBlock('README.md', 'access') ?? '';
    const row = (name: string) => access.split('\n').find((line) => line.startsWith(`| ${name}`));
    assert.equal(row('manager'), accessTable([{ name: 'manager (`svc dashboard serve`)', docs: manager.http.routeDocs }]).split('\n')[2], 'the README access table is out of date: run `npm run routes -- --write`');
    const publicOps = Object.entries(body.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.security?.length === 0).map(([method]) => `${method} ${path}`));
    // no bearer: the public routes, and the capability route (a notification's decision, with its own token)
    assert.deepEqual(publicOps.sort(), manager.http.routeDocs.filter((d) => d.access === 'public' || d.access === 'capability').map((d) => `${d.method.toLowerCase()} ${openApiPath(d.url)}`).sort(), 'the document marks exactly the routes without a bearer');
    assert.ok(publicOps.includes('post /api/permissions/{id}/decide-by-token'), 'the hub\'s push decisions');
  });
});
