// Telegram end to end: grammY pointed at a local fake Bot API (test/support/fake-telegram.ts), the real
// server with fake provider CLIs. Inbound runs, strangers, pairing, slash commands, files both ways,
// path tricks, retry_after, and the bot token kept out of every answer, log and trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startFakeTelegram } from '../../support/fake-telegram.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';
import { encode, speak } from '../../support/speech.ts';

const ANSWER = 'Hello from the fake model. This is a plain text answer.';

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // every 20 ms: on every turn of the event loop it took a core for the 11 s of the status-message test
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('telegram through grammY against a local Bot API', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeTelegram();
  const workDir = mkdtempSync(join(tmpdir(), 'svc-chan-work-'));
  const server = await startAgentServer({ workingDir: workDir });
  // the server first (its bot stops while the Bot API still answers), then the fake
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const invocations = () => server.invocations();
  const errors: string[] = [];
  const originalError = console.error;
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  t.after(() => (console.error = originalError));

  server.app.services.settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
  const state = await until(async () => {
    const { body } = await getJson(`${server.url}/api/channels`);
    const tg = body.channels.find((c: { name: string }) => c.name === 'telegram');
    return tg.connected ? tg : undefined;
  }, 'telegram to connect');
  assert.equal(state.botName, '@svc_test_bot');
  assert.equal(state.configured, true);
  const menu = fake.calls.find((c) => c.method === 'setMyCommands');
  assert.deepEqual((menu?.params.commands as { command: string }[]).map((c) => c.command), ['new', 'stop', 'status', 'help']);

  await t.test('a message from an allowed chat runs the agent and the answer comes back, with typing', async () => {
    fake.push({ text: 'hello scenario:text' });
    await fake.waitFor((calls) => calls.some((c) => c.method === 'sendMessage' && String(c.params.chat_id) === '4242'));
    const typing = fake.calls.findIndex((c) => c.method === 'sendChatAction' && c.params.action === 'typing');
    const answer = fake.calls.findIndex((c) => c.method === 'sendMessage');
    assert.ok(typing >= 0 && typing < answer, 'typing is shown before the answer');
    assert.equal(fake.calls[answer]!.params.text, ANSWER);
    assert.equal(fake.calls[answer]!.params.parse_mode, 'HTML');
    const sessions = (await getJson(`${server.url}/api/chat-sessions`)).body;
    const bound = JSON.stringify(sessions).match(/Telegram · ann/);
    assert.ok(bound, 'a session named after the chat holds the conversation');
    assert.equal(invocations().at(-1)!.prompt.includes('hello scenario:text'), true);
  });

  await t.test('the same chat keeps its session; /new starts another', async () => {
    const before = invocations().length;
    fake.push({ text: 'again scenario:text' });
    await until(() => invocations().length > before && fake.calls.filter((c) => c.method === 'sendMessage').length >= 2, 'second answer');
    fake.push({ text: '/new', entities: [{ type: 'bot_command', offset: 0, length: 4 }] });
    await fake.waitFor((calls) => calls.some((c) => c.method === 'sendMessage' && String(c.params.text).startsWith('Started a new session')));
    fake.push({ text: '/status', entities: [{ type: 'bot_command', offset: 0, length: 7 }] });
    await fake.waitFor((calls) => calls.some((c) => c.method === 'sendMessage' && c.params.text === 'Idle.'));
  });

  await t.test('a stranger is ignored, counted and logged, never answered', async () => {
    fake.push({ chat: { id: 5555, type: 'private', first_name: 'Eve' }, text: 'let me in scenario:text' });
    // an allowed message after it: once it is answered, the stranger's has been handled too
    const answered = fake.calls.filter((c) => c.method === 'sendMessage').length;
    fake.push({ text: '/status', entities: [{ type: 'bot_command', offset: 0, length: 7 }] });
    await fake.waitFor((calls) => calls.filter((c) => c.method === 'sendMessage').length > answered);
    assert.ok(!fake.calls.some((c) => String(c.params.chat_id) === '5555'), 'nothing was sent to the stranger');
    const tg = (await getJson(`${server.url}/api/channels`)).body.channels[0];
    assert.equal(tg.counts.ignored, 1);
    const audit = (await getJson(`${server.url}/api/security-audit/entries?action=channel.ignored`)).body.entries;
    assert.equal(audit[0].target, 'telegram:5555');
    assert.equal(audit[0].outcome, 'refused');
    assert.ok(!invocations().some((i) => i.prompt.includes('let me in')));
  });

  await t.test('pairing: a one-time code sent from a new chat adds it to the allowlist', async () => {
    const { status, body } = await sendJson(`${server.url}/api/channels/telegram/pair`, 'POST', {});
    assert.equal(status, 200);
    assert.match(body.code, /^\d{6}$/);
    const wrong = body.code === '000000' ? '111111' : '000000';
    fake.push({ chat: { id: 6000, type: 'private', first_name: 'Bob' }, text: wrong });
    fake.push({ chat: { id: 6000, type: 'private', first_name: 'Bob' }, text: `/pair ${body.code}` });
    await fake.waitFor((calls) => calls.some((c) => String(c.params.chat_id) === '6000' && String(c.params.text).startsWith('Paired')));
    assert.deepEqual(server.app.services.settings.get().channels.telegram.allowlist, ['4242', '6000']);
    const pair = (await getJson(`${server.url}/api/security-audit/entries?action=channel.pair`)).body.entries;
    assert.deepEqual(pair.map((e: { target: string }) => e.target), ['telegram', 'telegram:6000']);
    const allow = (await getJson(`${server.url}/api/security-audit/entries?action=channel.allowlist`)).body.entries.at(-1);
    assert.deepEqual(allow.details, { added: ['6000'], removed: [] });
    // the code is used up
    fake.push({ chat: { id: 6001, type: 'private', first_name: 'Mallory' }, text: body.code });
    const answered = fake.calls.filter((c) => c.method === 'sendMessage').length;
    fake.push({ text: '/status', entities: [{ type: 'bot_command', offset: 0, length: 7 }] });
    await fake.waitFor((calls) => calls.filter((c) => c.method === 'sendMessage').length > answered);
    assert.ok(!fake.calls.some((c) => String(c.params.chat_id) === '6001'));
  });

  await t.test('a photo is saved to media and reaches the agent as an attachment', async () => {
    const bytes = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    fake.addFile('ph-1', bytes, 'photos/file_1.jpg');
    const before = invocations().length;
    fake.push({ photo: [{ file_id: 'ph-1', file_unique_id: 'u1', width: 1, height: 1, file_size: bytes.length }], caption: 'what is this scenario:text' });
    await until(() => invocations().length > before, 'the run with the photo');
    const prompt = invocations().at(-1)!.prompt;
    assert.match(prompt, /what is this scenario:text/);
    const saved = readdirSync(join(server.home, 'media')).find((f) => f.includes('photo'));
    assert.ok(saved, 'the photo is in the media directory');
    assert.ok(prompt.includes(saved!), 'the prompt names the saved file');
    assert.deepEqual(readFileSync(join(server.home, 'media', saved!)), bytes);
  });

  await t.test('a voice note is saved, transcribed offline with no settings and reaches the agent as text and attachment', async () => {
    const note = encode(speak('remind me at noon'), 'ogg');
    fake.addFile('vo-1', note, 'voice/file_2.oga');
    const before = invocations().length;
    fake.push({ voice: { file_id: 'vo-1', file_unique_id: 'u2', duration: 2, mime_type: 'audio/ogg', file_size: note.length } });
    await until(() => invocations().length > before, 'the run of the voice note');
    const prompt = invocations().at(-1)!.prompt;
    assert.match(prompt, /^remind me at noon\n/);
    const saved = readdirSync(join(server.home, 'media')).find((f) => /voice-\d+\.ogg/.test(f));
    assert.ok(saved && prompt.includes(saved), 'the prompt names the saved voice note');
  });

  await t.test('toolStatus: one status message, edited at most every 2 s as tool steps happen, deleted before the answer', async () => {
    const TOOL_ANSWER = 'The tool finished. Its output was: hello-from-tool';
    const answered = () => fake.calls.filter((c) => c.method === 'sendMessage' && c.params.text === TOOL_ANSWER).length;
    // off by default: a run with a tool step sends the answer only
    let from = fake.calls.length;
    fake.push({ text: 'quietly scenario:tool' });
    await until(() => answered() === 1, 'the answer of the quiet tool run');
    const quiet = fake.calls.slice(from);
    assert.ok(!quiet.some((c) => c.method === 'editMessageText' || c.method === 'deleteMessage' || String(c.params.text).startsWith('Working')), 'no status message');

    server.app.services.settings.update({ channels: { telegram: { toolStatus: true } } });
    try {
      from = fake.calls.length;
      // lines 400 ms apart: the step starts about 3 s in, ends about 2 s later, the answer 4 s after that
      fake.push({ text: 'with status scenario:tool delay:400' });
      await until(() => answered() === 2, 'the answer of the tool run', 30_000);
      const calls = fake.calls.slice(from).filter((c) => /^(sendMessage|editMessageText|deleteMessage)$/.test(c.method));
      const [status, ...rest] = calls;
      assert.equal(status!.method, 'sendMessage');
      assert.match(String(status!.params.text), /^Working…\n⏳ Bash/);
      assert.equal(status!.params.parse_mode, undefined, 'plain text');
      const edits = rest.filter((c) => c.method === 'editMessageText');
      assert.ok(edits.length >= 1, 'the message was edited as the step went on');
      const remove = rest.findIndex((c) => c.method === 'deleteMessage');
      const answer = rest.findIndex((c) => c.method === 'sendMessage');
      assert.ok(remove >= 0 && remove < answer, 'the status message is deleted before the answer is sent');
      assert.equal(answer, rest.length - 1);
      const ids = new Set([...edits, rest[remove]!].map((c) => c.params.message_id));
      assert.equal(ids.size, 1, 'every edit and the delete are of one message');
      assert.equal(edits.at(-1)!.params.text, 'Working…\n✓ Bash: echo hello-from-tool');
      const times = [status!, ...edits].map((c) => c.at);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 1900, `updates ${times[i]! - times[i - 1]!} ms apart`);
    } finally {
      server.app.services.settings.update({ channels: { telegram: { toolStatus: false } } });
    }
  });

  await t.test('forwardReplies: an answer to a web run goes to the last chat', async () => {
    server.app.services.settings.update({ channels: { telegram: { forwardReplies: true } } });
    try {
      const sends = fake.calls.filter((c) => c.method === 'sendMessage').length;
      const answer = await postNdjson(`${server.url}/api/message`, { prompt: 'from the web scenario:text' });
      const lines = await answer.done;
      assert.equal(lines.at(-1).status, 'ok');
      await fake.waitFor((calls) => calls.filter((c) => c.method === 'sendMessage').length > sends);
      const forwarded = fake.calls.filter((c) => c.method === 'sendMessage').at(-1)!;
      assert.deepEqual([String(forwarded.params.chat_id), forwarded.params.text], ['4242', ANSWER]);
    } finally {
      server.app.services.settings.update({ channels: { telegram: { forwardReplies: false } } });
    }
  });

  await t.test('outbound: text as Telegram HTML, files from the working directory, the message id answered', async () => {
    const text = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', text: '**Done** with `x < y`', target: '4242' });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    const sent = fake.calls.filter((c) => c.method === 'sendMessage').at(-1)!;
    assert.equal(sent.params.text, '<b>Done</b> with <code>x &lt; y</code>');
    assert.match(text.body.messageId, /^\d+$/);
    assert.deepEqual(text.body.messageIds, [text.body.messageId]);

    writeFileSync(join(workDir, 'report.txt'), 'the report');
    const doc = await sendJson(`${server.url}/api/chatappa/send`, 'POST', { type: 'document', file: 'report.txt', caption: 'here', target: '4242' });
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    const call = fake.calls.filter((c) => c.method === 'sendDocument').at(-1)!;
    assert.equal(call.files.document!.bytes.toString(), 'the report');
    assert.equal(call.params.caption, 'here');
    assert.equal(doc.body.channel, 'telegram');
  });

  await t.test('outbound is refused for chats off the allowlist and files outside the two directories', async () => {
    const stranger = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', text: 'hi', target: '5555' });
    assert.deepEqual([stranger.status, stranger.body.error], [403, 'TARGET_NOT_ALLOWED']);
    mkdirSync(join(workDir, 'links'), { recursive: true });
    symlinkSync(join(server.home, 'svc.db'), join(workDir, 'links', 'db'));
    symlinkSync('/etc', join(workDir, 'links', 'etc'));
    for (const [file, status] of [
      ['../../etc/passwd', 403],
      ['/etc/hostname', 403],
      ['links/db', 403],
      ['links/etc/hostname', 403],
      [join(server.home, 'token'), 403],
      ['missing.txt', 404],
      ['links', 400],
    ] as const) {
      const answer = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', type: 'document', file, target: '4242' });
      assert.equal(answer.status, status, `${file}: ${JSON.stringify(answer.body)}`);
    }
    const bad = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', text: 'x', target: '42; DROP' });
    assert.equal(bad.status, 400);
    const refused = (await getJson(`${server.url}/api/security-audit/entries?action=channel.send&outcome=refused`)).body.entries;
    assert.ok(refused.some((e: { target: string }) => e.target === 'telegram:5555'));
  });

  await t.test('a 429 with retry_after is waited out and the send goes through', async () => {
    fake.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
    const started = Date.now();
    const answer = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', text: 'after the wait', target: '4242' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const failed = fake.calls.filter((c) => c.method === 'sendMessage:failed').at(-1)!;
    const retried = fake.calls.filter((c) => c.method === 'sendMessage').at(-1)!;
    assert.equal(retried.params.text, 'after the wait');
    assert.ok(retried.at - failed.at >= 1000, `waited ${retried.at - failed.at} ms`);
    assert.ok(Date.now() - started < 10_000);
  });

  await t.test('a token revoked while polling: disconnected, with the reason, announced', async () => {
    const events = await openSse(`${server.url}/api/events`);
    try {
      fake.revoke();
      const event = await until(() => events.messages.find((m) => m.data.event === 'channel_disconnected')?.data, 'channel_disconnected');
      assert.equal(event.channel, 'telegram');
      assert.match(event.reason, /Unauthorized|401/);
      const tg = (await getJson(`${server.url}/api/channels`)).body.channels[0];
      assert.equal(tg.connected, false);
      const refused = await sendJson(`${server.url}/api/channel/send`, 'POST', { channel: 'telegram', text: 'x', target: '4242' });
      assert.deepEqual([refused.status, refused.body.error], [503, 'CHANNEL_NOT_CONNECTED']);
    } finally {
      events.close();
    }
  });

  await t.test('the bot token never appears in a GET, the audit log, a log line or a trace', async () => {
    const gets = ['/api/settings', '/api/channels', '/api/security-audit/entries?limit=1000', '/api/runtime', '/api/chat-sessions'];
    for (const path of gets) {
      const { body } = await getJson(`${server.url}${path}`);
      assert.ok(!JSON.stringify(body).includes(fake.token), `${path} leaks the token`);
    }
    assert.equal((await getJson(`${server.url}/api/settings`)).body.channels.telegram.botToken, '***');
    for (const file of readdirSync(join(server.home, 'traces'))) assert.ok(!readFileSync(join(server.home, 'traces', file), 'utf8').includes(fake.token));
    // a wrong token: the error is shown, the token is not
    server.app.services.settings.update({ channels: { telegram: { botToken: `${fake.token}x` } } });
    const failed = await until(async () => {
      const tg = (await getJson(`${server.url}/api/channels`)).body.channels[0];
      return !tg.connected && tg.lastError ? tg : undefined;
    }, 'the failed reconnect');
    assert.match(failed.lastError, /Unauthorized|401/);
    assert.ok(!JSON.stringify(failed).includes(fake.token));
    assert.ok(!errors.join('\n').includes(fake.token), 'no log line holds the token');
    assert.ok(!JSON.stringify((await getJson(`${server.url}/api/security-audit/entries?limit=1000`)).body).includes(fake.token));
  });
});

test('a Bot API that stops answering does not hold up the server shutdown', { timeout: 60_000 }, async (t) => {
  const fake = await startFakeTelegram();
  t.after(() => fake.close());
  const server = await startAgentServer();
  server.app.services.settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
  await until(async () => (await getJson(`${server.url}/api/channels`)).body.channels[0].connected || undefined, 'telegram to connect');
  fake.hang();
  const started = Date.now();
  const closed = await Promise.race([server.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 15_000).unref())]);
  assert.ok(closed, 'the server closed');
  assert.ok(Date.now() - started < 10_000, `closing took ${Date.now() - started} ms`);
});
