// The chat UI installs to a home screen and shows push notifications, in real Chromium on
// http://127.0.0.1 (a secure context): the manifest, icons and service worker are served at stable paths
// with the right headers, the worker registers at the root scope and caches nothing, a push it is handed
// becomes a notification with Allow and Deny, and Settings › Notifications offers to turn them on; the
// dashboard has the same worker at its own root, for the hub's notifications of every instance.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, type TestServer } from '../../support/server.ts';
import { startManager, type TestManager } from '../../modules/dashboard/helpers.ts';
import { FULL_CHROMIUM, buildWeb, launch, openPage, realErrors, until } from './helpers.ts';

describe('web UI: installable, with a service worker for push', () => {
  let server: TestServer;
  let manager: TestManager;
  let browser: Browser;
  before(async () => {
    buildWeb();
    [server, manager] = await Promise.all([startServer(), startManager()]);
    // The full browser: the headless shell has no notification service, so a push shows nothing there.
    browser = await launch([], FULL_CHROMIUM);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await manager?.close();
  });

  test('the manifest, its icons and the service worker are served at stable paths', async () => {
    const manifest = await fetch(`${server.url}/manifest.webmanifest`);
    assert.equal(manifest.status, 200);
    assert.match(manifest.headers.get('content-type') ?? '', /application\/manifest\+json/);
    const body = (await manifest.json()) as { icons: { src: string; sizes: string }[]; display: string; start_url: string };
    assert.equal(body.display, 'standalone');
    for (const size of ['192x192', '512x512']) {
      const icon = body.icons.find((i) => i.sizes === size);
      assert.ok(icon, `an icon of ${size}`);
      const png = await fetch(new URL(icon.src, `${server.url}/`));
      assert.equal(png.status, 200);
      assert.equal(png.headers.get('content-type'), 'image/png');
    }
    const sw = await fetch(`${server.url}/sw.js`);
    assert.equal(sw.status, 200);
    assert.match(sw.headers.get('content-type') ?? '', /javascript/);
    assert.equal(sw.headers.get('cache-control'), 'no-cache', 'a new build replaces the worker');
    const code = await sw.text();
    assert.doesNotMatch(code, /caches\.|addEventListener\(["']fetch/, 'the worker caches nothing and intercepts no request');
    assert.equal((await fetch(`${server.url}/icons/nope.png`)).status, 404);
  });

  test('the worker registers at the root scope; a push becomes a notification with Allow and Deny', async () => {
    const { context, page, errors } = await openPage(browser, server);
    try {
      await context.grantPermissions(['notifications'], { origin: server.url });
      assert.match(await page.locator('link[rel="manifest"]').getAttribute('href') ?? '', /manifest\.webmanifest$/);
      const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      assert.equal(scope, `${server.url}/`);

      const shown = await deliverPush(context, page, server.url, { tag: 'perm-perm_1', title: 'Run a command', requestId: 'perm_1' });
      assert.deepEqual(shown, { title: 'Run a command', body: 'npm publish', tag: 'perm-perm_1', actions: ['allow', 'deny'] });
      assert.equal(await page.evaluate(async () => (await caches.keys()).length), 0, 'no cache holds anything');

      await page.evaluate(() => {
        location.hash = '#settings';
      });
      const control = page.locator('#section-push [data-push]');
      await control.getByRole('button', { name: 'Turn on for this device' }).waitFor();
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
  test('the dashboard: its own worker at its root, a hub push becomes a notification, and a switch to turn them on', async () => {
    const sw = await fetch(`${manager.url}/sw.js`);
    assert.equal(sw.status, 200, 'the dashboard serves the service worker');
    assert.equal((await fetch(`${manager.url}/icons/icon-192.png`)).headers.get('content-type'), 'image/png');
    const { context, page, errors } = await openPage(browser, manager);
    try {
      await context.grantPermissions(['notifications'], { origin: manager.url });
      const card = page.getByRole('region', { name: 'Notifications on this device' });
      await card.getByRole('button', { name: 'Turn on for this device' }).waitFor();
      assert.equal(await card.locator('[data-push]').getAttribute('data-push'), 'off');
      // the switch's check registered the worker at the dashboard's root
      assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.ready).scope), `${manager.url}/`);
      const shown = await deliverPush(context, page, manager.url, { tag: 'perm-hp_1', title: 'alpha: Run a command', requestId: 'hp_1' });
      assert.deepEqual(shown, { title: 'alpha: Run a command', body: 'npm publish', tag: 'perm-hp_1', actions: ['allow', 'deny'] });
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});

/** Hands the page's service worker a permission push (as its push service would) and reads the notification it shows. */
async function deliverPush(context: BrowserContext, page: Page, origin: string, push: { tag: string; title: string; requestId: string }) {
  const cdp = await context.newCDPSession(page);
  const registrations: string[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
    for (const r of e.registrations) if (r.scopeURL === `${origin}/`) registrations.push(r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await until(() => registrations[0], 'the registration');
  const payload = { v: 1, kind: 'permission', body: 'npm publish', sessionId: 'ses_1', expiresAt: Date.now() + 60_000, actions: [{ action: 'allow', title: 'Allow', token: 'a'.repeat(43) }, { action: 'deny', title: 'Deny', token: 'd'.repeat(43) }], ...push };
  await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: registrationId!, data: JSON.stringify(payload) });
  return until(
    () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: (n as unknown as { actions: { action: string }[] }).actions.map((a) => a.action) }))).then((list) => list[0]),
    'the notification',
  );
}
