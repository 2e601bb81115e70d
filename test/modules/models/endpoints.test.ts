// Model endpoints over the real HTTP API: added, changed and removed with their inputs checked (a URL that is not
// http(s) or carries a key, a control character, a provider's id, a taken id), the key never shown again; and
// probed against a fake model server on loopback in each API it speaks: the models it lists, a streamed answer,
// a tool call carried out and answered, the context it runs with; and servers that list no models, have no tool
// calls, run with a 4k context, or never answer (said within 5 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeModel, type FakeModel, type FakeModelOptions } from '../../support/fake-model.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { probeEndpoint } from '../../../src/modules/models/probe.ts';

const KEY = 'sk-local-5ecret-key';

describe('model endpoints', () => {
  let server: TestServer;
  const fakes: FakeModel[] = [];
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.close();
    for (const f of fakes) await f.close();
  });

  const fake = async (server?: FakeModelOptions['server']) => {
    const f = await startFakeModel({ chunkDelayMs: 0, ...(server ? { server } : {}) });
    fakes.push(f);
    return f;
  };
  const add = (body: Record<string, unknown>) => sendJson(`${server.url}/api/models/endpoints`, 'POST', body);
  const probe = async (id: string) => {
    const started = Date.now();
    const answer = await getJson(`${server.url}/api/models/endpoints/${id}/probe`, { method: 'POST' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return { ...answer.body.probe, tookMs: Date.now() - started };
  };

  test('added, listed, changed and removed; bad input is a 400 naming the field; the key is never shown', async () => {
    const created = await add({ id: 'local', name: 'Ollama here', baseUrl: 'http://127.0.0.1:11434/v1/', api: 'openai-chat', apiKey: KEY, models: ['qwen3-coder'] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual({ ...created.body.endpoint, createdAt: 0 }, { id: 'local', name: 'Ollama here', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-chat', hasKey: true, apiKeyEnv: null, models: ['qwen3-coder'], contextSize: null, createdAt: 0, probe: null });
    const refused = async (body: Record<string, unknown>, field: string, status = 400) => {
      const r = await add({ id: 'other', name: 'x', baseUrl: 'http://127.0.0.1:1/v1', api: 'openai-chat', ...body });
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.field, field, JSON.stringify(r.body));
    };
    await refused({ baseUrl: 'ftp://127.0.0.1/v1' }, 'baseUrl');
    await refused({ baseUrl: 'http://user:sk-secret@127.0.0.1:1/v1' }, 'baseUrl');
    await refused({ baseUrl: 'http://127.0.0.1:1/v1\u0000' }, 'baseUrl');
    await refused({ models: ['qwen\u0007'] }, 'models.0');
    await refused({ api: 'gemini' }, 'api');
    await refused({ id: 'claude' }, 'id');
    await refused({ id: 'Local' }, 'id');
    await refused({ apiKey: 'a', apiKeyEnv: 'B' }, 'apiKeyEnv');
    await refused({ id: 'local' }, 'id', 409);

    const changed = await sendJson(`${server.url}/api/models/endpoints/local`, 'PATCH', { name: 'Ollama', apiKey: null, apiKeyEnv: 'OLLAMA_KEY', contextSize: 32768 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.endpoint.name, changed.body.endpoint.hasKey, changed.body.endpoint.apiKeyEnv, changed.body.endpoint.contextSize], ['Ollama', false, 'OLLAMA_KEY', 32768]);
    assert.equal((await sendJson(`${server.url}/api/models/endpoints/nope`, 'PATCH', { name: 'x' })).status, 404);
    const listed = await getJson(`${server.url}/api/models/endpoints`);
    assert.equal(listed.body.endpoints.length, 1);
    assert.doesNotMatch(JSON.stringify([created.body, changed.body, listed.body]), /5ecret/, 'the key is never answered');
    // its key's variable is not set: the probe says so before it asks anything
    const unset = await getJson(`${server.url}/api/models/endpoints/local/probe`, { method: 'POST' });
    assert.deepEqual([unset.status, unset.body.field], [409, 'apiKeyEnv']);
    // in use by the agent's model: not removed, and what uses it is named
    assert.equal((await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { model: 'local/qwen3-coder' } })).status, 200);
    const inUse = await fetch(`${server.url}/api/models/endpoints/local`, { method: 'DELETE' });
    const inUseBody = (await inUse.json()) as { error: string; usedBy: string[] };
    assert.deepEqual([inUse.status, inUseBody.error, inUseBody.usedBy], [409, 'ENDPOINT_IN_USE', ["the agent's model (Settings › Agent)"]]);
    assert.equal((await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { model: '' } })).status, 200);
    assert.equal((await fetch(`${server.url}/api/models/endpoints/local`, { method: 'DELETE' })).status, 200);
    assert.equal((await fetch(`${server.url}/api/models/endpoints/local`, { method: 'DELETE' })).status, 404);
  });

  for (const api of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
    test(`${api}: the probe lists the models, streams an answer, carries out a tool call, and reads the context`, async () => {
      const f = await fake({ models: ['qwen3-coder', 'llama3'], context: { kind: 'vllm', tokens: 32768 } });
      const id = `fake-${api}`;
      const baseUrl = api === 'anthropic' ? f.url : `${f.url}/v1`;
      assert.equal((await add({ id, name: api, baseUrl, api, apiKey: KEY })).status, 201);
      const p = await probe(id);
      assert.equal(p.model, 'qwen3-coder', 'the first model listed');
      assert.deepEqual([p.models.ok, p.models.ids], [true, ['qwen3-coder', 'llama3']]);
      assert.equal(p.answer.ok, true, p.answer.detail);
      assert.ok(p.answer.firstTokenMs !== null && p.answer.firstTokenMs <= p.answer.ms, JSON.stringify(p.answer));
      assert.equal(p.tools.ok, true, p.tools.detail);
      assert.match(p.tools.detail, /called svc_probe_echo/);
      assert.deepEqual([p.context.ok, p.context.tokens], [true, 32768]);
      assert.deepEqual(p.warnings, []);
      const calls = f.modelRequests();
      const wire = { 'openai-chat': 'chat', 'openai-responses': 'responses', anthropic: 'anthropic' }[api];
      assert.ok(calls.length >= 3 && calls.every((c) => c.api === wire && c.model === 'qwen3-coder'), JSON.stringify(calls.map((c) => [c.api, c.model])));
      assert.ok(f.requests.every((r) => r.auth === (api === 'anthropic' ? KEY : `Bearer ${KEY}`)), 'every request carries the key');
      const toolRound = calls.filter((c) => c.tools.includes('svc_probe_echo'));
      assert.deepEqual(toolRound.map((c) => c.history!.tool), [0, 1], 'the tool\'s result went back');
      // kept with the endpoint
      assert.equal((await getJson(`${server.url}/api/models/endpoints/`)).status, 404);
      const kept = (await getJson(`${server.url}/api/models/endpoints`)).body.endpoints.find((e: { id: string }) => e.id === id);
      assert.equal(kept.probe.tools.ok, true);
    });
  }

  test('a server with no model list, no tool calls and a 4k context: each said, with how to fix it', async () => {
    const f = await fake({ models: null, tools: false, context: { kind: 'ollama', tokens: 4096 } });
    assert.equal((await add({ id: 'small', name: 'small', baseUrl: `${f.url}/v1`, api: 'openai-chat', models: ['qwen3'] })).status, 201);
    const p = await probe('small');
    assert.equal(p.model, 'qwen3', 'the endpoint\'s own model');
    assert.equal(p.models.ok, true, 'Ollama\'s /api/tags answers when /v1/models does not');
    assert.equal(p.answer.ok, true, p.answer.detail);
    assert.equal(p.tools.ok, false);
    assert.match(p.tools.detail, /no call of svc_probe_echo came back \(it answered in text/);
    assert.deepEqual([p.context.tokens, p.context.detail], [4096, '4096 tokens (its /api/show (Ollama))']);
    assert.ok(p.warnings.some((w: string) => /Tool calls do not work here/.test(w)), p.warnings.join('\n'));
    assert.ok(p.warnings.some((w: string) => /context is 4096 tokens.*OLLAMA_CONTEXT_LENGTH/.test(w)), p.warnings.join('\n'));

    const bare = await fake({ models: null });
    assert.equal((await add({ id: 'bare', name: 'bare', baseUrl: `${bare.url}/v1`, api: 'openai-chat' })).status, 201);
    const none = await probe('bare');
    assert.equal(none.models.ok, false);
    assert.match(none.models.detail, /no model list: HTTP 404/);
    assert.match(none.answer.detail, /not tried: no model to ask/);
  });

  test('a server that never answers, or is not there: said within 5 s, the rest not tried', async () => {
    const hung = await fake({ hang: true });
    assert.equal((await add({ id: 'hung', name: 'hung', baseUrl: `${hung.url}/v1`, api: 'openai-chat', models: ['m'] })).status, 201);
    const p = await probe('hung');
    assert.ok(p.tookMs < 5_000, `answered after ${p.tookMs} ms`);
    assert.match(p.models.detail, /no answer within 4 s/);
    assert.match(p.answer.detail, /not tried: the server did not answer/);
    assert.match(p.tools.detail, /not tried/);
    const closed = await fake();
    const port = closed.port;
    await closed.close();
    assert.equal((await add({ id: 'gone', name: 'gone', baseUrl: `http://127.0.0.1:${port}/v1`, api: 'openai-chat' })).status, 201);
    const gone = await probe('gone');
    assert.match(gone.models.detail, /connection was refused/);
    assert.ok(gone.tookMs < 5_000);
  });
  test('a model that never answers: the probe waits for it once, then says so without trying the tool call', async () => {
    const slow = await fake({ models: ['qwen3'], hangModel: true });
    const started = Date.now();
    const p = await probeEndpoint({ api: 'openai-chat', baseUrl: `${slow.url}/v1`, key: undefined, models: [], contextSize: null }, { reachMs: 2_000, answerMs: 1_000 });
    assert.ok(Date.now() - started < 6_000, `took ${Date.now() - started} ms: one model wait, not three`);
    assert.deepEqual([p.models.ok, p.answer.ok, p.tools.ok], [true, false, false]);
    assert.match(p.answer.detail, /no answer within 1 s/);
    assert.match(p.tools.detail, /not tried: qwen3 did not answer within 1 s/);
    assert.ok(p.warnings.some((w: string) => /did not answer within 1 s.*Probe again/.test(w)), p.warnings.join('\n'));
    assert.ok(!p.warnings.some((w: string) => /Tool calls do not work/.test(w)), 'no verdict on tools it never tried');
  });
});
