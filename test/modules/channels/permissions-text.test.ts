// The pure pieces of a permission prompt in a chat (approvals.ts): button data within Telegram's 64
// bytes and read back, the decision each button makes, the text escaped for each channel and fitted
// under its limit whatever the size of the change, and the outcome line for each way a request ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buttonData, decisionOf, expiryLine, FORMATS, outcomeLine, pressedChoice, promptButtons, promptText } from '../../../src/modules/channels/approvals.ts';
import { summarize } from '../../../src/modules/permissions/index.ts';
import { newId } from '../../../src/core/ids.ts';
import type { Decider, PermissionRequest } from '../../../src/protocol/permissions.ts';

const NOW = Date.UTC(2026, 10, 26, 21, 0);

function request(tool: string, input: Record<string, unknown>, extra: Partial<PermissionRequest> = {}): PermissionRequest {
  return { id: newId('perm'), sessionId: 'ses_1', runId: 'tr_1', provider: 'claude', tool, input, summary: summarize(tool, input), createdAt: NOW, expiresAt: NOW + 600_000, status: 'pending', ...extra };
}

test('button data: short, read back to the request and the answer, anything else is not an answer', () => {
  const id = newId('perm');
  for (const choice of ['once', 'session', 'deny'] as const) {
    const data = buttonData(id, choice);
    assert.ok(Buffer.byteLength(data) <= 64);
    assert.deepEqual(pressedChoice(data), { requestId: id, choice });
  }
  assert.equal(pressedChoice('perm:x:perm_abc'), undefined);
  assert.equal(pressedChoice('other:o:perm_abc'), undefined);
  assert.equal(pressedChoice('perm:o:'), undefined);
  assert.throws(() => buttonData('x'.repeat(60), 'once'), /longer than 64 bytes/);
  assert.deepEqual(promptButtons(id).map((row) => row.map((b) => [b.label, b.danger])), [[['Allow once', false], ['Allow for this session', false]], [['Deny', true]]]);
});

test('each button\'s decision; a deny names the channel and who pressed', () => {
  assert.deepEqual(decisionOf('once', 'telegram', '@ann'), { decision: 'allow' });
  assert.deepEqual(decisionOf('session', 'discord', '@ann'), { decision: 'allow', remember: 'session' });
  assert.deepEqual(decisionOf('deny', 'discord', '@bob'), { decision: 'deny', reason: 'Denied from Discord by @bob.' });
});

test('Telegram: HTML escaped everywhere the agent wrote; Discord: Markdown escaped, fences broken up', () => {
  const r = request('Write', { file_path: '/tmp/<b>_x.md', content: '</pre><a href="x">&\n```' });
  const tg = promptText(r, FORMATS.telegram, 4096, expiryLine(r, FORMATS.telegram, NOW));
  assert.equal(tg, [
    '<b>🔐 claude asks to use Write</b>',
    'Write &lt;b&gt;_x.md',
    'File: /tmp/&lt;b&gt;_x.md',
    '<pre>+&lt;/pre&gt;&lt;a href="x"&gt;&amp;\n+```</pre>',
    'Expires in 10 min (21:10 UTC).',
  ].join('\n'));
  const dc = promptText(r, FORMATS.discord, 2000, 'done');
  assert.equal(dc, ['**🔐 claude asks to use Write**', 'Write <b>\\_x.md'.replace('<', '\\<').replace('>', '\\>'), 'File: /tmp/\\<b\\>\\_x.md', '```\n+</pre><a href="x">&\n+``\u200b`\n```', 'done'].join('\n'));
});

test('a change of any size fits the channel\'s limit, saying how much was left out', () => {
  const huge = request('Bash', { command: `echo ${'&'.repeat(20_000)}` });
  for (const [name, limit] of [['telegram', 4096], ['discord', 2000]] as const) {
    const format = FORMATS[name];
    const text = promptText(huge, format, limit, expiryLine(huge, format, NOW));
    // Telegram counts the text as shown (an entity is one character), Discord the Markdown as sent
    const counted = name === 'telegram' ? text.replace(/<[^>]+>/g, '').replace(/&amp;/g, '&') : text;
    assert.ok(counted.length <= limit, `${name}: ${counted.length}`);
    // the frame around the change is measured as sent, which for Telegram's HTML errs on the short side
    assert.ok(counted.length > limit * 0.75, `${name} uses most of the room it has: ${counted.length}`);
    assert.match(text, /… \(\d+ more characters\)/);
    assert.ok(text.endsWith('.'), 'the expiry is kept');
  }
});

test('the outcome line says what happened, by whom, for every way a request ends', () => {
  const decided = (status: 'allowed' | 'denied', decidedBy: Decider, reason?: string) => request('Bash', { command: 'ls' }, { status, decidedBy, ...(reason ? { reason } : {}) });
  const tg = FORMATS.telegram;
  const cases: [PermissionRequest, Parameters<typeof outcomeLine>[1], string][] = [
    [decided('allowed', 'telegram'), { who: '@ann', choice: 'once' }, '✅ Allowed by @ann from Telegram.'],
    [decided('allowed', 'discord'), { who: '@ann', choice: 'session' }, '✅ Allowed for this session by @ann from Discord.'],
    [decided('denied', 'telegram', 'Denied from Telegram by @ann.'), { who: '@ann', choice: 'deny' }, '⛔ Denied by @ann from Telegram.'],
    [decided('allowed', 'person'), undefined, '✅ Allowed in svc.'],
    [decided('denied', 'person', 'use <pnpm>'), undefined, '⛔ Denied in svc: use &lt;pnpm&gt;.'],
    [decided('denied', 'person', 'Not now!'), undefined, '⛔ Denied in svc: Not now!'],
    [decided('allowed', 'push'), undefined, '✅ Allowed from a notification.'],
    [decided('denied', 'timeout', 'Nobody answered…'), undefined, '⛔ Denied because nobody answered in time.'],
    [decided('denied', 'run-ended'), undefined, '⛔ Denied because the run ended first.'],
    [decided('denied', 'restart'), undefined, '⛔ Denied because svc restarted.'],
  ];
  for (const [r, pressed, line] of cases) assert.equal(outcomeLine(r, pressed, tg), line);
  assert.equal(outcomeLine(decided('allowed', 'discord'), { who: '@a_b', choice: 'once' }, FORMATS.discord), '✅ Allowed by @a\\_b from Discord.');
});
