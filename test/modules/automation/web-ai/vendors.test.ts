// The built-in profiles (ChatGPT, Gemini, Claude, Grok) against fake sites with the real sites' roles and
// structure, driven through the real browser server and headless Chromium: the answer streams in chunks
// (polls show it growing while the stop button shows), completes, and its code blocks come back exactly;
// files are attached the site's way; a login wall or a captcha is a 409 and never worked around.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startHarness, type Harness } from '../../../fixtures/browser/harness.ts';
import { CODE_BLOCKS, FAKE_SITE_STABLE_MS, profileFileFor, startChatSite, type ChatSite, type Vendor } from '../../../fixtures/web-ai/chat-sites.ts';
import { webAiClient, type WebAiApi } from '../../../../src/modules/automation/web-ai/index.ts';
import type { Answer } from '../../../../src/modules/automation/web-ai/types.ts';

const VENDORS = ['chatgpt', 'gemini', 'claude', 'grok'] as const;

let h: Harness;
let api: WebAiApi;
const sites = {} as Record<(typeof VENDORS)[number], ChatSite>;

/** Poll (without waiting server-side) until `ok` holds; each poll is a round trip to the page. */
async function pollUntil(sessionId: string, ok: (a: Answer) => boolean, what: string): Promise<Answer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const a = await api.poll({ sessionId });
    if (ok(a)) return a;
    assert.ok(Date.now() < deadline, `${what}: last poll ${JSON.stringify(a)}`);
  }
}

