// The live connection in real Chromium against the real server (spec §6): a quick reconnect is
// silent and loses nothing; a disconnect of more than 8 s shows a message that goes away on
// reconnect; the WebSocket is used only when SSE never opens.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, tempHome } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, sleep, until } from './helpers.ts';

const phase = (page: Page) => page.locator('.status-pill').getAttribute('data-phase');
const transport = (page: Page) => page.locator('.status-pill').getAttribute('data-transport');
const bannerShown = (page: Page) => page.locator('[data-testid="conn-banner"]').count().then((n) => n > 0);

/** Records, inside the page, whether the disconnected message ever appeared. */
async function watchBanner(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __bannerSeen: boolean };
    w.__bannerSeen = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="conn-banner"]')) w.__bannerSeen = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
}
const bannerEverSeen = (page: Page) => page.evaluate(() => (window as unknown as { __bannerSeen: boolean }).__bannerSeen);

describe('web UI: live connection', () => {
  let browser: Browser;
  before(async () => {
    buildWeb();
    browser = await launch();
  });
  after(() => browser?.close());

  test('a drop without restart: reconnects with Last-Event-ID, missed events replayed, nothing reloaded', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const sessionId = server.app.services.chat.activeSession().id;
    const messageRequests: string[] = [];
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        p.on('request', (r) => {
          if (new URL(r.url()).pathname === '/api/messages') messageRequests.push(r.url());
        });
      },
    });
    await until(async () => (await phase(page)) === 'open', 'the SSE connection');
    await watchBanner(page);
    // one event first, so the page holds a cursor
    server.app.services.bus.publish('queue_update', { pending: 0, active: false });
    await until(() => page.evaluate(() => performance.getEntriesByType('resource').length > 0), 'the page');
    await sleep(300);
    const before = messageRequests.length;
    // cut every connection, and publish while the page is away
    server.app.http.server.closeAllConnections();
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'said while the connection was down' });
    server.app.services.bus.publish('queue_update', { pending: 2, active: true });
    await page.locator('.vl-row >> text=said while the connection was down').waitFor({ timeout: 10_000 });
    await until(async () => (await page.locator('.queue-chip').textContent()) === '2 queued', 'the replayed queue state');
    assert.equal(messageRequests.length, before, 'replayed from the cursor: no reload from the API');
    assert.equal(await bannerEverSeen(page), false);

    // a drop before any event arrived (no cursor to resume from): the page reloads what it shows
    const second = await openPage(browser, server);
    await until(async () => (await phase(second.page)) === 'open', 'the second page');
    server.app.http.server.closeAllConnections();
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'said before the second page had any event' });
    await second.page.locator('.vl-row >> text=said before the second page had any event').waitFor({ timeout: 10_000 });
    assert.deepEqual(realErrors([...errors, ...second.errors]), []);
    await second.context.close();
    await context.close();
  });

  test('server down for 3 s: silent; events published meanwhile (on the new server) appear', async () => {
    const home = tempHome();
    let server = await startServer({ home });
    const port = server.port;
    const sessionId = server.app.services.chat.activeSession().id;
    server.app.services.chat.saveMessage({ sessionId, role: 'user', content: 'before the restart' });
    const { page, context, errors } = await openPage(browser, server);
    await until(async () => (await phase(page)) === 'open', 'the SSE connection');
    await watchBanner(page);

    await server.close({ removeHome: false });
    await until(async () => (await phase(page)) !== 'open', 'the page to notice the drop');
    await sleep(3000);
    server = await startServer({ home, port });
    // published by the new server before the page is back
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'published right after the restart' });
    await page.locator('.vl-row >> text=published right after the restart').waitFor({ timeout: 10_000 });
    await until(async () => (await phase(page)) === 'open', 'the reconnection');
    // and live events keep coming
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'published after the reconnection' });
    await page.locator('.vl-row >> text=published after the reconnection').waitFor({ timeout: 5000 });
    assert.equal(await bannerEverSeen(page), false, 'a quick reconnect shows no disconnected message');
    assert.equal(await page.locator('.vl-row >> text=before the restart').count(), 1, 'nothing is shown twice');
    assert.equal(await page.locator('.vl-row >> text=published right after the restart').count(), 1);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
    await server.close();
  });

  test('server down for 10 s: the disconnected message shows after 8 s and clears on reconnect', async () => {
    const home = tempHome();
    let server = await startServer({ home });
    const port = server.port;
    const sessionId = server.app.services.chat.activeSession().id;
    const { page, context } = await openPage(browser, server);
    await until(async () => (await phase(page)) === 'open', 'the SSE connection');
    await watchBanner(page);

    // the clock starts before close(): the page may see the drop while close() is still finishing
    const downAt = Date.now();
    await server.close({ removeHome: false });
    await sleep(Math.max(0, 6500 - (Date.now() - downAt)));
    assert.equal(await bannerShown(page), false, 'not before 8 s');
    await until(() => bannerShown(page), 'the disconnected message', 5000);
    const shownAfter = Date.now() - downAt;
    assert.ok(shownAfter > 8000, `shown after ${shownAfter} ms`);
    assert.equal(await page.getByRole('alert').filter({ hasText: 'Disconnected' }).count(), 1);
    await shot(page, 'disconnected');
    await sleep(Math.max(0, 10_000 - (Date.now() - downAt)));

    server = await startServer({ home, port });
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'back after ten seconds' });
    await until(async () => !(await bannerShown(page)), 'the message to clear', 8000);
    await page.locator('.vl-row >> text=back after ten seconds').waitFor({ timeout: 5000 });
    assert.equal(await phase(page), 'open');
    await context.close();
    await server.close();
  });

  test('SSE that never opens (blocked): the WebSocket carries the events', async (t) => {
    const server = await startServer();
    t.after(() => server.close());
    const sessionId = server.app.services.chat.activeSession().id;
    const sockets: string[] = [];
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        await p.route('**/api/events**', (route) => route.abort('connectionrefused'));
        p.on('websocket', (ws) => sockets.push(ws.url()));
      },
    });
    await until(async () => (await phase(page)) === 'open', 'a connection');
    assert.equal(await transport(page), 'ws');
    assert.equal(sockets.length, 1);
    assert.match(sockets[0]!, /\/ws$/);
    server.app.services.chat.saveMessage({ sessionId, role: 'assistant', content: 'delivered over the WebSocket' });
    await page.locator('.vl-row >> text=delivered over the WebSocket').waitFor({ timeout: 5000 });
    server.app.services.bus.publish('queue_update', { pending: 0, active: true });
    await page.getByRole('button', { name: 'Stop the agent' }).waitFor({ timeout: 5000 });
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });
});
