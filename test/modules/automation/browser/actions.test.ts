// Every browser action through the browser server's HTTP API, against real headless Chromium and the
// fixture site.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { rejectsWith, refOf, startHarness, type Harness } from '../../../fixtures/browser/harness.ts';

let h: Harness;

const pngSize = (buf: Buffer) => ({ width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) });

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('browser actions', { timeout: 180_000 }, () => {
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  const text = async (target: string) => (await h.client.act({ action: 'extract', target, what: 'text' })).value;

  test('open: navigates, reports final URL, title and status; bad URLs and dead hosts are clear errors', async () => {
    const r = await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    assert.equal(r.url, `${h.site.url}/form`);
    assert.equal(r.title, 'Form page');
    assert.equal(r.status, 200);
    assert.match(r.tab, /^t\d+$/);
    const missing = await h.client.act({ action: 'open', url: `${h.site.url}/no-such-page` });
    assert.equal(missing.status, 404, 'an HTTP error page is still a page');
    await rejectsWith(h.client.act({ action: 'open', url: `http://127.0.0.1:${await closedPort()}/` }), 502, 'NAVIGATION_FAILED', /ERR_CONNECTION_REFUSED/);
    await rejectsWith(h.client.act({ action: 'open', url: 'file:///etc/passwd' }), 400, 'BAD_URL', /file:/);
  });

  test('screenshot: viewport and full page PNGs land in <home>/media and are named by /media URL', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/tall` });
    const shot = await h.client.act({ action: 'screenshot' });
    assert.match(shot.filename, /^browser-.*\.png$/);
    assert.equal(shot.url, `/media/${shot.filename}`);
    const file = join(h.home, 'media', shot.filename);
    assert.ok(existsSync(file));
    const png = readFileSync(file);
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.equal(shot.bytes, png.length);
    const viewport = pngSize(png);
    assert.ok(viewport.height < 2000, `viewport shot is ${viewport.height}px tall`);
    const full = await h.client.act({ action: 'screenshot', full: true });
    assert.equal(full.fullPage, true);
    const fullSize = pngSize(readFileSync(join(h.home, 'media', full.filename)));
    assert.ok(fullSize.height >= 4000, `full-page shot is ${fullSize.height}px tall`);
    assert.ok(Math.abs(fullSize.width - viewport.width) <= 20, "same width, give or take a scrollbar");
    assert.notEqual(full.filename, shot.filename);
  });

  test('click: by CSS, by XPath (leading / and xpath=), and by snapshot ref', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    await h.client.act({ action: 'click', target: '#inc' });
    assert.equal(await text('#counter'), '1');
    await h.client.act({ action: 'click', target: '//button[@id="inc"]' });
    assert.equal(await text('#counter'), '2');
    await h.client.act({ action: 'click', target: "xpath=//button[text()='Increment']" });
    assert.equal(await text('#counter'), '3');
    const snap = await h.client.snapshot();
    const ref = refOf(snap.text, 'button "Increment"');
    const r = await h.client.act({ action: 'click', target: ref });
    assert.equal(r.clicked, ref);
    assert.equal(await text('#counter'), '4');
  });

  test('click errors: ambiguous, missing, malformed and covered targets are told apart', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    await rejectsWith(h.client.act({ action: 'click', target: '.dup' }), 400, 'SELECTOR_AMBIGUOUS', /matches 2 elements/);
    await rejectsWith(h.client.act({ action: 'click', target: '#nope', timeout: 300 }), 404, 'ELEMENT_NOT_FOUND', /#nope/);
    // A malformed selector fails at its first query, however long the timeout; the page makes that query, so
    // on a loaded machine a short timeout could run out first and read TIMEOUT.
    await rejectsWith(h.client.act({ action: 'click', target: 'div[[', timeout: 10_000 }), 400, 'BAD_SELECTOR');
    await rejectsWith(h.client.act({ action: 'click', target: '//div[', timeout: 10_000 }), 400, 'BAD_SELECTOR');
    await h.client.act({ action: 'eval', script: "document.getElementById('overlay').hidden = false" });
    // A covered target is a 504 that says what Playwright was waiting for: what covers it, once its click
    // retries get that far; on a loaded machine it may still be waiting for the element to hold still.
    await rejectsWith(h.client.act({ action: 'click', target: '#covered', timeout: 6000 }), 504, 'TIMEOUT', /intercepts pointer events|visible, enabled and stable/);
    await h.client.act({ action: 'eval', script: "document.getElementById('overlay').hidden = true" });
  });

  test('type: fills inputs (by selector and by ref), submits with Enter, refuses non-fields', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    const r = await h.client.act({ action: 'type', target: '#name', text: 'Ada Lovelace' });
    assert.equal(r.chars, 12);
    await h.client.act({ action: 'click', target: '#agree' });
    await h.client.act({ action: 'click', target: '#send' });
    assert.equal(await text('#out'), 'submitted:Ada Lovelace:true:green');
    const snap = await h.client.snapshot();
    assert.match(snap.text, /textbox "Name" \[ref=e\d+\] = "Ada Lovelace"/);
    assert.match(snap.text, /checkbox "I agree" \[checked\] \[ref=e\d+\]/);
    await h.client.act({ action: 'type', target: refOf(snap.text, 'textbox "Name"'), text: 'Bob', submit: true });
    assert.equal(await text('#out'), 'submitted:Bob:true:green');
    await h.client.act({ action: 'type', target: '#bio', text: 'line one\nline two' });
    assert.equal((await h.client.act({ action: 'eval', script: "document.getElementById('bio').value" })).result, 'line one\nline two');
    await rejectsWith(h.client.act({ action: 'type', target: '#inc', text: 'x', timeout: 500 }), 400, 'NOT_EDITABLE');
  });

  test('extract: text, attr:<name>, html, from one or all matches, by ref too', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    assert.equal(await text('#link'), 'Go elsewhere');
    const attr = await h.client.act({ action: 'extract', target: '#link', what: 'attr:data-x' });
    assert.equal(attr.value, '42');
    assert.equal((await h.client.act({ action: 'extract', target: '#link', what: 'attr:nothing' })).value, null);
    const html = await h.client.act({ action: 'extract', target: '#link', what: 'html' });
    assert.equal(html.value, 'Go <b>elsewhere</b>');
    const all = await h.client.act({ action: 'extract', target: '.items li', what: 'text', all: true });
    assert.deepEqual(all.values, ['One', 'Two', 'Three']);
    assert.equal(all.count, 3);
    const one = await h.client.act({ action: 'extract', target: '.items li', what: 'text' });
    assert.equal(one.value, 'One');
    assert.equal(one.count, 3);
    const none = await h.client.act({ action: 'extract', target: '.nothing', what: 'text', all: true });
    assert.deepEqual(none.values, []);
    await rejectsWith(h.client.act({ action: 'extract', target: '.nothing', what: 'text', timeout: 200 }), 404, 'ELEMENT_NOT_FOUND');
    const snap = await h.client.snapshot();
    const byRef = await h.client.act({ action: 'extract', target: refOf(snap.text, 'link "Go elsewhere"'), what: 'attr:href' });
    assert.equal(byRef.value, '/landing');
  });

  test('eval: expressions, functions, async results as JSON; errors and hangs are bounded', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    assert.equal((await h.client.act({ action: 'eval', script: 'document.title' })).result, 'Form page');
    assert.equal((await h.client.act({ action: 'eval', script: '() => 1 + 2' })).result, 3);
    assert.deepEqual((await h.client.act({ action: 'eval', script: "async () => { await new Promise((r) => setTimeout(r, 10)); return { a: [1, 'x'], u: undefined } }" })).result, { a: [1, 'x'] });
    assert.equal((await h.client.act({ action: 'eval', script: 'undefined' })).result, null);
    // a function that calls itself is an expression, not a function to call
    assert.equal((await h.client.act({ action: 'eval', script: '(() => document.title)()' })).result, 'Form page');
    assert.equal((await h.client.act({ action: 'eval', script: '((x) => x * 2)(21)' })).result, 42);
    assert.equal((await h.client.act({ action: 'eval', script: 'function () { return document.title.length }' })).result, 9);
    assert.equal((await h.client.act({ action: 'eval', script: 'const a = 20; a + 22' })).result, 42);
    await rejectsWith(h.client.act({ action: 'eval', script: "throw new Error('boom')" }), 400, 'EVAL_ERROR', /boom/);
    await rejectsWith(h.client.act({ action: 'eval', script: 'new Promise(() => {})', timeout: 300 }), 504, 'TIMEOUT');
    await rejectsWith(h.client.act({ action: 'eval', script: "'x'.repeat(2000000)" }), 413, 'RESULT_TOO_LARGE');
  });

  test('wait: for a selector, with a timeout', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    await h.client.act({ action: 'eval', script: "setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'late'; document.body.append(d); }, 400)" });
    const r = await h.client.act({ action: 'wait', selector: '#late' });
    assert.equal(r.waited, 'selector');
    assert.ok(r.ms >= 250, `waited ${r.ms} ms`);
    assert.equal(await text('#late'), 'late');
    await rejectsWith(h.client.act({ action: 'wait', selector: '#never', timeout: 300 }), 504, 'TIMEOUT', /300 ms/);
    const hidden = await h.client.act({ action: 'wait', selector: '#hidden', state: 'hidden', timeout: 1000 });
    assert.equal(hidden.waited, 'selector');
  });

  test('wait: for navigation, including one a click already started', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/nav` });
    await h.client.act({ action: 'click', target: '#later' });
    const r = await h.client.act({ action: 'wait', navigation: true, timeout: 5000 });
    assert.equal(r.url, `${h.site.url}/landing?via=later`, 'it waited for the navigation that came 400 ms after the click');
    assert.equal(await text('#where'), 'landing page');

    await h.client.act({ action: 'open', url: `${h.site.url}/nav` });
    await h.client.act({ action: 'click', target: '#now' });
    const r2 = await h.client.act({ action: 'wait', navigation: true, timeout: 5000 });
    assert.equal(r2.url, `${h.site.url}/landing?via=now`);
    await rejectsWith(h.client.act({ action: 'wait', navigation: true, timeout: 300 }), 504, 'TIMEOUT', /navigation/);
  });

  test('wait: for network idle outlasts a slow request', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/slow-idle` });
    await h.client.act({ action: 'click', target: '#load' });
    const r = await h.client.act({ action: 'wait', idle: true, idleMs: 200, timeout: 10_000 });
    assert.equal(r.waited, 'idle');
    assert.ok(r.ms >= 900, `idle after ${r.ms} ms, but /api/slow takes 1200 ms`);
    assert.equal(await text('#out'), 'done', 'the slow response had arrived when the wait returned');
    await h.client.act({ action: 'click', target: '#load' });
    await rejectsWith(h.client.act({ action: 'wait', idle: true, timeout: 300 }), 504, 'TIMEOUT', /api\/slow/);
  });

  test('tabs: list, open, switch, close; actions follow the active tab', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    const first = (await h.client.tabs()).active!;
    const opened = await h.client.openTab({ url: `${h.site.url}/landing` });
    assert.notEqual(opened.tab.id, first);
    assert.equal(opened.tab.active, true);
    assert.equal(opened.tab.title, 'Landing');
    let list = await h.client.tabs();
    assert.equal(list.active, opened.tab.id);
    assert.deepEqual(new Set(list.tabs.map((t) => t.id)), new Set([first, opened.tab.id]));
    assert.equal(await text('h1'), 'Landed', 'actions go to the active tab');
    const sw = await h.client.switchTab(first);
    assert.equal(sw.tab.active, true);
    assert.equal(await text('h1'), 'Sign up');
    assert.equal((await h.client.act({ action: 'extract', target: 'h1', what: 'text', tab: opened.tab.id })).value, 'Landed', 'or to a named tab');
    const closed = await h.client.closeTab(opened.tab.id);
    assert.equal(closed.closed, opened.tab.id);
    list = await h.client.tabs();
    assert.deepEqual(list.tabs.map((t) => t.id), [first]);
    await rejectsWith(h.client.switchTab('t999'), 404, 'TAB_NOT_FOUND', new RegExp(first));
    // Closing the last tab leaves a fresh blank one rather than no browser window at all.
    const last = await h.client.closeTab(first);
    assert.ok(last.active && last.active !== first);
    assert.equal((await h.client.tabs()).tabs.length, 1);
  });

  test('console and network logs: captured per tab, secrets redacted, clearable', async () => {
    const opened = await h.client.act({ action: 'open', url: `${h.site.url}/console` });
    await h.client.act({ action: 'wait', idle: true, idleMs: 100 });
    const con = await h.client.console();
    assert.equal(con.tab, opened.tab);
    assert.ok(con.entries.some((e) => e.type === 'log' && e.text === 'hello from page'), JSON.stringify(con.entries));
    assert.ok(con.entries.some((e) => e.type === 'error' && e.text === 'bad thing happened'));
    const net = await h.client.network();
    const api = net.entries.find((e) => e.url.includes('/api/data'));
    assert.ok(api, JSON.stringify(net.entries));
    assert.equal(api.status, 200);
    assert.equal(api.method, 'GET');
    assert.match(api.url, /token=REDACTED/);
    assert.doesNotMatch(api.url, /s3cret/);
    assert.ok(net.entries.some((e) => e.resourceType === 'document' && e.url.endsWith('/console')));
    await h.client.console({ clear: true });
    assert.equal((await h.client.console()).entries.length, 0);
  });

  test('dialogs do not block the page: confirm is dismissed and logged', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/dialog` });
    await h.client.act({ action: 'click', target: '#confirm' });
    assert.equal(await text('#r'), 'false');
    const con = await h.client.console();
    assert.ok(con.entries.some((e) => e.type === 'dialog' && /confirm: Really\? \(dismissed\)/.test(e.text)));
  });

  test('fetch: main content as text through the browser, after redirects, in a tab of its own', async () => {
    const before = (await h.client.tabs()).tabs.length;
    const r = await h.client.fetch({ url: `${h.site.url}/redirect` });
    assert.equal(r.finalUrl, `${h.site.url}/article`);
    assert.equal(r.status, 200);
    assert.equal(r.title, 'The Article');
    assert.match(r.text, /^# Why loopback matters/);
    assert.match(r.text, /Loopback interfaces let a program talk to itself/);
    assert.match(r.text, /- First point\n- Second point/);
    for (const junk of ['Sponsored junk', 'About us navigation', 'Copyright footer']) assert.ok(!r.text.includes(junk), `${junk} left in`);
    assert.equal(r.chars, r.text.length);
    assert.equal(r.truncated, false);
    const short = await h.client.fetch({ url: `${h.site.url}/article`, maxChars: 100 });
    assert.equal(short.text.length, 100);
    assert.equal(short.truncated, true);
    assert.equal((await h.client.tabs()).tabs.length, before, 'the fetch tab is gone');
    await rejectsWith(h.client.fetch({ url: `http://127.0.0.1:${await closedPort()}/` }), 502, 'NAVIGATION_FAILED');
  });

  test('bad requests are 400s with a message, never 500s', async () => {
    await rejectsWith(h.client.act({ action: 'click' } as never), 400, 'VALIDATION_FAILED', /target/);
    await rejectsWith(h.client.act({ action: 'wait' } as never), 400, 'VALIDATION_FAILED', /exactly one/);
    await rejectsWith(h.client.act({ action: 'teleport' } as never), 400, 'VALIDATION_FAILED');
    await rejectsWith(h.client.act({ action: 'click', target: '#a', force: true } as never), 400, 'VALIDATION_FAILED', /force/);
    await rejectsWith(h.client.act({ action: 'click', target: 'e999999' }), 404, 'REF_UNKNOWN', /e999999/);
  });
});