describe('web-ai: the built-in profiles on their fake sites', { timeout: 300_000 }, () => {
  before(async () => {
    h = await startHarness();
    for (const v of VENDORS) sites[v] = await startChatSite(v as Vendor);
    // the built-in profiles on the fake sites; only stableMs is set (see FAKE_SITE_STABLE_MS)
    writeFileSync(join(h.home, 'web-ai-profiles.json'), profileFileFor(sites, Object.fromEntries(VENDORS.map((v) => [v, { stableMs: FAKE_SITE_STABLE_MS }]))));
    api = webAiClient((method, path, body, timeoutMs) => h.client.request(method, path, body, timeoutMs));
  });
  after(async () => {
    for (const s of Object.values(sites)) await s?.close();
    await h?.close();
  });

  for (const vendor of VENDORS) {
    test(`${vendor}: send, the answer grows while the stop button shows, completes, its code blocks come back exactly`, async () => {
      const site = sites[vendor];
      site.hold(4); // "You asked: Write a greeting program" is 4 chunks; then the stream waits
      const sent = await api.send({ vendor, prompt: 'Write a greeting program' });
      assert.match(sent.sessionId, /^wa_/);
      assert.equal(sent.vendor, vendor);
      assert.equal(sent.url, site.url);
      const partial = await pollUntil(sent.sessionId, (a) => a.text === 'You asked: Write a greeting program', 'the first paragraph arrives');
      assert.equal(partial.state, 'streaming');
      assert.equal(partial.complete, false);
      const status = await api.status(vendor);
      assert.equal(status.writing, true, 'the stop button shows while the stream is held');
      await rejectsWith(api.send({ vendor, prompt: 'another' }), 409, 'WEB_AI_BUSY', new RegExp(sent.sessionId));
      site.release();
      const done = await api.poll({ sessionId: sent.sessionId, timeout: 60_000 });
      assert.equal(done.complete, true, JSON.stringify(done));
      assert.equal(done.state, 'complete');
      assert.ok(done.text.startsWith(partial.text) && done.text.length > partial.text.length + 100, done.text);
      assert.match(done.text, /Save this as hello\.py:/);
      assert.match(done.text, /print\(greet\("world"\)\)/);
      const extracted = await api.extract({ sessionId: sent.sessionId });
      assert.deepEqual(extracted.blocks, CODE_BLOCKS);
      assert.equal(extracted.sessionId, sent.sessionId);
      assert.deepEqual(site.received, [{ prompt: 'Write a greeting program', files: [] }]);
    });
  }

  test('a second prompt continues the conversation; each session\'s answer is its own message', async () => {
    const site = sites.chatgpt;
    const first = (await api.sessions()).sessions.find((s) => s.vendor === 'chatgpt')!;
    site.answer = [{ type: 'p', text: 'Plain words, no code.' }];
    try {
      const second = await api.query({ vendor: 'chatgpt', prompt: 'And in words?' });
      assert.equal(second.complete, true);
      assert.equal(second.text, 'You asked: And in words?\n\nPlain words, no code.');
      assert.equal(second.tab, first.tab, 'the same tab and conversation');
      assert.deepEqual((await api.extract({ sessionId: second.sessionId })).blocks, []);
      assert.deepEqual((await api.extract({ sessionId: first.sessionId })).blocks, CODE_BLOCKS, 'the first answer still reads as before');
      // code-extract by tab reads the latest answer on the page
      assert.deepEqual(await api.extract({ tab: first.tab }), { vendor: 'chatgpt', tab: first.tab, blocks: [] });
      const sessions = (await api.sessions()).sessions;
      assert.equal(sessions[0]!.sessionId, second.sessionId, 'newest first');
      assert.equal(sessions[0]!.prompt, 'And in words?');
    } finally {
      site.answer = (await import('../../../fixtures/web-ai/chat-sites.ts')).CODE_ANSWER;
    }
  });

  test('newChat opens the profile\'s URL again: the answer is the only message', async () => {
    const a = await api.query({ vendor: 'claude', prompt: 'Fresh start', newChat: true });
    assert.match(a.text, /^You asked: Fresh start/);
    const status = await api.status('claude');
    assert.equal(status.checks.find((c) => c.check === 'answers')!.detail, '1 assistant message on the page');
  });

  for (const vendor of VENDORS) {
    test(`${vendor}: files are attached the site's way`, async () => {
      const file = join(h.home, `notes-${vendor}.txt`);
      writeFileSync(file, 'some notes');
      const a = await api.query({ vendor, prompt: 'Summarize the file', files: [file] });
      assert.deepEqual(sites[vendor].received.at(-1), { prompt: 'Summarize the file', files: [`notes-${vendor}.txt`] });
      assert.match(a.text, new RegExp(`^You asked: Summarize the file\\n\\nFiles: notes-${vendor}\\.txt`));
    });
  }

  test('stop presses the stop button; the session says stopped', async () => {
    const site = sites.gemini;
    site.hold(2);
    try {
      const sent = await api.send({ vendor: 'gemini', prompt: 'Write a long essay' });
      await pollUntil(sent.sessionId, (a) => a.text.length > 0, 'some text');
      const stopped = await api.stop({ vendor: 'gemini' });
      assert.deepEqual(stopped, { vendor: 'gemini', tab: sent.tab, sessionId: sent.sessionId, stopped: true });
      const after = await api.poll({ sessionId: sent.sessionId });
      assert.equal(after.state, 'stopped');
      assert.equal(after.complete, false);
      assert.equal((await api.status('gemini')).writing, false);
      assert.equal((await api.stop({ vendor: 'gemini' })).stopped, false, 'nothing left to stop');
    } finally {
      site.release();
    }
  });

  for (const vendor of VENDORS) {
    test(`${vendor}: a login wall is a 409 NEEDS_LOGIN telling the user to log in headed`, async () => {
      const site = sites[vendor];
      site.mode = 'login';
      const before = site.received.length;
      try {
        const err = await rejectsWith(api.send({ vendor, prompt: 'hi', newChat: true }), 409, 'NEEDS_LOGIN', /never handles your credentials/);
        assert.match(err.message, /headed/);
        const status = await api.status(vendor);
        assert.equal(status.state, 'needs_login');
        assert.equal(status.checks.find((c) => c.check === 'login')!.found, true);
        assert.equal(site.received.length, before, 'nothing was sent');
      } finally {
        site.mode = 'chat';
      }
    });
  }

  test('a captcha is a 409 CAPTCHA, and is not touched', async () => {
    const site = sites.grok;
    site.mode = 'captcha';
    try {
      const err = await rejectsWith(api.query({ vendor: 'grok', prompt: 'hi', newChat: true }), 409, 'CAPTCHA', /does not solve these/);
      assert.match(err.message, /title "Just a moment\.\.\."/);
      assert.equal((await api.status('grok')).state, 'captcha');
    } finally {
      site.mode = 'chat';
    }
    // back to normal once the check is gone
    assert.equal((await api.query({ vendor: 'grok', prompt: 'again', newChat: true })).complete, true);
  });
});
