// A failed turn of the manager's executive reads as the chat's failures do: what failed and why in the
// done line's reason (never a bare failure code), its class, and the command that fixes it; the
// console's settings form finds the providers it may name in the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { providerInfo } from '../../../src/agent/providers/registry.ts';
import { turnFailure } from '../../../src/modules/executive/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { startManager } from '../dashboard/helpers.ts';

test('a turn whose CLI is missing ends with the reason, the failure class and the install command', async () => {
  const manager = await startManager();
  try {
    const put = await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { provider: 'claude', executable: '/nonexistent/svc-test/claude' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const answer = await postNdjson(`${manager.url}/api/svc-ceo/message`, { text: 'hello', responseMode: 'text' });
    const done = (await answer.done).at(-1);
    assert.equal(done.type, 'done');
    assert.equal(done.status, 'error');
    assert.equal(done.failure, 'cli_missing');
    assert.equal(done.fix, providerInfo('claude').install!.command);
    assert.doesNotMatch(done.reason, /^cli_missing:/, 'a sentence for a person, not the failure code');
    assert.match(done.reason, /is not installed \('\/nonexistent\/svc-test\/claude' was not found\)/);
    assert.match(done.reason, /the executive's settings \(Executable\)/, "the executive's own setting, not the chat's agent section");

    const state = (await getJson(`${manager.url}/api/svc-ceo/state`)).body;
    const claude = state.providers.find((p: any) => p.id === 'claude');
    assert.equal(claude.displayName, providerInfo('claude').displayName);
    assert.deepEqual(claude.models, providerInfo('claude').models);
  } finally {
    await manager.close();
  }
});

test("a failure's advice names the executive's settings where the chat's would name its agent section", () => {
  const auth = turnFailure('codex', 'auth', 'invalid api key');
  assert.equal(auth.fix, providerInfo('codex').credentials!.login);
  assert.doesNotMatch(auth.summary, /agent\.env/);
  assert.match(auth.summary, /the executive's settings \(Environment\)/);
  const limit = turnFailure('claude', 'rate_limit', 'usage limit reached');
  assert.equal(limit.fix, undefined);
  assert.match(limit.summary, /hit its usage limit/);
});

test('the executive runs only on a provider that takes MCP servers (its tools are one): the settings refuse the others and the console offers none of them', async () => {
  const manager = await startManager();
  try {
    for (const provider of ['custom', 'pi']) {
      const put = await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { provider });
      assert.equal(put.status, 400, provider);
      assert.equal(put.body.field, 'provider');
      assert.match(put.body.message, /MCP server.*choose claude, codex, gemini, opencode, copilot/);
    }
    assert.equal((await getJson(`${manager.url}/api/svc-ceo/settings`)).body.provider, 'claude', 'nothing was saved');
    const offered = (await getJson(`${manager.url}/api/svc-ceo/state`)).body.providers.map((p: { id: string }) => p.id);
    assert.deepEqual(offered, ['claude', 'codex', 'gemini', 'opencode', 'copilot']);
  } finally {
    await manager.close();
  }
});
