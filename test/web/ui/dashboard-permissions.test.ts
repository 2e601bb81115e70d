// The manager dashboard's permissions card in real Chromium: a held call of an instance shows (with
// its instance, the command, the time left) and the nav counts it; one held later comes in live; an
// instance that cannot list its requests is named; Deny with a reason (keyboard alone) and Allow for
// this session reach the instance, which answers the waiting calls; the count goes back to none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { startFakeInstance } from '../../modules/dashboard/fake-instance.ts';
import { startManager, until as managerUntil, type TestManager } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';
import { focused, overflowing, tabTo } from './keyboard.ts';

let instance: TestServer;
let old: Awaited<ReturnType<typeof startFakeInstance>>;
let manager: TestManager;
let browser: Browser;
let instanceId: string;
let oldId: string;

before(async () => {
  buildWeb();
  instance = await startServer({ classifyPeer: () => 'remote' as const });
  old = await startFakeInstance();
  manager = await startManager();
  browser = await launch();
  const add = async (url: string, token: string, label: string) => (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url, token, label })).body.id as string;
  instanceId = await add(instance.url, instance.app.services.token, 'worker alpha');
  oldId = await add(old.url, old.token, 'old laptop');
  await managerUntil(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${instanceId}`)).body.stream === 'connected' ? true : undefined), 'the instance bridged');
});

after(async () => {
  await browser?.close();
  await manager?.close();
  await old?.close();
  await instance?.close();
});

/** A held call on the instance, as a CLI's request makes it; resolves with the answer the CLI gets. */
const hold = (runId: string, tool: string, input: Record<string, unknown>) =>
  instance.app.services.permissions.ask({ sessionId: instance.app.services.chat.activeSession().id, runId, provider: 'claude' }, { tool, input });

test('the dashboard lists every instance\'s held calls, live, and answers them', async () => {
  const bash = hold('tr_dash_1', 'Bash', { command: 'rm -rf build && npm run build' });
  const { page, errors } = await openPage(browser, manager, { width: 390, height: 844 });
  const section = page.locator('section[aria-labelledby="permissions-title"]');
  const first = section.locator('.perm-card').first();
  await first.waitFor();
  const text = await first.innerText();
  assert.match(text, /Allow Bash\?/);
  assert.match(text, /rm -rf build && npm run build/);
  assert.match(text, /worker alpha/, 'its instance');
  assert.match(text, /expires in \d+ min/);
  assert.match(await section.locator(`[data-instance-error="${oldId}"]`).innerText(), /old laptop did not say what it waits on/, 'the instance that cannot list is named');
  assert.match(await page.locator('.dash-nav a[href="#permissions-title"]').innerText(), /Permissions\s*1\s*waiting/, 'the nav counts it');
  assert.deepEqual(await overflowing(page, 'section[aria-labelledby="permissions-title"]'), [], 'nothing sticks out at 390 px');
  await shot(page, 'dashboard-permissions-390');

  // held later: it comes in live (through the manager's stream, not the interval)
  const write = hold('tr_dash_2', 'Write', { file_path: '/work/notes.md', content: 'one\ntwo' });
  await section.locator('.perm-card').nth(1).waitFor({ timeout: 5000 });
  assert.match(await section.locator('.perm-card').nth(1).innerText(), /Write notes\.md[\s\S]*\+one\s+\+two/);
  await until(async () => /Permissions\s*2/.test(await page.locator('.dash-nav a[href="#permissions-title"]').innerText()), 'the count follows');

  // Deny with a reason, by keyboard alone
  const [bashId, writeId] = await section.locator('.perm-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-permission-id')!));
  await tabTo(page, `[data-permission-id="${bashId}"] button`, { text: 'Deny' });
  await page.keyboard.press('Enter');
  await until(async () => (await focused(page)).startsWith('input#'), 'the reason field focused');
  await page.keyboard.type('not on the shared build box');
  await page.keyboard.press('Enter');
  assert.deepEqual(await bash, { allow: false, reason: 'not on the shared build box' }, 'the waiting call got the deny and its reason');
  await until(async () => (await section.locator(`[data-permission-id="${bashId}"]`).getAttribute('data-status')) === 'denied', 'shown denied');
  assert.match(await focused(page), /^p/, 'the focus lands on the outcome');

  // Allow for this session, by keyboard: remembered on the instance
  await tabTo(page, `[data-permission-id="${writeId}"] button`, { text: 'Allow for this session' });
  await page.keyboard.press('Space');
  assert.deepEqual(await write, { allow: true });
  assert.deepEqual(instance.app.services.permissions.rules().map((r) => [r.label, r.scope]), [['Write(/work/notes.md)', 'session']]);
  assert.deepEqual(instance.app.services.permissions.pending(), []);
  await until(async () => !/Permissions\s*\d/.test(await page.locator('.dash-nav a[href="#permissions-title"]').innerText()), 'no count any more');
  await shot(page, 'dashboard-permissions-decided');
  assert.deepEqual(realErrors(errors), []);
});
