// The core server's /api/browser/* routes (browser.routes.ts) on the server kit, forwarding through the
// client to a real browser server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { moduleServer } from '../../../support/kit.ts';
import { browserRoutes } from '../../../../src/modules/automation/browser/browser.routes.ts';
import { BrowserClient } from '../../../../src/modules/automation/browser/client.ts';
import { refOf, startHarness, type Harness } from '../../../fixtures/browser/harness.ts';

let h: Harness;
let app: FastifyInstance;
let down: FastifyInstance;

const coreApp = (client: BrowserClient) => moduleServer((a) => a.register(browserRoutes, { api: client }));

async function call(a: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const res = await a.inject({ method, url, ...(body !== undefined ? { payload: body as object } : {}) });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

describe('core /api/browser routes', { timeout: 180_000 }, () => {
  before(async () => {
    h = await startHarness();
    app = await coreApp(h.client);
    // A core server whose browser server is not running (and may not be started).
    down = await coreApp(new BrowserClient({ port: 1 }));
  });
  after(async () => {
    await app?.close();
    await down?.close();
    await h?.close();
  });

  test('status, start, act, snapshot with diff', async () => {
    const st0 = await call(app, 'GET', '/api/browser/status');
    assert.equal(st0.status, 200);
    assert.equal(st0.body.server, true);
    assert.equal(st0.body.running, false, 'status alone launches nothing');
    const st = await call(app, 'POST', '/api/browser/start', {});
    assert.equal(st.status, 200);
    assert.equal(st.body.running, true);
    assert.equal(st.body.mode, 'launch');
    assert.equal(typeof st.body.pid, 'number');

    const opened = await call(app, 'POST', '/api/browser/act', { action: 'open', url: `${h.site.url}/rerender` });
    assert.equal(opened.status, 200);
    assert.equal(opened.body.title, 'Rerender page');
    const snap = await call(app, 'GET', '/api/browser/snapshot');
    assert.equal(snap.status, 200);
    const ref = refOf(snap.body.text, 'button "Stable"');
    const clicked = await call(app, 'POST', '/api/browser/act', { action: 'click', target: ref });
    assert.equal(clicked.status, 200);
    const diff = await call(app, 'GET', '/api/browser/snapshot?diff=1');
    assert.deepEqual(diff.body.diff.changed, [{ before: 'text "0"', after: 'text "1"' }]);
    const shot = await call(app, 'POST', '/api/browser/act', { action: 'screenshot' });
    assert.match(shot.body.url, /^\/media\/browser-.*\.png$/);
  });

  test('errors keep their status and code through the core route', async () => {
    await call(app, 'POST', '/api/browser/act', { action: 'open', url: `${h.site.url}/rerender` });
    const snap = await call(app, 'GET', '/api/browser/snapshot');
    const victim = refOf(snap.body.text, 'button "Victim"');
    await call(app, 'POST', '/api/browser/act', { action: 'eval', script: 'replaceVictim()' });
    const stale = await call(app, 'POST', '/api/browser/act', { action: 'click', target: victim });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error, 'REF_STALE');
    assert.match(stale.body.message, new RegExp(victim));
    const bad = await call(app, 'POST', '/api/browser/act', { action: 'click', target: 'a[[', timeout: 200 });
    assert.deepEqual([bad.status, bad.body.error], [400, 'BAD_SELECTOR']);
    const slow = await call(app, 'POST', '/api/browser/act', { action: 'wait', selector: '#never', timeout: 200 });
    assert.deepEqual([slow.status, slow.body.error], [504, 'TIMEOUT']);
    const nav = await call(app, 'POST', '/api/browser/act', { action: 'open', url: 'http://127.0.0.1:1/' });
    assert.deepEqual([nav.status, nav.body.error], [502, 'NAVIGATION_FAILED']);
    const tab = await call(app, 'POST', '/api/browser/tabs/t999/switch');
    assert.deepEqual([tab.status, tab.body.error], [404, 'TAB_NOT_FOUND']);
  });

  test('bad input is a 400 from the core route itself, before the browser server is asked', async () => {
    for (const [method, url, body] of [
      ['POST', '/api/browser/act', { action: 'click' }],
      ['POST', '/api/browser/act', { action: 'fly' }],
      ['POST', '/api/browser/act', { action: 'extract', target: 'a', what: 'everything' }],
      ['POST', '/api/browser/act', { action: 'wait', selector: '#a', idle: true }],
      ['POST', '/api/browser/fetch', {}],
      ['POST', '/api/browser/start', { headless: 'yes' }],
      ['GET', '/api/browser/snapshot?maxNodes=lots', undefined],
      ['POST', '/api/browser/tabs/..%2Fx/switch', undefined],
      ['DELETE', '/api/browser/tabs/first', undefined],
    ] as const) {
      const r = await call(down, method, url, body);
      assert.equal(r.status, 400, `${method} ${url}: ${JSON.stringify(r.body)}`);
      // an encoded separator in the path is refused before routing, the rest by the route's schemas
      assert.equal(r.body.error, url.includes('%2F') ? 'BAD_URL' : 'VALIDATION_FAILED');
      assert.ok(r.body.message);
    }
  });

  test('with no browser server running: status says so, actions are a 503 naming the fix', async () => {
    const st = await call(down, 'GET', '/api/browser/status');
    assert.equal(st.status, 200);
    assert.equal(st.body.server, false);
    assert.equal(st.body.running, false);
    const r = await call(down, 'POST', '/api/browser/act', { action: 'tabs' });
    assert.equal(r.status, 503);
    assert.equal(r.body.error, 'BROWSER_SERVER_DOWN');
    assert.match(r.body.message, /svc browser serve/);
  });

  test('tabs, fetch, console and network routes', async () => {
    const opened = await call(app, 'POST', '/api/browser/tabs', { url: `${h.site.url}/console` });
    assert.equal(opened.status, 201);
    const id = opened.body.tab.id as string;
    const list = await call(app, 'GET', '/api/browser/tabs');
    assert.equal(list.body.active, id);
    await call(app, 'POST', '/api/browser/act', { action: 'wait', idle: true, idleMs: 100 });
    const con = await call(app, 'GET', `/api/browser/console?tab=${id}&limit=10`);
    assert.ok(con.body.entries.some((e: { text: string }) => e.text === 'hello from page'));
    const net = await call(app, 'GET', `/api/browser/network?tab=${id}`);
    assert.ok(net.body.entries.some((e: { url: string }) => e.url.includes('/api/data?token=REDACTED')));
    const fetched = await call(app, 'POST', '/api/browser/fetch', { url: `${h.site.url}/article` });
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.title, 'The Article');
    const first = list.body.tabs.find((t: { id: string }) => t.id !== id).id as string;
    const sw = await call(app, 'POST', `/api/browser/tabs/${first}/switch`);
    assert.equal(sw.body.tab.active, true);
    const closed = await call(app, 'DELETE', `/api/browser/tabs/${id}`);
    assert.deepEqual([closed.status, closed.body.closed, closed.body.active], [200, id, first]);
  });
});
