import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserCandidates, buildLaunchArgs, findBrowser, normalizeCdpUrl, parseDevToolsActivePort } from '../../../../src/modules/automation/browser/launcher.ts';
import { normalizeUrl, toSelector } from '../../../../src/modules/automation/browser/actions.ts';
import { asRef } from '../../../../src/modules/automation/browser/refs.ts';
import { Ring } from '../../../../src/modules/automation/browser/ring.ts';
import { redactUrl } from '../../../../src/modules/automation/browser/session.ts';
import { actionBudget } from '../../../../src/modules/automation/browser/client.ts';
import { fromPlaywright, plainText } from '../../../../src/modules/automation/browser/errors.ts';
import { AppError } from '../../../../src/core/errors.ts';

const only = (...paths: string[]) => (p: string) => paths.includes(p);

test('findBrowser: SVC_BROWSER_PATH first, then /usr/bin/chromium, then names on PATH', () => {
  const env = { PATH: '/opt/x:/usr/local/bin', SVC_BROWSER_PATH: '/custom/chrome' };
  assert.equal(findBrowser({ env, isExecutable: only('/custom/chrome', '/usr/bin/chromium') }), '/custom/chrome');
  assert.equal(findBrowser({ env: { PATH: '/opt/x' }, isExecutable: only('/usr/bin/chromium', '/opt/x/google-chrome') }), '/usr/bin/chromium');
  assert.equal(findBrowser({ env: { PATH: '/opt/x' }, isExecutable: only('/opt/x/chromium-browser', '/opt/x/google-chrome') }), '/opt/x/chromium-browser');
  assert.equal(findBrowser({ env: { PATH: '/opt/x' }, isExecutable: only('/opt/x/google-chrome-stable', '/opt/x/google-chrome') }), '/opt/x/google-chrome-stable');
  assert.equal(findBrowser({ env: { PATH: '' }, isExecutable: only('/usr/bin/google-chrome') }), '/usr/bin/google-chrome');
  const c = browserCandidates({ PATH: '/a:relative:/b', SVC_BROWSER_PATH: '/s' });
  assert.equal(c[0], '/s');
  assert.equal(c[1], '/usr/bin/chromium');
  assert.ok(!c.some((p) => p.startsWith('relative')), 'relative PATH entries are ignored');
});

test('findBrowser: an explicit path is used alone; missing browsers are a 503 that says what to do', () => {
  assert.equal(findBrowser({ explicit: '/my/chrome', env: {}, isExecutable: only('/my/chrome', '/usr/bin/chromium') }), '/my/chrome');
  assert.throws(
    () => findBrowser({ explicit: '/my/chrome', env: {}, isExecutable: only('/usr/bin/chromium') }),
    (e: unknown) => e instanceof AppError && e.status === 503 && e.code === 'BROWSER_NOT_FOUND' && /\/my\/chrome is not an executable/.test(e.message),
  );
  assert.throws(
    () => findBrowser({ env: { SVC_BROWSER_PATH: '/nope' }, isExecutable: only('/usr/bin/chromium') }),
    (e: unknown) => e instanceof AppError && e.code === 'BROWSER_NOT_FOUND' && /SVC_BROWSER_PATH=\/nope/.test(e.message),
  );
  assert.throws(
    () => findBrowser({ env: { PATH: '/x' }, isExecutable: () => false }),
    (e: unknown) => e instanceof AppError && e.status === 503 && /apt-get install chromium/.test(e.message) && /SVC_BROWSER_PATH/.test(e.message),
  );
});

test('buildLaunchArgs: loopback debugging on a browser-chosen port, dedicated profile, quiet network', () => {
  const args = buildLaunchArgs({ profileDir: '/h/browser-profile', headless: true, noSandbox: true });
  for (const a of [
    '--headless=new',
    '--no-sandbox',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    '--user-data-dir=/h/browser-profile',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-quic',
    '--disable-sync',
    '--no-first-run',
  ]) {
    assert.ok(args.includes(a), a);
  }
  assert.equal(args.at(-1), 'about:blank');
  const headed = buildLaunchArgs({ profileDir: '/p', headless: false, noSandbox: false, extraArgs: ['--lang=en'] });
  assert.ok(!headed.some((a) => a.startsWith('--headless')));
  assert.ok(!headed.includes('--no-sandbox'));
  assert.ok(headed.includes('--lang=en'));
});

test('parseDevToolsActivePort', () => {
  assert.deepEqual(parseDevToolsActivePort('39651\n/devtools/browser/0ee7d26b'), { port: 39651, path: '/devtools/browser/0ee7d26b' });
  assert.equal(parseDevToolsActivePort('39651\n'), null, 'half-written file');
  assert.equal(parseDevToolsActivePort(''), null);
  assert.equal(parseDevToolsActivePort('0\n/devtools/browser/x'), null);
  assert.equal(parseDevToolsActivePort('abc\n/devtools/browser/x'), null);
});

test('normalizeCdpUrl', () => {
  assert.equal(normalizeCdpUrl('http://127.0.0.1:9222'), 'http://127.0.0.1:9222');
  assert.equal(normalizeCdpUrl('127.0.0.1:9222'), 'http://127.0.0.1:9222');
  assert.equal(normalizeCdpUrl('ws://127.0.0.1:9222/devtools/browser/abc'), 'ws://127.0.0.1:9222/devtools/browser/abc');
  assert.throws(() => normalizeCdpUrl('ftp://x'), (e: unknown) => e instanceof AppError && e.code === 'BAD_CDP_URL');
});

