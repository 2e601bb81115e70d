// Profiles as data, on the real browser server: a page the profile does not fit is a clear error naming
// what was not found; the user's profile file changes that selector and the same page works; an unknown
// site that uses ARIA roles is served by a profile that only gives its URL; a bad file is a 400 naming the field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectsWith, startHarness, type Harness } from '../../../fixtures/browser/harness.ts';
import { profileFileFor, startChatSite, type ChatSite } from '../../../fixtures/web-ai/chat-sites.ts';
import { webAiClient, type WebAiApi } from '../../../../src/modules/automation/web-ai/index.ts';

let h: Harness;
let api: WebAiApi;
let chatgpt: ChatSite;
let acme: ChatSite;
const profiles = () => join(h.home, 'web-ai-profiles.json');

describe('web-ai: profiles as data', { timeout: 180_000 }, () => {
  before(async () => {
    h = await startHarness();
    chatgpt = await startChatSite('chatgpt');
    acme = await startChatSite('acme');
    api = webAiClient((method, path, body, timeoutMs) => h.client.request(method, path, body, timeoutMs));
  });
  after(async () => {
    await chatgpt?.close();
    await acme?.close();
    await h?.close();
  });

  test('a page that does not fit its profile: 502 naming what was not found; overriding that selector fixes it', async () => {
    chatgpt.mode = 'renamed'; // the composer is #prompt-input, not #prompt-textarea
    writeFileSync(profiles(), profileFileFor({ chatgpt }, { chatgpt: { readyTimeoutMs: 1000 } }));
    const status = await api.status('chatgpt');
    assert.equal(status.state, 'unknown_layout');
    const composer = status.checks.find((c) => c.check === 'composer')!;
    assert.equal(composer.found, false);
    assert.deepEqual(composer.tried, ['"#prompt-textarea[contenteditable=\\"true\\"]"', 'textbox /ask anything|message chatgpt/i']);
    assert.equal(status.checks.find((c) => c.check === 'send')!.found, true, 'the rest of the page is as the profile says');
    const err = await rejectsWith(api.send({ vendor: 'chatgpt', prompt: 'hello' }), 502, 'WEB_AI_LAYOUT_UNKNOWN');
    assert.match(err.message, /no composer found \(tried "#prompt-textarea\[contenteditable=\\"true\\"\]", textbox \/ask anything\|message chatgpt\/i\)/);
    assert.match(err.message, /override profiles\.chatgpt\.composer in .*web-ai-profiles\.json/);
    assert.deepEqual(chatgpt.received, []);

    writeFileSync(profiles(), profileFileFor({ chatgpt }, { chatgpt: { composer: '#prompt-input' } }));
    assert.equal((await api.status('chatgpt')).state, 'ready');
    const answer = await api.query({ vendor: 'chatgpt', prompt: 'hello' });
    assert.equal(answer.complete, true);
    assert.deepEqual(chatgpt.received, [{ prompt: 'hello', files: [] }]);
    chatgpt.mode = 'chat';
  });

  test('an unknown site that follows ARIA: a profile with only its URL (extends generic) works', async () => {
    writeFileSync(profiles(), profileFileFor({ acme }));
    const listed = await api.profiles();
    assert.deepEqual(listed.profiles.find((p) => p.id === 'acme'), { id: 'acme', label: 'Acme Chat', url: acme.url, source: 'user' });
    assert.equal(listed.file, profiles());
    const code = await api.code({ vendor: 'acme', prompt: 'A greeting, please' });
    assert.equal(code.complete, true);
    assert.match(code.text, /^You asked: A greeting, please/);
    assert.deepEqual(
      code.blocks.map((b) => [b.language, b.filename]),
      [['python', 'hello.py'], ['javascript', 'src/util.js'], ['bash', undefined]],
    );
    // attaching needs a file input, which this site has none of: said before anything is typed
    const file = join(h.home, 'x.txt');
    writeFileSync(file, 'x');
    await rejectsWith(api.send({ vendor: 'acme', prompt: 'x', files: [file] }), 502, 'WEB_AI_SEND_FAILED', /no file input/);
  });

  test('the generic profile needs a URL to open, and serves code-extract on any tab', async () => {
    writeFileSync(profiles(), profileFileFor({ acme }));
    await rejectsWith(api.send({ vendor: 'generic', prompt: 'hi' }), 400, 'WEB_AI_NO_URL', /no url to open/);
    const tab = (await api.sessions()).sessions.find((s) => s.vendor === 'acme')!.tab;
    const blocks = await api.extract({ tab, vendor: 'generic' });
    assert.equal(blocks.vendor, 'generic');
    assert.equal(blocks.blocks.length, 3);
    // once that tab has left the site, it is no longer the vendor's tab, and reading does not bring it back
    await h.client.act({ action: 'open', url: chatgpt.url, tab });
    await rejectsWith(api.extract({ vendor: 'acme' }), 404, 'WEB_AI_NO_TAB', /No Acme Chat tab is open/);
    assert.equal((await h.client.tabs()).tabs.find((t) => t.id === tab)!.url, chatgpt.url);
  });

  test('a bad profile file: 400 naming each bad field; no file: the built-ins', async () => {
    writeFileSync(profiles(), JSON.stringify({ profiles: { chatgpt: { composer: 42, stableMs: -5 } } }));
    const err = await rejectsWith(api.profiles(), 400, 'WEB_AI_PROFILE_INVALID');
    assert.match(err.message, /profiles\.chatgpt\.composer: expected a CSS selector/);
    assert.match(err.message, /profiles\.chatgpt\.stableMs: Too small/);
    await rejectsWith(api.send({ vendor: 'chatgpt', prompt: 'hi' }), 400, 'WEB_AI_PROFILE_INVALID');
    writeFileSync(profiles(), JSON.stringify({ profiles: { acme: { extends: 'nope' } } }));
    await rejectsWith(api.status('acme'), 400, 'WEB_AI_PROFILE_INVALID', /profiles\.acme\.extends: there is no profile 'nope'/);
    writeFileSync(profiles(), '{ "profiles": ');
    await rejectsWith(api.profiles(), 400, 'WEB_AI_PROFILE_INVALID', /is not valid JSON/);
    rmSync(profiles());
    assert.deepEqual((await api.profiles()).profiles.map((p) => [p.id, p.source, p.url]), [
      ['generic', 'builtin', undefined],
      ['chatgpt', 'builtin', 'https://chatgpt.com/'],
      ['gemini', 'builtin', 'https://gemini.google.com/app'],
      ['claude', 'builtin', 'https://claude.ai/new'],
      ['grok', 'builtin', 'https://grok.com/'],
    ]);
  });

  test('bad requests: unknown vendor 404, malformed input 400, unknown session 404', async () => {
    await rejectsWith(api.send({ vendor: 'nosuch', prompt: 'hi' }), 404, 'WEB_AI_UNKNOWN_VENDOR', /Known: generic, chatgpt, gemini, claude, grok/);
    await rejectsWith(api.send({ vendor: 'Bad Vendor', prompt: 'hi' }), 400, 'VALIDATION_FAILED', /vendor/);
    await rejectsWith(api.send({ vendor: 'chatgpt', prompt: '' }), 400, 'VALIDATION_FAILED', /prompt is empty/);
    await rejectsWith(api.send({ vendor: 'chatgpt', prompt: 'x', files: ['relative.txt'] }), 400, 'VALIDATION_FAILED', /absolute paths/);
    await rejectsWith(api.code({ vendor: 'chatgpt', prompt: 'x', saveTo: 'out' }), 400, 'VALIDATION_FAILED', /core server/);
    await rejectsWith(api.poll({ sessionId: 'wa_doesnotexist' }), 404, 'WEB_AI_SESSION_NOT_FOUND');
    await rejectsWith(api.extract({ sessionId: 'wa_abcd', tab: 't1' }), 400, 'VALIDATION_FAILED', /not both/);
  });
});
