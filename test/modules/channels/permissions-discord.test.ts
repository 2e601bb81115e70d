// Permission requests answered from Discord: discord.js against the local gateway and REST API
// (test/support/fake-discord.ts), the real server and its PermissionsService holding calls of a run in
// the session the channel's messages started. Components on the prompt, INTERACTION_CREATE presses
// answered through the interaction callback, presses from elsewhere refused, the message settled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { CHANNEL, OTHER_CHANNEL, THREAD, startFakeDiscord } from '../../support/fake-discord.ts';
import { pressedChoice } from '../../../src/modules/channels/approvals.ts';

const EPHEMERAL = 64;
const DEFERRED_UPDATE = 6;
const CHANNEL_MESSAGE = 4;

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('permission requests answered with Discord buttons', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeDiscord();
  const server = await startAgentServer();
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { permissions, settings } = server.app.services;
  settings.update({ channels: { discord: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: [CHANNEL] } } });
  await until(async () => (await getJson(`${server.url}/api/channels`)).body.channels[1].connected, 'discord to connect');

  fake.push({ content: 'hello scenario:text' });
  await fake.waitFor((calls) => calls.some((c) => c.path === `/channels/${CHANNEL}/messages`));
  const sessions = (await getJson(`${server.url}/api/chat-sessions`)).body.sessions as { id: string; title: string }[];
  const sessionId = sessions.find((s) => s.title === 'Discord · #general')!.id;

  const prompts = () => fake.calls.filter((c) => c.method === 'POST' && c.body.components);
  async function ask(input: Record<string, unknown>, tool = 'Bash') {
    const before = prompts().length;
    const answer = permissions.ask({ sessionId, runId: 'tr_discord', provider: 'claude' }, { tool, input });
    const request = permissions.pending(sessionId).at(-1)!;
    await fake.waitFor(() => prompts().length > before);
    const prompt = prompts().at(-1)!;
    const messageId = [...fake.messages].find(([, m]) => m.content === prompt.body.content)![0];
    const ids = Object.fromEntries(fake.messages.get(messageId)!.components.flatMap((row) => row.components).map((b) => [pressedChoice(b.custom_id!)!.choice, b.custom_id!]));
    return { answer, request, prompt, messageId, ids };
  }
  const callbackOf = (interactionId: string) => until(() => fake.calls.find((c) => c.path.startsWith(`/interactions/${interactionId}/`)), `the callback of ${interactionId}`);
  const settled = (messageId: string, pattern: RegExp) =>
    until(() => {
      const shown = fake.messages.get(messageId)!;
      return pattern.test(shown.content) ? shown : undefined;
    }, `message ${messageId} to read ${pattern}`);

  await t.test('the channel gets the request with its change in a code block, the expiry as a Discord timestamp, and buttons', async () => {
    const { prompt, messageId, request } = await ask({ file_path: '/w/notes_1.md', old_string: 'a ``` b', new_string: '@everyone' }, 'Edit');
    assert.equal(prompt.path, `/channels/${CHANNEL}/messages`);
    const content = String(prompt.body.content);
    assert.ok(content.startsWith('**🔐 claude asks to use Edit**\nEdit notes\\_1.md\nFile: /w/notes\\_1.md\n```\n'), content);
    assert.ok(content.includes('-a ``\u200b` b\n+@everyone\n```\n'), 'a fence in the change does not end the block');
    assert.ok(content.endsWith(`Expires <t:${Math.floor(request.expiresAt / 1000)}:R> (<t:${Math.floor(request.expiresAt / 1000)}:t>).`), content);
    assert.deepEqual(prompt.body.allowed_mentions, { parse: [] });
    assert.deepEqual(fake.messages.get(messageId)!.components.map((row) => [row.type, row.components.map((b) => [b.type, b.style, b.label])]), [
      [1, [[2, 3, 'Allow once'], [2, 3, 'Allow for this session']]],
      [1, [[2, 4, 'Deny']]],
    ]);
    permissions.decide(request.id, { decision: 'deny' }, 'person', 'test');
    await settled(messageId, /⛔ Denied in svc/);
  });

  await t.test('a press in another channel, or in a thread of the allowed one (a chat of its own), is refused with an ephemeral reply and decides nothing', async () => {
    const { request, messageId, ids } = await ask({ command: 'rm -rf build' });
    for (const channelId of [OTHER_CHANNEL, THREAD]) {
      const callback = await callbackOf(fake.press(messageId, ids.once!, { channelId, userId: '300000000000000009', username: 'eve' }));
      assert.equal(callback.body.type, CHANNEL_MESSAGE);
      assert.deepEqual([(callback.body.data as { content: string }).content, (callback.body.data as { flags: number }).flags], ['You are not allowed to answer this request.', EPHEMERAL]);
    }
    assert.equal(permissions.get(request.id)!.status, 'pending');
    assert.equal(fake.messages.get(messageId)!.components.length, 2);
    const entries = (await getJson(`${server.url}/api/security-audit/entries?action=permission.decide`)).body.entries.slice(-2);
    assert.deepEqual(entries.map((e: { target: string; outcome: string; details: { chat: string } }) => [e.target, e.outcome, e.details.chat]), [
      [request.id, 'refused', `discord:${OTHER_CHANNEL}`],
      [request.id, 'refused', `discord:${CHANNEL}:${THREAD}`],
    ]);
    permissions.decide(request.id, { decision: 'deny' }, 'person', 'test');
  });

  await t.test('Deny from the channel: a deferred update, the agent reads who denied it, the message loses its buttons', async () => {
    const { answer, messageId, ids, request } = await ask({ command: 'git push --force' });
    const callback = await callbackOf(fake.press(messageId, ids.deny!));
    assert.deepEqual(callback.body, { type: DEFERRED_UPDATE });
    assert.deepEqual(await answer, { allow: false, reason: 'Denied from Discord by @ann.' });
    const message = await settled(messageId, /⛔ Denied by @ann from Discord\.$/);
    assert.deepEqual(message.components, []);
    const entry = (await getJson(`${server.url}/api/security-audit/entries?action=permission.decide`)).body.entries.at(-1);
    assert.deepEqual([entry.actor, entry.target, entry.details.by], ['channel:discord:300000000000000001 (@ann)', request.id, 'discord']);
  });

  await t.test('decided in svc: the message shows it, and a late press is told it was decided', async () => {
    const { answer, messageId, ids, request } = await ask({ command: 'npm publish' });
    assert.equal((await sendJson(`${server.url}/api/permissions/${request.id}`, 'POST', { decision: 'allow' })).status, 200);
    assert.deepEqual(await answer, { allow: true });
    assert.deepEqual((await settled(messageId, /✅ Allowed in svc\.$/)).components, []);
    const late = await callbackOf(fake.press(messageId, ids.session!));
    assert.deepEqual([late.body.type, (late.body.data as { content: string }).content], [CHANNEL_MESSAGE, 'Already allowed (person).']);
    assert.equal(permissions.rules().length, 0, 'the late press remembered nothing');
  });

  await t.test('the run ends first: the message says so', async () => {
    const { answer, messageId } = await ask({ command: 'sleep 100' });
    permissions.endRun('tr_discord');
    assert.equal((await answer).allow, false);
    assert.deepEqual((await settled(messageId, /⛔ Denied because the run ended first\.$/)).components, []);
  });
});