test('normalizeUrl: http(s) and about:blank only; bare hosts get a scheme', () => {
  assert.equal(normalizeUrl('https://a.test/x?y=1'), 'https://a.test/x?y=1');
  assert.equal(normalizeUrl('example.com/path'), 'https://example.com/path');
  assert.equal(normalizeUrl('localhost:3000/a'), 'http://localhost:3000/a');
  assert.equal(normalizeUrl('127.0.0.1:8080'), 'http://127.0.0.1:8080/');
  assert.equal(normalizeUrl('about:blank'), 'about:blank');
  for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,hi', 'chrome://settings']) {
    assert.throws(() => normalizeUrl(bad), (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'BAD_URL', bad);
  }
});

test('selectors and refs', () => {
  assert.equal(toSelector('//a[@id="x"]'), 'xpath=//a[@id="x"]');
  assert.equal(toSelector('/html/body/div'), 'xpath=/html/body/div');
  assert.equal(toSelector('(//li)[2]'), 'xpath=(//li)[2]');
  assert.equal(toSelector('xpath=//a'), 'xpath=//a');
  assert.equal(toSelector('div > a.b'), 'div > a.b');
  assert.equal(asRef('e12'), 'e12');
  assert.equal(asRef('@e3'), 'e3');
  assert.equal(asRef(' e7 '), 'e7');
  assert.equal(asRef('e'), undefined);
  assert.equal(asRef('#e12'), undefined);
  assert.equal(asRef('e12 > a'), undefined);
});

test('Ring keeps the newest entries, oldest first', () => {
  const r = new Ring<number>(3);
  assert.deepEqual(r.toArray(), []);
  for (let i = 1; i <= 5; i++) r.push(i);
  assert.deepEqual(r.toArray(), [3, 4, 5]);
  assert.deepEqual(r.toArray(2), [4, 5]);
  assert.equal(r.size, 3);
  assert.equal(r.total, 5);
  r.clear();
  assert.deepEqual(r.toArray(), []);
  r.push(9);
  assert.deepEqual(r.toArray(), [9]);
  assert.throws(() => new Ring(0));
});

test('redactUrl masks secrets in query strings', () => {
  assert.equal(redactUrl('http://a.test/api?token=abc&q=1'), 'http://a.test/api?token=REDACTED&q=1');
  assert.equal(redactUrl('http://a.test/?api_key=k&Signature=s'), 'http://a.test/?api_key=REDACTED&Signature=REDACTED');
  assert.equal(redactUrl('http://a.test/plain?q=1'), 'http://a.test/plain?q=1');
  assert.ok(redactUrl(`data:image/png;base64,${'A'.repeat(500)}`).length < 100);
});

test('actionBudget covers the action timeout plus a margin', () => {
  assert.ok(actionBudget({ action: 'wait', idle: true, timeout: 1000 }) > 1000);
  assert.ok(actionBudget({ action: 'click', target: '#a' }) > 10_000);
  assert.ok(actionBudget({ action: 'eval', script: '1', timeout: 300_000 }) > 300_000);
});

test('fromPlaywright maps driver errors to AppErrors with the issue statuses', () => {
  const timeout = Object.assign(new Error('locator.click: Timeout 300ms exceeded.\nCall log:\n  - waiting for locator(\'#a\')\n  - <div id="overlay"></div> intercepts pointer events'), { name: 'TimeoutError' });
  const t = fromPlaywright(timeout, { what: "Click on '#a'", target: '#a', timeoutMs: 300 });
  assert.equal(t.status, 504);
  assert.equal(t.code, 'TIMEOUT');
  assert.match(t.message, /intercepts pointer events/);
  const stale = fromPlaywright(new Error('elementHandle.click: Element is not attached to the DOM'), { what: 'x', ref: 'e4' });
  assert.equal(stale.status, 409);
  assert.equal(stale.code, 'REF_STALE');
  assert.match(stale.message, /e4/);
  assert.equal(fromPlaywright(new Error('page.goto: net::ERR_CONNECTION_REFUSED at http://x/'), { what: 'open', url: 'http://x/' }).status, 502);
  assert.equal(fromPlaywright(new Error('Target page, context or browser has been closed'), { what: 'x' }).status, 503);
  assert.equal(fromPlaywright(new Error('locator.click: Error: strict mode violation: locator(\'.dup\') resolved to 2 elements'), { what: 'x', target: '.dup' }).code, 'SELECTOR_AMBIGUOUS');
  const odd = fromPlaywright(new Error('something odd\n    at foo (bar.js:1)'), { what: 'Thing' });
  // a failure of the browser it has no words for: the browser's (502), never svc's own 500
  assert.deepEqual([odd.status, odd.code], [502, 'BROWSER_ERROR']);
  assert.equal(odd.message, 'Thing failed in the browser: something odd');
});

test("Playwright's coloured call log becomes one short plain line", () => {
  const err = Object.assign(new Error([
    'locator.click: Timeout 300ms exceeded.',
    'Call log:',
    '\u001b[2m  - waiting for locator(\'#covered\')\u001b[22m',
    `\u001b[2m    - <div id="overlay">${'x'.repeat(500)}</div> intercepts pointer events\u001b[22m`,
  ].join('\n')), { name: 'TimeoutError' });
  const e = fromPlaywright(err, { what: "click on '#covered'", timeoutMs: 300 });
  assert.equal(e.code, 'TIMEOUT');
  assert.doesNotMatch(e.message, /\u001b|\[2m|\[22m/);
  assert.ok(e.message.length < 400, String(e.message.length));
  assert.match(e.message, /^click on '#covered' did not finish within 300 ms: - <div id="overlay">x+…\. Raise the timeout/);
  assert.equal(plainText('\u001b[31mred\u001b[0m\tand\nplain'), 'red and plain');
});
