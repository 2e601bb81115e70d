// Pi profiles: registered in svc's own Pi configuration directory after discovering the endpoint's
// models from a local server speaking the OpenAI / Google list formats; a failure saves nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { PiProfiles } from '../../../src/modules/pi/index.ts';

async function modelsServer() {
  const seen: { url: string; auth?: string; goog?: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url!, auth: req.headers.authorization, goog: req.headers['x-goog-api-key'] as string | undefined });
    res.setHeader('content-type', 'application/json');
    if (req.url === '/v1/models') res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen3-coder' }, { id: 'llama-4' }] }));
    else if (req.url === '/v1beta/models') res.end(JSON.stringify({ models: [{ name: 'models/gemini-3-flash' }] }));
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('register, list, use as the model, delete', async (t) => {
  const models = await modelsServer();
  const server = await startServer();
  t.after(async () => {
    await server.close();
    await models.close();
  });
  const register = (body: object) => sendJson(`${server.url}/api/pi/profiles/register`, 'POST', body);

  const res = await register({ id: 'local', label: 'Local vLLM', mode: 'openai', endpoint: `${models.url}/v1/`, model: 'qwen3-coder', apiKey: 'sk-local-key-123456' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    profile: { id: 'local', label: 'Local vLLM', mode: 'openai', endpoint: `${models.url}/v1`, model: 'qwen3-coder', apiKey: '***', models: ['qwen3-coder', 'llama-4'] },
    models: ['qwen3-coder', 'llama-4'],
  });
  assert.equal(models.seen[0]!.auth, 'Bearer sk-local-key-123456');
  const file = join(server.home, 'pi-agent', 'models.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(doc.providers.local.models.map((m: { id: string }) => m.id), ['qwen3-coder', 'llama-4']);
  assert.equal(doc.providers.local.api, 'openai-completions');
  assert.equal(doc.providers.local.apiKey, 'sk-local-key-123456');

  // a run that names no model uses this profile, not Pi's own default (google, which needs a key)
  const piSettings = () => JSON.parse(readFileSync(join(server.home, 'pi-agent', 'settings.json'), 'utf8'));
  assert.deepEqual(piSettings(), { defaultProvider: 'local', defaultModel: 'qwen3-coder' });

  const google = await register({ id: 'gem', label: 'Gemini', mode: 'google', endpoint: `${models.url}/v1beta`, apiKey: 'g-key-abcdef' });
  assert.deepEqual(piSettings(), { defaultProvider: 'local', defaultModel: 'qwen3-coder' }, 'a second profile leaves the default alone');
  assert.deepEqual(google.body.models, ['gemini-3-flash']);
  assert.equal(models.seen.at(-1)!.goog, 'g-key-abcdef');

  // Discovery failures: 502, nothing saved.
  const before = readFileSync(file, 'utf8');
  const down = await register({ id: 'down', label: 'Down', mode: 'openai', endpoint: `${models.url}/nothing` });
  assert.equal(down.status, 502);
  assert.equal(down.body.error, 'PI_DISCOVERY_FAILED');
  assert.match(down.body.message, /nothing was saved/);
  assert.equal(readFileSync(file, 'utf8'), before);
  assert.equal((await register({ id: 'x', label: 'x', mode: 'openai', endpoint: 'ftp://x' })).status, 400);
  assert.equal((await register({ id: 'Bad Id', label: 'x', mode: 'openai', endpoint: models.url })).status, 400);
  assert.equal((await register({ id: 'm', label: 'x', mode: 'openai', endpoint: `${models.url}/v1`, model: 'nope' })).status, 400);

  const list = await getJson(`${server.url}/api/pi/profiles`);
  assert.deepEqual(list.body.profiles.map((p: { id: string }) => p.id), ['local', 'gem']);

  // The Pi provider is in the one registry, and runs get svc's own Pi directory.
  const registry = await getJson(`${server.url}/api/cli-registry`);
  const pi = registry.body.providers.find((p: { id: string }) => p.id === 'pi');
  assert.deepEqual(pi.models.slice(1).map((m: { id: string }) => m.id), ['local/qwen3-coder', 'local/llama-4', 'gem/gemini-3-flash'], 'the picker offers each profile\'s models');

  assert.equal((await fetch(`${server.url}/api/pi/profiles/gem`, { method: 'DELETE' })).status, 200);
  assert.equal((await fetch(`${server.url}/api/pi/profiles/gem`, { method: 'DELETE' })).status, 404);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8')).providers), ['local']);
  assert.ok(existsSync(file));
  // the default's profile deleted: the default goes with it, other settings stay
  const settingsFile = join(server.home, 'pi-agent', 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ ...piSettings(), retry: { maxRetries: 1 } }));
  assert.equal((await fetch(`${server.url}/api/pi/profiles/local`, { method: 'DELETE' })).status, 200);
  assert.deepEqual(piSettings(), { retry: { maxRetries: 1 } });
});

test("svc's model endpoints are written into svc's Pi models.json beside the profiles, which stay the profiles; a profile keeps its id", () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pi-endpoints-'));
  try {
    const pi = new PiProfiles(dir);
    const models = () => (JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')) as { providers: Record<string, Record<string, unknown>> }).providers;
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ providers: { mine: { name: 'Mine', baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions', models: [{ id: 'm', name: 'm' }] } } }));
    pi.syncEndpoints([
      { id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-chat', models: ['qwen3'] },
      { id: 'gw', name: 'Gateway', baseUrl: 'http://127.0.0.1:4000', api: 'anthropic', key: 'sk-gw', models: ['claude-like'] },
      { id: 'mine', name: 'Clash', baseUrl: 'http://127.0.0.1:1/v1', api: 'openai-chat', models: ['x'] },
      { id: 'empty', name: 'No models', baseUrl: 'http://127.0.0.1:2/v1', api: 'openai-responses', models: [] },
    ]);
    const written = models();
    assert.deepEqual(Object.keys(written).sort(), ['gw', 'local', 'mine']);
    assert.deepEqual(written.local, { name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-completions', apiKey: 'none', models: [{ id: 'qwen3', name: 'qwen3' }], svcEndpoint: true });
    assert.deepEqual([written.gw!.api, written.gw!.apiKey], ['anthropic-messages', 'sk-gw']);
    assert.equal(written.mine!.name, 'Mine', 'the profile of that id stays');
    assert.deepEqual(pi.list().map((p) => p.id), ['mine'], 'endpoints are not profiles');
    assert.deepEqual(pi.modelOptions().map((o) => o.id), ['mine/m']);
    pi.syncEndpoints([{ id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-chat', models: ['qwen3'] }]);
    assert.deepEqual(Object.keys(models()).sort(), ['local', 'mine'], 'a removed endpoint leaves');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
