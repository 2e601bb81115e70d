import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownToTelegramHtml, splitMarkdown } from '../../../src/modules/channels/format.ts';
import { Pairing, MAX_GUESSES, PAIRING_TTL_MS } from '../../../src/modules/channels/pairing.ts';
import { withRetryAfter } from '../../../src/modules/channels/retry.ts';
import { RateLimited } from '../../../src/modules/channels/adapter.ts';

test('Markdown becomes Telegram HTML, escaped, code kept verbatim', () => {
  assert.equal(markdownToTelegramHtml('**bold** and *it* and ~~gone~~ <tag> & `a<b>`'), '<b>bold</b> and <i>it</i> and <s>gone</s> &lt;tag&gt; &amp; <code>a&lt;b&gt;</code>');
  assert.equal(markdownToTelegramHtml('# Title\n```ts\nconst x = 1 < 2;\n```\nafter'), '<b>Title</b>\n<pre><code class="language-ts">const x = 1 &lt; 2;</code></pre>\nafter');
  assert.equal(markdownToTelegramHtml('[site](https://example.com/a?b=1&c=2)'), '<a href="https://example.com/a?b=1&amp;c=2">site</a>');
  assert.equal(markdownToTelegramHtml('snake_case_name stays'), 'snake_case_name stays');
});

test('long answers are cut under the limit on line breaks, code fences closed and reopened', () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i} ${'x'.repeat(30)}`);
  const pieces = splitMarkdown(lines.join('\n'), 200);
  assert.ok(pieces.every((p) => p.length <= 200));
  assert.equal(pieces.join('\n'), lines.join('\n'));
  const code = `intro\n\`\`\`js\n${lines.join('\n')}\n\`\`\`\nend`;
  const cut = splitMarkdown(code, 300);
  assert.ok(cut.length > 1 && cut.every((p) => p.length <= 300));
  for (const piece of cut) assert.equal((piece.match(/^```/gm) ?? []).length % 2, 0, `balanced fences in:\n${piece}`);
  assert.ok(cut[1]!.startsWith('```js\n'));
  assert.deepEqual(splitMarkdown('x'.repeat(250), 100).map((p) => p.length), [100, 100, 50]);
});

test('pairing codes are one use, expire, and die after too many wrong guesses', () => {
  let now = 0;
  const pairing = new Pairing(() => now);
  const { code } = pairing.issue('telegram');
  assert.equal(pairing.redeem('discord', code), false);
  assert.equal(pairing.redeem('telegram', `/pair ${code}`), true);
  assert.equal(pairing.redeem('telegram', code), false, 'used up');
  const second = pairing.issue('telegram').code;
  now = PAIRING_TTL_MS;
  assert.equal(pairing.redeem('telegram', second), false, 'expired');
  const third = pairing.issue('telegram').code;
  const wrong = third === '000000' ? '000001' : '000000';
  for (let i = 0; i < MAX_GUESSES; i++) pairing.redeem('telegram', wrong);
  assert.equal(pairing.redeem('telegram', third), false, 'voided by guessing');
  assert.equal(pairing.pending('telegram'), undefined);
});

test('retry_after is honoured within the bounds', async () => {
  let calls = 0;
  const result = await withRetryAfter(async () => {
    if (++calls < 3) throw new RateLimited(5, 'slow down');
    return 'sent';
  });
  assert.deepEqual([result, calls], ['sent', 3]);
  await assert.rejects(withRetryAfter(async () => { throw new RateLimited(50_000, 'long'); }, { attempts: 4, maxWaitMs: 30_000, totalWaitMs: 20_000 }), /long/);
  await assert.rejects(withRetryAfter(async () => { throw new Error('other'); }), /other/);
});
