// A route that waits on something outside the process declares it (routes.ts waitsOn): past its bound the
// kit answers 504 UPSTREAM_TIMEOUT naming it, whatever the handler still waits on, the OpenAPI document
// lists the 504, and what the handler gives later is dropped.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createServer } from '../../src/http/create-server.ts';
import { classifyPeer } from '../../src/http/peers.ts';
import { defineRoutes, route } from '../../src/http/routes.ts';

let app: FastifyInstance;
let base: string;
let finishLate: (value: { ok: boolean }) => void = () => undefined;

before(async () => {
  app = await createServer({ info: { title: 'test', version: '0' }, logLevel: 'silent', guard: { classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) } });
  defineRoutes(app, 'outside', [
    route({
      method: 'POST',
      url: '/api/slow',
      summary: 'Waits on a service that answers when the test says.',
      body: z.strictObject({ boundMs: z.number().int() }),
      response: z.object({ ok: z.boolean() }),
      waitsOn: { what: 'the slow service', ms: ({ body }) => body.boundMs },
      handler: () => new Promise<{ ok: boolean }>((resolve) => (finishLate = resolve)),
    }),
    route({ method: 'GET', url: '/api/quick', summary: 'Waits on nothing.', response: z.object({ ok: z.boolean() }), handler: () => ({ ok: true }) }),
  ]);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(() => app.close());

const post = (boundMs: number) => fetch(`${base}/api/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boundMs }) });

test('past its bound, a 504 that names what did not answer; the answer that comes later goes nowhere', async () => {
  const started = Date.now();
  const late = await post(150);
  assert.equal(late.status, 504);
  const body = (await late.json()) as { error: string; message: string };
  assert.equal(body.error, 'UPSTREAM_TIMEOUT');
  assert.match(body.message, /^the slow service did not answer within 0.2 s\./);
  assert.ok(Date.now() - started < 5_000);
  finishLate({ ok: true });
  // the server goes on, and an answer within the bound is the handler's
  assert.equal((await fetch(`${base}/api/quick`)).status, 200);
  const inTime = post(10_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  finishLate({ ok: true });
  assert.deepEqual(await (await inTime).json(), { ok: true });
});

test('the OpenAPI document lists the 504 of a route that waits, and not of one that does not', async () => {
  const document = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  assert.ok('504' in document.paths['/api/slow']!.post!.responses);
  assert.ok(!('504' in document.paths['/api/quick']!.get!.responses));
});
