import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';

describe('settings', () => {
  test('defaults, validated patches, redacted secrets, persistence', async () => {
    const server = await startServer();
    const url = `${server.url}/api/settings`;
    const initial = await getJson(url);
    assert.equal(initial.status, 200);
    assert.equal(initial.body.agent.provider, 'claude');
    assert.equal(initial.body.network.trustedLanBypass, false);

    const updated = await sendJson(url, 'PUT', { agent: { provider: 'codex', fallback: ['gemini'], env: { OPENAI_API_KEY: 'sk-very-secret' } } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.agent.provider, 'codex');
    assert.deepEqual(updated.body.agent.fallback, ['gemini']);
    assert.equal(updated.body.agent.env.OPENAI_API_KEY, '***', 'secret redacted in the answer');
    assert.ok(!JSON.stringify((await getJson(url)).body).includes('sk-very-secret'), 'secret never returned');
    assert.equal(server.app.services.settings.get().agent.env.OPENAI_API_KEY, 'sk-very-secret');

    // echoing the redacted form back keeps the secret
    await sendJson(url, 'PUT', { agent: { env: { OPENAI_API_KEY: '***' }, model: 'gpt-5.5' } });
    assert.equal(server.app.services.settings.get().agent.env.OPENAI_API_KEY, 'sk-very-secret');

    for (const [patch, field] of [
      [{ agent: { provider: 'nope' } }, 'agent.provider'],
      [{ agent: { idleTimeoutSec: -1 } }, 'agent.idleTimeoutSec'],
      [{ agent: { colour: 'red' } }, 'agent.colour'],
      [{ network: { allowedOrigins: ['not a url'] } }, 'network.allowedOrigins.0'],
      [{ agent: { env: { 'BAD NAME': 'x' } } }, 'agent.env.BAD NAME'],
    ] as const) {
      const answer = await sendJson(url, 'PUT', patch);
      assert.equal(answer.status, 400, JSON.stringify(patch));
      assert.equal(answer.body.error, 'INVALID_SETTING');
      assert.equal(answer.body.field, field);
      assert.match(answer.body.message, new RegExp(field.split('.').pop()!.replace(/[. ]/g, '.')));
    }
    const array = await sendJson(url, 'PUT', [1, 2]);
    assert.equal(array.status, 400);
    assert.equal(server.app.services.settings.get().agent.provider, 'codex', 'failed patches changed nothing');

    // null resets a field to its default
    await sendJson(url, 'PUT', { agent: { fallback: null } });
    assert.deepEqual(server.app.services.settings.get().agent.fallback, []);

    await server.close({ removeHome: false });
    const again = await startServer({ home: server.home });
    const reloaded = (await getJson(`${again.url}/api/settings`)).body;
    assert.equal(reloaded.agent.provider, 'codex');
    assert.equal(reloaded.agent.model, 'gpt-5.5');
    assert.equal(again.app.services.settings.get().agent.env.OPENAI_API_KEY, 'sk-very-secret');
    await again.close();
  });

  test('string secrets of every section (vision.apiKey, memory.embeddings.apiKey) read *** once set, and are kept when echoed', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const url = `${server.url}/api/settings`;
    const unset = (await getJson(url)).body;
    assert.equal(unset.vision.apiKey, '', 'an unset secret reads empty, not ***');
    assert.equal(unset.memory.embeddings.apiKey, '');
    const put = await sendJson(url, 'PUT', { vision: { apiKey: 'sk-vision-0123456789' }, memory: { embeddings: { apiKey: 'sk-embed-0123456789' } } });
    assert.equal(put.status, 200);
    for (const answer of [put.body, (await getJson(url)).body]) {
      assert.equal(answer.vision.apiKey, '***');
      assert.equal(answer.memory.embeddings.apiKey, '***');
      const raw = JSON.stringify(answer);
      assert.ok(!raw.includes('sk-vision-0123456789') && !raw.includes('sk-embed-0123456789'), 'no secret in the answer');
    }
    await sendJson(url, 'PUT', { vision: { apiKey: '***' }, memory: { embeddings: { apiKey: '***' } } });
    const kept = server.app.services.settings.get();
    assert.equal(kept.vision.apiKey, 'sk-vision-0123456789');
    assert.equal(kept.memory.embeddings.apiKey, 'sk-embed-0123456789');
  });

  test('every change reaches event clients as settings_changed: the changed sections, secrets masked', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const sse = await openSse(`${server.url}/api/events`);
    t.after(() => sse.close());
    await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { provider: 'gemini', env: { GEMINI_API_KEY: 'AIza-very-secret-key' } } });
    // a slash command changes settings through the same service
    await postNdjson(`${server.url}/api/command`, { text: '/model flash' });
    const [first, second] = await sse.waitFor(2);
    assert.equal(first!.data.event, 'settings_changed');
    assert.equal(first!.data.topic, 'system');
    assert.deepEqual(first!.data.sections, ['agent']);
    assert.equal(first!.data.values.agent.provider, 'gemini');
    assert.deepEqual(first!.data.values.agent.env, { GEMINI_API_KEY: '***' });
    assert.ok(!sse.raw.includes('AIza-very-secret-key'), 'the secret never goes out');
    assert.equal(second!.data.event, 'settings_changed');
    assert.equal(second!.data.values.agent.model, 'flash');
    // a patch that changes nothing says nothing
    await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { model: 'flash' } });
    await sendJson(`${server.url}/api/settings`, 'PUT', { network: { trustedLanBypass: true } });
    const [, , third] = await sse.waitFor(3);
    assert.deepEqual(third!.data.sections, ['network']);
  });
});
