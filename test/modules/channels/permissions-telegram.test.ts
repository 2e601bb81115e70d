// Permission requests answered from Telegram: grammY against the local Bot API (test/support/fake-telegram.ts),
// the real server, its real PermissionsService holding calls of a run in the session the chat's messages
// started. The prompt with its buttons, presses from the chat (allow once, for the session, deny with
// the reason reaching the agent), presses from anywhere else refused, and the message settled however
// the request ends (a press, svc itself, the timeout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startFakeTelegram, type SentCall } from '../../support/fake-telegram.ts';
import { pressedChoice } from '../../../src/modules/channels/approvals.ts';

const CHAT = 4242;
/** Allowed too, but did not start the run. */
const OTHER_ALLOWED = 6000;
const STRANGER = 5555;
const NOT_ALLOWED = 'You are not allowed to answer this request.';

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('permission requests answered with Telegram buttons', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeTelegram();
  // a bot once polled for messages only: Telegram keeps that list until svc gives its own
  fake.allowedUpdates = ['message'];
  const server = await startAgentServer({ approvalTimeoutSec: 10 });
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { permissions, settings } = server.app.services;
  settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: [String(CHAT), String(OTHER_ALLOWED)] } } });
  await until(async () => (await getJson(`${server.url}/api/channels`)).body.channels[0].connected, 'telegram to connect');

  // the chat starts a run: its session is the one the run's requests belong to
  fake.push({ text: 'hello scenario:text' });
  await fake.waitFor((calls) => calls.some((c) => c.method === 'sendMessage' && String(c.params.chat_id) === String(CHAT)));
  const sessions = (await getJson(`${server.url}/api/chat-sessions`)).body.sessions as { id: string; title: string }[];
  const sessionId = sessions.find((s) => s.title === 'Telegram · ann')!.id;

  const prompts = () => fake.calls.filter((c) => c.method === 'sendMessage' && c.params.reply_markup);
  /** A tool call of the chat's run, held; resolves once its prompt is in the chat. */
  async function ask(command: string, session = sessionId) {
    const before = prompts().length;
    const answer = permissions.ask({ sessionId: session, runId: 'tr_telegram', provider: 'claude' }, { tool: 'Bash', input: { command } });
    const request = permissions.pending(session).at(-1)!;
    await fake.waitFor(() => prompts().length > before);
    const prompt = prompts().at(-1)!;
    const messageId = [...fake.messages].find(([, m]) => m.text === prompt.params.text)![0];
    const data = (choice: string) => fake.messages.get(messageId)!.keyboard.flat().find((b) => pressedChoice(b.callback_data!)?.choice === choice)!.callback_data!;
    return { answer, request, prompt, messageId, data };
  }
  const answerOf = (queryId: string) => until(() => fake.calls.find((c) => c.method === 'answerCallbackQuery' && c.params.callback_query_id === queryId), `the answer to press ${queryId}`);
  const settledText = (messageId: number, pattern: RegExp) =>
    until(() => {
      const shown = fake.messages.get(messageId)!;
      return pattern.test(shown.text) ? shown : undefined;
    }, `message ${messageId} to read ${pattern}`);

  // left to time out while the others are answered (agent.approvalTimeoutSec is 10 here)
  const unanswered = await ask('sleep 1');
  settings.update({ agent: { approvalTimeoutSec: 600 } });

  await t.test('the chat gets the request: tool, command (escaped), expiry, and three buttons; button presses are asked for', async () => {
    const { prompt, messageId } = await ask('npm test && echo "<ok>"');
    assert.equal(String(prompt.params.chat_id), String(CHAT));
    assert.equal(prompt.params.parse_mode, 'HTML');
    const text = String(prompt.params.text);
    assert.match(text, /^<b>🔐 claude asks to use Bash<\/b>\n/);
    assert.ok(text.includes('<pre>npm test &amp;&amp; echo "&lt;ok&gt;"</pre>'), text);
    assert.match(text, /\nExpires in 10 min \(\d\d:\d\d UTC\)\.$/);
    const keyboard = fake.messages.get(messageId)!.keyboard;
    assert.deepEqual(keyboard.map((row) => row.map((b) => b.text)), [['Allow once', 'Allow for this session'], ['Deny']]);
    for (const b of keyboard.flat()) assert.ok(Buffer.byteLength(b.callback_data!) <= 64);
    assert.ok(fake.allowedUpdates?.includes('callback_query'), `allowed_updates: ${fake.allowedUpdates}`);
    // a request of a session no chat started goes to no chat
    const before = prompts().length;
    void permissions.ask({ sessionId: 'ses_web', runId: 'tr_web', provider: 'claude' }, { tool: 'Bash', input: { command: 'ls' } });
    const { prompt: next } = await ask('npm run build');
    assert.equal(prompts().length, before + 1);
    assert.ok(String(next.params.text).includes('npm run build'));
  });

  await t.test('a press from a stranger or from another allowed chat is refused and decides nothing', async () => {
    const { request, messageId, data } = await ask('rm -rf build');
    const auditBefore = (await getJson(`${server.url}/api/security-audit/entries?action=permission.decide`)).body.entries.length;
    for (const chatId of [STRANGER, OTHER_ALLOWED]) {
      const answered = await answerOf(fake.press(messageId, data('once'), { chatId, username: 'eve' }));
      assert.equal(answered.params.text, NOT_ALLOWED);
    }
    assert.equal(permissions.get(request.id)!.status, 'pending');
    assert.ok(fake.messages.get(messageId)!.keyboard.length, 'the buttons stay for the chat that may answer');
    const entries = (await getJson(`${server.url}/api/security-audit/entries?action=permission.decide`)).body.entries.slice(auditBefore);
    assert.deepEqual(entries.map((e: { target: string; outcome: string; details: { chat: string } }) => [e.target, e.outcome, e.details.chat]), [
      [request.id, 'refused', `telegram:${STRANGER}`],
      [request.id, 'refused', `telegram:${OTHER_ALLOWED}`],
    ]);
    // the chat that started the run, once taken off the allowlist, is refused too
    settings.update({ channels: { telegram: { allowlist: [String(OTHER_ALLOWED)] } } });
    try {
      assert.equal((await answerOf(fake.press(messageId, data('once')))).params.text, NOT_ALLOWED);
      assert.equal(permissions.get(request.id)!.status, 'pending');
    } finally {
      settings.update({ channels: { telegram: { allowlist: [String(CHAT), String(OTHER_ALLOWED)] } } });
    }
    permissions.decide(request.id, { decision: 'deny' }, 'person', 'test');
  });

  await t.test('Allow once from the chat runs the call; the message says who, loses its buttons, and a second press is told', async () => {
    const { answer, request, messageId, data } = await ask('npm ci');
    const deny = data('deny');
    const query = fake.press(messageId, data('once'));
    assert.deepEqual(await answer, { allow: true });
    assert.equal((await answerOf(query)).params.text, undefined, 'acknowledged without a notice: the message says it');
    const settled = await settledText(messageId, /✅ Allowed by @ann from Telegram\.$/);
    assert.deepEqual(settled.keyboard, []);
    assert.ok(settled.text.includes('<pre>npm ci</pre>'), 'what was allowed stays readable');
    const entry = (await getJson(`${server.url}/api/security-audit/entries?action=permission.decide`)).body.entries.at(-1);
    assert.deepEqual([entry.actor, entry.target, entry.outcome, entry.details.by, entry.details.decision], [`channel:telegram:${CHAT} (@ann)`, request.id, 'ok', 'telegram', 'allow']);
    assert.equal((await answerOf(fake.press(messageId, deny))).params.text, 'Already allowed (telegram).');
    assert.equal(permissions.get(request.id)!.status, 'allowed');
  });

  await t.test('Deny from the chat: the agent reads who denied it from where', async () => {
    const { answer, messageId, data } = await ask('git push --force');
    fake.press(messageId, data('deny'));
    assert.deepEqual(await answer, { allow: false, reason: 'Denied from Telegram by @ann.' });
    assert.deepEqual((await settledText(messageId, /⛔ Denied by @ann from Telegram\.$/)).keyboard, []);
  });

  await t.test('Allow for this session remembers the call for the session', async () => {
    const { answer, messageId, data } = await ask('npm run lint');
    fake.press(messageId, data('session'));
    assert.deepEqual(await answer, { allow: true });
    await settledText(messageId, /✅ Allowed for this session by @ann from Telegram\.$/);
    assert.ok(permissions.rules().some((r) => r.label === 'Bash(npm run lint)' && r.scope === 'session' && r.sessionId === sessionId));
  });

  await t.test('decided in svc: the message shows it, with the reason, and loses its buttons', async () => {
    const { answer, messageId } = await ask('curl example.com');
    const { status } = await sendJson(`${server.url}/api/permissions/${permissions.pending(sessionId).at(-1)!.id}`, 'POST', { decision: 'deny', reason: 'not now' });
    assert.equal(status, 200);
    assert.deepEqual(await answer, { allow: false, reason: 'not now' });
    assert.deepEqual((await settledText(messageId, /⛔ Denied in svc: not now\.$/)).keyboard, []);
  });

  await t.test('nobody answered in time: the message says so', async () => {
    assert.equal((await unanswered.answer).allow, false);
    const settled = await settledText(unanswered.messageId, /⛔ Denied because nobody answered in time\.$/);
    assert.deepEqual(settled.keyboard, []);
    const edits = fake.calls.filter((c: SentCall) => c.method === 'editMessageText' && Number(c.params.message_id) === unanswered.messageId);
    assert.equal(edits.length, 1);
  });
});
