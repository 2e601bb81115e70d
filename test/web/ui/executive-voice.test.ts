// The executive console's live voice in real Chromium (a fake microphone): "Talk live" sends the page's
// WebRTC offer through POST /api/svc-ceo/voice/connect to a local server speaking the OpenAI Realtime
// protocol (a werift peer); the connection and its oai-events channel open end to end, the model's
// function call runs server-side, and "Hang up" ends the call. No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson } from '../../support/server.ts';
import { startFakeRealtime } from '../../support/fake-realtime.ts';
import { startManager } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, shot, until } from './helpers.ts';

const KEY = 'sk-live-voice-key-41b2';

test('the console talks live over WebRTC through svc, then hangs up', { timeout: 120_000 }, async (t) => {
  buildWeb();
  const fake = await startFakeRealtime(KEY);
  t.after(() => fake.close());
  const manager = await startManager();
  t.after(() => manager.close());
  // plain loopback host candidates (no mDNS names), so the fake peer can reach Chromium's
  const browser = await launch(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', '--disable-features=WebRtcHideLocalIpsWithMdns']);
  t.after(() => browser.close());

  const { page, errors } = await openPage(browser, manager);
  const console_ = page.getByRole('region', { name: 'Executive', exact: true });
  await console_.getByRole('button', { name: 'Send' }).waitFor();
  assert.equal(await console_.getByRole('button', { name: 'Talk live' }).count(), 0, 'no live voice without an endpoint');

  await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { realtime: { baseUrl: fake.baseUrl, apiKey: KEY, voice: 'cedar' } });
  await page.reload();
  await page.waitForSelector('#app[data-ready]');
  await console_.getByRole('button', { name: 'Talk live' }).click();
  await console_.locator('.ceo-voice-status[data-state="connected, events open"]').waitFor({ timeout: 30_000 });
  const call = fake.calls.at(-1)!;
  assert.equal(call.channels[0]?.label, 'oai-events');
  assert.deepEqual(call.session.audio, { output: { voice: 'cedar' } });
  await fake.until(() => call.events.find((e) => e.type === 'session.update'), 'session.update');
  assert.match(await fake.callFunction(call, 'list_pending', {}), /^<untrusted-data>\n\{"pending":\[\]\}/);
  const session = (await getJson(`${manager.url}/api/svc-ceo/state`)).body.voice.realtime.session;
  assert.equal(session.voice, 'cedar');
  await shot(page, 'executive-live-voice');

  await console_.getByRole('button', { name: 'Hang up' }).click();
  await fake.until(() => (call.hungUp ? true : undefined), 'the hang-up');
  await until(async () => (await getJson(`${manager.url}/api/svc-ceo/state`)).body.voice.realtime.session === null, 'no live session');
  await console_.getByRole('button', { name: 'Talk live' }).waitFor();
  assert.ok(!(await page.content()).includes(KEY), 'the page never holds the key');
  assert.deepEqual(errors, []);
});
