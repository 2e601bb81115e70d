// The trust model seen from the browser: a page served to a remote peer needs the access token.
// The server here classifies every peer as remote; the page asks for the token, keeps it, sends it
// as a bearer token, and gives it to the event channel as ?token=.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, launch, until } from './helpers.ts';

describe('web UI: access token for remote use', () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    buildWeb();
    server = await startServer({ classifyPeer: () => 'remote' });
    server.app.services.chat.saveMessage({ sessionId: server.app.services.chat.activeSession().id, role: 'user', content: 'only with the token' });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('asks for the token on 401, then works with it (API and events)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const eventUrls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/events')) eventUrls.push(r.url());
    });
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(server.url);
    const dialog = page.getByRole('dialog', { name: 'Access token needed' });
    await dialog.waitFor();
    await page.waitForTimeout(500);
    assert.deepEqual(sockets, [], 'a refused event channel is not retried over the WebSocket');
    assert.equal(await page.locator('.vl-row >> text=only with the token').count(), 0);
    await dialog.getByLabel('Token').fill(server.app.services.token);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await page.waitForSelector('#app[data-ready]');
    await page.locator('.vl-row >> text=only with the token').waitFor();
    await until(async () => (await page.locator('.status-pill').getAttribute('data-phase')) === 'open', 'the event channel');
    assert.ok(eventUrls.some((u) => new URL(u).searchParams.get('token') === server.app.services.token), 'EventSource carries ?token=');
    server.app.services.chat.saveMessage({ sessionId: server.app.services.chat.activeSession().id, role: 'assistant', content: 'live with the token' });
    await page.locator('.vl-row >> text=live with the token').waitFor({ timeout: 5000 });
    assert.equal(await dialog.count(), 0);
    await context.close();
  });

  test('a token given in the address (#token=…) is used and removed from the address bar', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/#token=${encodeURIComponent(server.app.services.token)}`);
    await page.waitForSelector('#app[data-ready]');
    await page.locator('.vl-row >> text=only with the token').waitFor();
    assert.equal(new URL(page.url()).hash, '');
    await context.close();
  });
});
