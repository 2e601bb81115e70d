// The chat channels in the settings page, in real Chromium: the live state of a Telegram bot (grammY
// against a local Bot API), a pairing code made in the UI and sent from a new chat, the bot token never
// shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../support/server.ts';
import { startFakeTelegram } from '../../support/fake-telegram.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

test('web UI: channel state and pairing in the settings', { timeout: 90_000 }, async (t) => {
  const fake = await startFakeTelegram();
  t.after(() => fake.close());
  buildWeb();
  const server = await startServer();
  t.after(() => server.close());
  server.app.services.settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
  await server.app.services.channels.restart('telegram', 'test');
  const browser = await launch();
  t.after(() => browser.close());
  const { page, errors } = await openPage(browser, server);
  await page.getByRole('button', { name: 'Settings', exact: true }).first().click();

  const row = page.locator('.channel-row[data-channel="telegram"]');
  await until(async () => (await row.textContent())?.includes('connected as @svc_test_bot'), 'the connected state');
  assert.match((await row.textContent())!, /1 allowed · 0 received · 0 ignored · 0 sent/);
  assert.equal(await page.locator('#set-channels-telegram-botToken').inputValue(), '', 'the token is never filled in');
  assert.ok(!(await page.content()).includes(fake.token));

  await row.getByRole('button', { name: 'Pair a chat' }).click();
  const code = (await row.locator('.pairing-code code').textContent())!;
  assert.match(code, /^\d{6}$/);
  await shot(page, 'channels-pairing');
  fake.push({ chat: { id: 7000, type: 'private', first_name: 'Kim' }, text: code });
  await until(async () => (await row.textContent())?.includes('2 allowed'), 'the new chat on the allowlist');
  assert.deepEqual(server.app.services.settings.get().channels.telegram.allowlist, ['4242', '7000']);
  assert.deepEqual(realErrors(errors), []);
});
