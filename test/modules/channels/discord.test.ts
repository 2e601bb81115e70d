// Discord end to end: discord.js pointed at a local Discord (REST and gateway, test/support/fake-discord.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { CHANNEL, OTHER_CHANNEL, THREAD, startFakeDiscord } from '../../support/fake-discord.ts';

const ANSWER = 'Hello from the fake model. This is a plain text answer.';

test('discord through discord.js against a local gateway and REST API', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeDiscord();
  const workDir = mkdtempSync(join(tmpdir(), 'svc-chan-work-'));
  const server = await startAgentServer({ workingDir: workDir });
  // the server first (its bot stops while the gateway still answers), then the fake
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  server.app.services.settings.update({ channels: { discord: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: [CHANNEL] } } });
  const deadline = Date.now() + 15_000;
  let state;
  for (;;) {
    state = (await getJson(`${server.url}/api/channels`)).body.channels.find((c: { name: string }) => c.name === 'discord');
    if (state.connected || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(state.connected, true, JSON.stringify(state));
  assert.equal(state.botName, 'svcbot');

  await t.test('a mention in an allowed channel runs the agent; the answer goes back with typing', async () => {
    fake.push({ content: 'hello scenario:text' });
    await fake.waitFor((calls) => calls.some((c) => c.path === `/channels/${CHANNEL}/messages`));
    const typing = fake.calls.findIndex((c) => c.path === `/channels/${CHANNEL}/typing`);
    const answer = fake.calls.findIndex((c) => c.path === `/channels/${CHANNEL}/messages`);
    assert.ok(typing >= 0 && typing < answer);
    assert.equal(fake.calls[answer]!.body.content, ANSWER);
  });

  await t.test('toolStatus: the status message is posted, edited in place and deleted before the answer', async () => {
    server.app.services.settings.update({ channels: { discord: { toolStatus: true } } });
    try {
      const from = fake.calls.length;
      fake.push({ content: 'with status scenario:tool delay:300' });
      const TOOL_ANSWER = 'The tool finished. Its output was: hello-from-tool';
      await fake.waitFor((calls) => calls.slice(from).some((c) => c.body.content === TOOL_ANSWER), 30_000);
      const calls = fake.calls.slice(from).filter((c) => c.path.startsWith(`/channels/${CHANNEL}/messages`));
      const status = calls[0]!;
      assert.equal(status.method, 'POST');
      assert.match(String(status.body.content), /^Working…\n⏳ Bash/);
      const mine = calls.slice(1, -1);
      assert.ok(mine.length >= 2, 'an edit and the delete');
      assert.deepEqual([...new Set(mine.map((c) => c.method))].sort(), ['DELETE', 'PATCH']);
      assert.equal(new Set(mine.map((c) => c.path)).size, 1, 'all of one message');
      assert.match(mine[0]!.path, new RegExp(`^/channels/${CHANNEL}/messages/\\d+$`));
      assert.equal(mine.at(-1)!.method, 'DELETE');
      assert.equal(calls.at(-1)!.body.content, TOOL_ANSWER);
    } finally {
      server.app.services.settings.update({ channels: { discord: { toolStatus: false } } });
    }
  });

  await t.test('without a mention (mention-only) and in other channels nothing is answered', async () => {
    const before = fake.calls.length;
    fake.push({ content: 'no mention scenario:text', mention: false });
    fake.push({ content: 'stranger scenario:text', channelId: OTHER_CHANNEL });
    fake.push({ content: '/status' });
    await fake.waitFor((calls) => calls.slice(before).some((c) => c.body.content === 'Idle.'));
    assert.ok(!fake.calls.some((c) => c.path.includes(OTHER_CHANNEL)));
    assert.ok(!fake.calls.slice(before).some((c) => c.body.content === ANSWER));
    const discord = (await getJson(`${server.url}/api/channels`)).body.channels[1];
    assert.equal(discord.counts.ignored, 1);
  });

  await t.test('a thread of an allowed channel is allowed, has its own session, and is answered in the thread', async () => {
    fake.push({ content: 'in the thread scenario:text', channelId: THREAD });
    await fake.waitFor((calls) => calls.some((c) => c.path === `/channels/${THREAD}/messages` && c.body.content === ANSWER));
    const sessions = (await getJson(`${server.url}/api/chat-sessions`)).body.sessions.filter((s: { title: string }) => s.title.startsWith('Discord'));
    assert.deepEqual(sessions.map((s: { title: string }) => s.title).sort(), ['Discord · #a topic', 'Discord · #general']);
    const sent = await sendJson(`${server.url}/api/chatappb/send`, 'POST', { text: 'to the thread', target: `${CHANNEL}:${THREAD}` });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(fake.calls.at(-1)!.path, `/channels/${THREAD}/messages`);
  });

  await t.test('outbound text and a file; a 429 is waited out; strangers refused', async () => {
    fake.rateLimitNext(0.5);
    const text = await sendJson(`${server.url}/api/chatappb/send`, 'POST', { text: 'from **svc**', target: CHANNEL });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    const limited = fake.calls.filter((c) => c.method === 'POST:limited').at(-1)!;
    const sent = fake.calls.filter((c) => c.path === `/channels/${CHANNEL}/messages`).at(-1)!;
    assert.equal(sent.body.content, 'from **svc**', 'Discord takes Markdown as it is');
    assert.ok(sent.at - limited.at >= 450, `waited ${sent.at - limited.at} ms`);
    assert.match(text.body.messageId, /^\d+$/);

    writeFileSync(join(workDir, 'notes.md'), '# notes');
    const file = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'discord', type: 'document', file: 'notes.md', caption: 'see', target: CHANNEL });
    assert.equal(file.status, 200, JSON.stringify(file.body));
    const upload = fake.calls.filter((c) => c.path === `/channels/${CHANNEL}/messages`).at(-1)!;
    assert.deepEqual(upload.files.map((f) => [f.name, f.bytes.toString()]), [['notes.md', '# notes']]);
    assert.equal(upload.body.content, 'see');

    const stranger = await sendJson(`${server.url}/api/chatappb/send`, 'POST', { text: 'hi', target: OTHER_CHANNEL });
    assert.deepEqual([stranger.status, stranger.body.error], [403, 'TARGET_NOT_ALLOWED']);
    assert.ok(!JSON.stringify((await getJson(`${server.url}/api/settings`)).body).includes(fake.token));
  });
});
