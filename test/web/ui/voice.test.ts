// The composer's microphone in real Chromium (a fake audio device): hold to record, release, and the
// transcript from POST /api/voice lands in the box: from a local server speaking the OpenAI transcription
// protocol, and from the offline engine with no settings (the fake device playing a spoken clip).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../support/server.ts';
import { speak, words } from '../../support/speech.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

test('web UI: hold the microphone, release, the words appear in the message box', { timeout: 90_000 }, async (t) => {
  const heard: { type: string; size: number }[] = [];
  const whisper = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = await new Request('http://x', { method: 'POST', headers: { 'content-type': req.headers['content-type']! }, body: Buffer.concat(chunks) }).formData();
    const file = form.get('file') as File;
    heard.push({ type: file.type, size: file.size });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'hello from the microphone' }));
  });
  await new Promise<void>((resolve) => whisper.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((r) => whisper.close(() => r())));
  buildWeb();
  const server = await startServer();
  t.after(() => server.close());
  server.app.services.settings.update({ voice: { baseUrl: `http://127.0.0.1:${(whisper.address() as AddressInfo).port}/v1` } });
  const browser = await launch(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
  t.after(() => browser.close());
  const { page, context, errors } = await openPage(browser, server);
  await context.grantPermissions(['microphone'], { origin: server.url });

  const box = page.locator('#composer-input');
  await box.fill('Note:');
  const mic = page.getByRole('button', { name: 'Hold to record a voice message' });
  await mic.hover();
  await page.mouse.down();
  await until(() => page.locator('.mic-btn[data-state="recording"]').count(), 'recording to start');
  await shot(page, 'voice-recording');
  await page.mouse.up();
  await until(async () => (await box.inputValue()) === 'Note: hello from the microphone', 'the transcript in the box');
  assert.equal(heard.length, 1);
  assert.match(heard[0]!.type, /^audio\/webm/);
  assert.ok(heard[0]!.size > 0);
  assert.equal(await page.locator('.mic-btn').getAttribute('data-state'), 'idle');
  assert.deepEqual(realErrors(errors), []);
});

test('web UI with no voice settings: the offline engine transcribes what the microphone hears', { timeout: 90_000 }, async (t) => {
  // the fake microphone plays a spoken clip once (%noloop), then silence
  const dir = mkdtempSync(join(tmpdir(), 'svc-ui-voice-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const clip = join(dir, 'spoken.wav');
  const sentence = 'turn on the lights in the kitchen';
  writeFileSync(clip, speak(sentence));
  buildWeb();
  const server = await startServer();
  t.after(() => server.close());
  const browser = await launch(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${clip}%noloop`]);
  t.after(() => browser.close());
  const { page, context, errors } = await openPage(browser, server);
  await context.grantPermissions(['microphone'], { origin: server.url });

  const box = page.locator('#composer-input');
  await page.getByRole('button', { name: 'Hold to record a voice message' }).hover();
  await page.mouse.down();
  await until(() => page.locator('.mic-btn[data-state="recording"]').count(), 'recording to start');
  // speech takes as long as it takes: hold for the clip's length and a margin
  await new Promise((r) => setTimeout(r, 3500));
  await page.mouse.up();
  await until(async () => (await box.inputValue()) !== '', 'the transcript in the box', 30_000);
  const heard = words(await box.inputValue());
  assert.deepEqual(['lights', 'kitchen'].filter((w) => !heard.includes(w)), [], `heard "${await box.inputValue()}"`);
  assert.deepEqual(realErrors(errors), []);
});
