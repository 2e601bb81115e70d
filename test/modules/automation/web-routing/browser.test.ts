import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { attachToPage, type Attachment } from '../../../../src/modules/automation/web-routing/browser.ts';
import { runWebRoutingCommand } from '../../../../src/modules/automation/web-routing/commands.ts';
import type { RuleService } from '../../../../src/modules/automation/web-routing/web-routing.service.ts';
import { memoryService, startUpstream, type Upstream } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';

interface Fetched {
  status: number;
  url: string;
  redirected: boolean;
  headers: Record<string, string>;
  text: string;
}

/** fetch() run inside the page. */
function pageFetch(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Fetched> {
  return page.evaluate(
    async ([u, i]) => {
      const r = await fetch(u, i);
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => (headers[k] = v));
      return { status: r.status, url: r.url, redirected: r.redirected, headers, text: await r.text() };
    },
    [url, init] as const,
  );
}

describe('web-routing in headless Chromium (attachToPage)', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed` }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let up: Upstream;
  let other: Upstream;
  let service: RuleService;
  let closeDb: () => void;
  let attachment: Attachment;
  const errors: unknown[] = [];
  const cmd = (text: string) => runWebRoutingCommand(text, service);

  before(async () => {
    up = await startUpstream('main');
    other = await startUpstream('other');
    ({ service, close: closeDb } = memoryService());
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    context = await browser.newContext();
    attachment = await attachToPage(context, service, { onError: (e) => errors.push(e) });
    page = await context.newPage();
    await page.goto(`${up.origin}/page`);
  });
  after(async () => {
    await attachment?.detach();
    await browser?.close();
    await up?.close();
    await other?.close();
    closeDb?.();
  });
  beforeEach(() => {
    service.clear();
    up.seen.length = 0;
    other.seen.length = 0;
  });

  test('block: the page gets 403 with the JSON error; the server never sees it', async () => {
    await cmd('/web-routing block /blocked/*');
    const r = await pageFetch(page, '/blocked/thing');
    assert.equal(r.status, 403);
    assert.equal(JSON.parse(r.text).error, 'BLOCKED_BY_RULE');
    assert.match(r.headers['x-web-routing']!, /^block#\d+$/);
    assert.equal(up.seen.length, 0);
  });

  test('block applies to navigations too', async () => {
    await cmd('/web-routing block /forbidden-page');
    const p2 = await context.newPage();
    try {
      const res = await p2.goto(`${up.origin}/forbidden-page`);
      assert.equal(res?.status(), 403);
      assert.match((await p2.textContent('body')) ?? '', /BLOCKED_BY_RULE/);
    } finally {
      await p2.close();
    }
  });

  test('mock: dynamic body from captures, query, headers and the JSON request body', async () => {
    await cmd(
      `/web-routing mock POST /api/users/:id '{"id": "{{params.id|number}}", "q": "{{query.q}}", "agent": "{{headers.x-agent}}", "name": "{{body.name}}"}' --status 201`,
    );
    const r = await pageFetch(page, '/api/users/5?q=z', {
      method: 'POST',
      headers: { 'x-agent': 'page', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    assert.equal(r.status, 201);
    assert.deepEqual(JSON.parse(r.text), { id: 5, q: 'z', agent: 'page', name: 'Ada' });
    assert.equal(up.seen.length, 0);
  });

  test('mock an https:// API from an http page (interception happens before TLS; CORS headers added)', async () => {
    await cmd(`/web-routing mock GET https://api.example.test/v1/me '{"me": "mocked over https"}'`);
    const r = await pageFetch(page, 'https://api.example.test/v1/me');
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), { me: 'mocked over https' });
  });

  test('redirect: the browser follows the 302 and the page sees the new URL', async () => {
    await cmd('/web-routing add /old/:name -> /new/:name');
    const r = await pageFetch(page, '/old/abc?x=1');
    assert.equal(r.redirected, true);
    assert.equal(r.url, `${up.origin}/new/abc?x=1`);
    assert.equal(JSON.parse(r.text).url, '/new/abc?x=1');
    assert.deepEqual(up.seen.map((s) => s.url), ['/new/abc?x=1']);
  });

  test('rewrite: the server gets the new path, the page keeps the old URL (no redirect)', async () => {
    await cmd('/web-routing rewrite /v1/* => /v2/*');
    const r = await pageFetch(page, '/v1/things?y=2');
    assert.equal(r.redirected, false);
    assert.equal(r.url, `${up.origin}/v1/things?y=2`);
    assert.equal(JSON.parse(r.text).url, '/v2/things?y=2');
    assert.deepEqual(up.seen.map((s) => s.url), ['/v2/things?y=2']);
  });

  test('rewrite to another host', async () => {
    await cmd(`/web-routing rewrite /legacy/* => ${other.origin}/modern/*`);
    const r = await pageFetch(page, '/legacy/a');
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.text).upstream, 'other');
    assert.equal(JSON.parse(r.text).url, '/modern/a');
  });

  test('transform: request headers set and removed', async () => {
    await cmd('/web-routing transform /api2/* --header "X-Injected: yes" --header "X-Method: {{method}}" --remove-header X-Drop');
    const r = await pageFetch(page, '/api2/x', { headers: { 'x-drop': '1', 'x-keep': '1' } });
    const echo = JSON.parse(r.text);
    assert.equal(echo.headers['x-injected'], 'yes');
    assert.equal(echo.headers['x-method'], 'GET');
    assert.equal(echo.headers['x-drop'], undefined);
    assert.equal(echo.headers['x-keep'], '1');
  });

  test('transform: response headers and body (route.fetch + fulfill), gzip included', async () => {
    await cmd('/web-routing transform /text --replace "production" "staging" --response-header "X-Transformed: yes" --remove-response-header X-Upstream');
    await cmd('/web-routing transform /gzip --replace "production" "staging"');
    const r = await pageFetch(page, '/text');
    assert.equal(r.text, 'hello staging world, staging again');
    assert.equal(r.headers['x-transformed'], 'yes');
    assert.equal(r.headers['x-upstream'], undefined);
    assert.match(r.headers['x-web-routing']!, /^transform#\d+$/);
    const g = await pageFetch(page, '/gzip');
    assert.equal(g.text, 'hello staging world (gzip)');
  });

  test('request body replacement', async () => {
    await cmd(`/web-routing transform POST /submit --request-replace '"debug":false' '"debug":true'`);
    const r = await pageFetch(page, '/submit', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"debug":false}' });
    assert.equal(JSON.parse(r.text).body, '{"debug":true}');
  });

  test('header-constrained rule matches only requests carrying the header', async () => {
    await cmd(`/web-routing mock GET /feature [X-Variant: b] '{"variant": "b"}'`);
    const a = await pageFetch(page, '/feature', { headers: { 'x-variant': 'b' } });
    assert.deepEqual(JSON.parse(a.text), { variant: 'b' });
    const b = await pageFetch(page, '/feature');
    assert.equal(JSON.parse(b.text).upstream, 'main');
  });

  test('detach stops interception; a new attachment to a single page works', async () => {
    await cmd('/web-routing block /detach-test');
    const p2 = await browser.newPage();
    try {
      await p2.goto(`${up.origin}/page`);
      assert.equal((await pageFetch(p2, '/detach-test')).status, 200, 'another context is not attached');
      const a = await attachToPage(p2, service);
      assert.equal((await pageFetch(p2, '/detach-test')).status, 403);
      await a.detach();
      assert.equal((await pageFetch(p2, '/detach-test')).status, 200);
    } finally {
      await p2.close();
    }
    assert.deepEqual(errors, [], 'no handler errors');
  });
});
