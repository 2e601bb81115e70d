// GET/PUT /api/mcp: validation per server, write-only secrets, and what each provider's run gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BusEvent } from '../../../src/events/bus.ts';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';

/** The `mcp_changed` messages on the stream, once `count` of them have arrived. */
async function mcpChanged(sse: SseConnection, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seen = sse.messages.filter((m) => m.data.event === 'mcp_changed');
    if (seen.length >= count) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} mcp_changed on the stream (saw ${seen.length})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('PUT /api/mcp validates each server, masks secrets and keeps them on ***', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const url = `${server.url}/api/mcp`;
  assert.deepEqual((await getJson(url)).body, { servers: [] });

  const put = await sendJson(url, 'PUT', {
    servers: [
      { name: 'probe', transport: 'stdio', command: 'node', args: ['s.mjs'], env: { API_TOKEN: 'secret-one' }, providers: ['claude'] },
      { name: 'docs', transport: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer secret-two' }, enabled: false },
    ],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.servers[0], { name: 'probe', transport: 'stdio', command: 'node', args: ['s.mjs'], env: { API_TOKEN: '***' }, providers: ['claude'], enabled: true });
  assert.deepEqual(put.body.servers[1].headers, { Authorization: '***' });
  assert.deepEqual((await getJson(url)).body, put.body);

  // Sending the masked list back keeps the stored values.
  assert.equal((await sendJson(url, 'PUT', put.body)).status, 200);
  const { mcp } = server.app.services;
  assert.deepEqual(mcp.forRun('claude'), [{ name: 'probe', transport: 'stdio', command: 'node', args: ['s.mjs'], env: { API_TOKEN: 'secret-one' } }]);
  assert.deepEqual(mcp.forRun('codex'), [], 'limited to claude; docs is disabled');
  assert.deepEqual(mcp.secretValues().sort(), ['Bearer secret-two', 'secret-one']);

  // the message names the entry, and `field` says which field of it (the panel shows it there)
  const bad = async (servers: unknown[], pattern: RegExp, field: string) => {
    const res = await sendJson(url, 'PUT', { servers });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error, 'INVALID_MCP_SERVER');
    assert.match(res.body.message, pattern);
    assert.equal(res.body.field, field);
  };
  await bad([{ name: 'x y', transport: 'stdio', command: 'node' }], /servers\[0\]\.name/, 'servers[0].name');
  await bad([{ name: 'a', transport: 'stdio', command: 'node' }, { name: 'b', transport: 'http', url: 'ftp://x' }], /servers\[1\]\.url/, 'servers[1].url');
  await bad([{ name: 'a', transport: 'stdio', command: 'node' }, { name: 'a', transport: 'stdio', command: 'node' }], /Two MCP servers are named 'a'/, 'servers[1].name');
  await bad([{ name: 'a', transport: 'stdio', command: 'node', providers: ['nope'] }], /'nope' is not a provider id/, 'servers[0].providers');
  await bad([{ name: 'new', transport: 'stdio', command: 'node', env: { K: '***' } }], /no value is stored/, 'servers[0].env.K');
  await bad([{ name: 'a', transport: 'websocket', url: 'https://x' }], /servers\[0\]\.transport/, 'servers[0].transport');
  await bad([{ name: 'a', transport: 'stdio', command: '' }], /servers\[0\]\.command/, 'servers[0].command');
  // A rejected list changes nothing.
  assert.deepEqual((await getJson(url)).body, put.body);
});

test('mcp_changed carries the list with its secrets masked, on the bus and on the wire', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const sse = await openSse(`${server.url}/api/events`);
  t.after(() => sse.close());
  const published: BusEvent[] = [];
  server.app.services.bus.subscribe((event) => void (event.name === 'mcp_changed' && published.push(event)));
  const servers = [
    { name: 'probe', transport: 'stdio', command: 'node', args: ['s.mjs'], env: { API_TOKEN: 'env-secret-3141' } },
    { name: 'docs', transport: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer header-secret-2718' } },
  ];
  const put = await sendJson(`${server.url}/api/mcp`, 'PUT', { servers });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  // the masked list sent back: the stored secrets are kept, and the second event masks them as well
  assert.equal((await sendJson(`${server.url}/api/mcp`, 'PUT', put.body)).status, 200);

  const wire = await mcpChanged(sse, 2);
  assert.equal(published.length, 2);
  for (const text of [...wire.map((m) => m.raw), ...published.map((e) => JSON.stringify(e))]) {
    assert.doesNotMatch(text, /env-secret-3141|header-secret-2718/);
  }
  for (const payload of [...wire.map((m) => m.data), ...published.map((e) => e.payload)]) {
    assert.deepEqual(payload.servers.map((s: { env?: object; headers?: object }) => s.env ?? s.headers), [{ API_TOKEN: '***' }, { Authorization: '***' }]);
  }
  // the secrets themselves are still there for the runs
  assert.deepEqual(server.app.services.mcp.secretValues().sort(), ['Bearer header-secret-2718', 'env-secret-3141']);
});

test('the list survives a restart', async (t) => {
  const first = await startServer();
  await sendJson(`${first.url}/api/mcp`, 'PUT', { servers: [{ name: 'keep', transport: 'sse', url: 'http://127.0.0.1:9/sse' }] });
  await first.close({ removeHome: false });
  const second = await startServer({ home: first.home });
  t.after(() => second.close());
  assert.deepEqual((await getJson(`${second.url}/api/mcp`)).body.servers.map((s: { name: string }) => s.name), ['keep']);
});
