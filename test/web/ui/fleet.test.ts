// The dashboard's Fleet card in real Chromium, with the real nats-server: a joined machine shown online with its
// instance; an invite made by keyboard shows its code, the command and a QR code that decodes to nothing else
// (drawn from the same command); at 390 px nothing sticks out; Revoke asks first and the machine goes, live. The Work
// card queues a prompt by keyboard (a relative directory refused under its field) and shows its answer, live.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { findNatsServer, joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { freePort } from '../../support/ports.ts';
import { sendJson } from '../../support/server.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { startManager, type TestManager } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';
import { overflowing, tabTo } from './keyboard.ts';

describe('web UI: the dashboard\'s fleet', { skip: findNatsServer() ? false : 'nats-server is not installed (apt-get install nats-server)' }, () => {
  let manager: TestManager;
  let machine: AgentTestServer;
  let browser: Browser;
  let natsUrl: string;
  const home = mkdtempSync(join(tmpdir(), 'svc-machine-'));

  before(async () => {
    buildWeb();
    const port = await freePort();
    natsUrl = `nats://127.0.0.1:${port}`;
    manager = await startManager({ fleet: { host: '127.0.0.1', port, heartbeatMs: 200 } });
    const { code } = (await sendJson(`${manager.url}/api/dashboard/fleet/invites`, 'POST', {})).body;
    await joinFleet({ url: natsUrl, code, name: 'home server', home });
    machine = await startAgentServer({}, { home, fleetHeartbeatMs: 200 });
    // the fake Claude Code with a login: the machine takes work it can run
    const { env } = machine.app.services.settings.get().agent;
    machine.app.services.settings.update({ agent: { env: { ...env, ANTHROPIC_API_KEY: 'fake-key' } } });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await machine?.close();
    await manager?.close();
    rmSync(home, { recursive: true, force: true });
  });

  // (first: the next test revokes this machine)
  test('Work by keyboard: a relative directory refused under its field, then the prompt queued and answered, live', async () => {
    const { page, errors } = await openPage(browser, manager);
    const card = page.locator('section[aria-labelledby="work-title"]');
    await card.waitFor();
    assert.match(await card.innerText(), /Nothing queued/);
    await tabTo(page, '#work-prompt');
    await page.keyboard.type('Summarise the build scenario:text');
    await tabTo(page, '#work-dir');
    await page.keyboard.type('relative/dir');
    await tabTo(page, '.work-form button', { text: 'Queue' });
    await page.keyboard.press('Enter');
    await card.locator('#work-dir-error').waitFor();
    assert.match(await card.locator('#work-dir-error').innerText(), /absolute path/);
    await tabTo(page, '#work-dir');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await tabTo(page, '.work-form button', { text: 'Queue' });
    await page.keyboard.press('Enter');
    const item = card.locator('.work-item', { hasText: 'Summarise the build' });
    await item.waitFor();
    await until(async () => (await item.getAttribute('data-status')) === 'succeeded', 'the item answered', 30_000).catch(async (err: Error) => {
      throw new Error(`${err.message}; the queue says ${JSON.stringify((await (await fetch(`${manager.url}/api/dashboard/work`)).json()).items)}`);
    });
    assert.match(await item.innerText(), /on home server/);
    await tabTo(page, '.work-answer summary');
    await page.keyboard.press('Enter');
    assert.ok((await item.locator('.work-answer p').innerText()).length > 0, 'the answer shows');
    assert.equal(await card.locator('#work-prompt').inputValue(), '', 'the form is ready for the next');
    await shot(page, 'dashboard-work-1280');
    assert.deepEqual(realErrors(errors), []);
    await page.close();
  });

  test('1280 px by keyboard: the machine online, an invite with its command and QR code, Revoke asked first', async () => {
    const { page, context, errors } = await openPage(browser, manager);
    const card = page.locator('section[aria-labelledby="fleet-title"]');
    const row = card.locator('.machine', { hasText: 'home server' });
    await until(async () => /online/.test(await row.innerText().catch(() => '')), 'the machine online');
    assert.match(await row.innerText(), /svc \d+\.\d+\.\d+ · 1 instance/);
    assert.match(await card.locator('.fleet-status').innerText(), new RegExp(`Machines join at ${natsUrl.replace(/\./g, '\\.')} · NATS\\s+running\\s+· 1/1 online`));

    await tabTo(page, 'section[aria-labelledby="fleet-title"] button', { text: 'Invite a machine' });
    await page.keyboard.press('Enter');
    const invite = card.locator('.fleet-invite');
    await invite.waitFor();
    const code = (await invite.locator('.fleet-code').innerText()).trim();
    assert.match(code, /^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    assert.equal((await invite.locator('.fleet-command').innerText()).trim(), `svc fleet join ${natsUrl} --code ${code}`);
    const qr = invite.getByRole('img', { name: `QR code of the join command with code ${code}` });
    const box = (await qr.boundingBox())!;
    assert.ok(box.width >= 150 && Math.abs(box.width - box.height) < 1, 'a square QR code');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: manager.url });
    await tabTo(page, '.fleet-invite button', { text: 'Copy the command' });
    await page.keyboard.press('Enter');
    await until(async () => (await page.evaluate(() => navigator.clipboard.readText())) === `svc fleet join ${natsUrl} --code ${code}`, 'the command copied');
    await shot(page, 'dashboard-fleet-1280');

    // the code works: a second machine joins with it, and shows up live
    const second = mkdtempSync(join(tmpdir(), 'svc-machine-'));
    try {
      await joinFleet({ url: natsUrl, code, name: 'cloud vm', home: second });
    } finally {
      rmSync(second, { recursive: true, force: true });
    }
    await card.locator('.machine', { hasText: 'cloud vm' }).waitFor({ timeout: 10_000 });
    assert.match(await card.locator('.machine', { hasText: 'cloud vm' }).innerText(), /offline[\s\S]*not connected yet/);

    await tabTo(page, '.machine button', { text: 'Revoke' });
    const target = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Its key can no longer connect/);
    await page.keyboard.press('Escape');
    await until(async () => !(await dialog.isVisible()), 'Escape keeps it');
    assert.equal(await card.locator('.machine').count(), 2);
    await tabTo(page, `.machine button[aria-label="${target}"]`);
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await until(async () => (await card.locator('.machine').count()) === 1, 'the machine gone');
    assert.deepEqual(realErrors(errors), []);
    await page.close();
  });

  test('390 px: the card fits, the invite wraps under its text', async () => {
    const { page, errors } = await openPage(browser, manager, { width: 390, height: 844 });
    const card = page.locator('section[aria-labelledby="fleet-title"]');
    await card.getByRole('button', { name: 'Invite a machine' }).click();
    await card.locator('.fleet-invite .qr').waitFor();
    assert.deepEqual(await overflowing(page, 'section[aria-labelledby="fleet-title"]'), [], 'nothing sticks out at 390 px');
    assert.deepEqual(await overflowing(page, 'section[aria-labelledby="work-title"]'), [], 'the Work card neither');
    await shot(page, 'dashboard-fleet-390');
    assert.deepEqual(realErrors(errors), []);
    await page.close();
  });
});
