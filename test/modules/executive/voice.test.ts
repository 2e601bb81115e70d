// Push-to-talk on the manager: the executive's own voice settings (engine, key write-only) drive the voice
// module's transcription at /api/svc-ceo/voice/transcribe, against a local server speaking the OpenAI
// transcription protocol; the text is then a normal executive message (the browser speaks the answer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager } from '../dashboard/helpers.ts';

test('push-to-talk transcribes with the executive\'s voice settings; the key is write-only', async (t) => {
  const seen: string[] = [];
  const whisper = createServer(async (req, res) => {
    for await (const _ of req);
    seen.push(String(req.headers.authorization));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: ' 인스턴스 A 상태 알려줘 ' }));
  });
  await new Promise<void>((r) => whisper.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => whisper.close(() => r())));
  const manager = await startManager();
  t.after(() => manager.close());
  const url = `${manager.url}/api/svc-ceo/voice/transcribe`;
  const audio = { method: 'POST', headers: { 'content-type': 'audio/webm' }, body: new Uint8Array(Buffer.from('webm-bytes')) };

  // the offline engine is installed here, so push-to-talk works with no settings
  const realtime = { configured: false, session: null };
  assert.deepEqual((await getJson(`${manager.url}/api/svc-ceo/state`)).body.voice, { pushToTalk: true, realtime });
  assert.equal((await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { voice: { engine: 'endpoint' } })).status, 200);
  assert.deepEqual((await getJson(`${manager.url}/api/svc-ceo/state`)).body.voice, { pushToTalk: false, realtime });
  const unset = await getJson(url, audio);
  assert.deepEqual([unset.status, unset.body.error], [503, 'VOICE_NOT_CONFIGURED']);
  const put = await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { voice: { baseUrl: `http://127.0.0.1:${(whisper.address() as AddressInfo).port}/v1`, apiKey: 'sk-voice-secret' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.voice.apiKey, '***');
  assert.equal(put.body.voice.model, 'whisper-1', 'the other fields keep their defaults');
  assert.ok(!JSON.stringify((await getJson(`${manager.url}/api/svc-ceo/settings`)).body).includes('sk-voice-secret'));

  assert.equal((await getJson(`${manager.url}/api/svc-ceo/state`)).body.voice.pushToTalk, true);
  const heard = await getJson(url, audio);
  assert.equal(heard.status, 200, JSON.stringify(heard.body));
  assert.equal(heard.body.text, '인스턴스 A 상태 알려줘');
  assert.deepEqual(seen, ['Bearer sk-voice-secret']);
  assert.equal((await getJson(`${url}?send=true`, audio)).status, 400, 'it only transcribes');
  const audit = (await getJson(`${manager.url}/api/svc-ceo/audit?kind=policy`)).body.audit;
  assert.ok(!JSON.stringify(audit).includes('sk-voice-secret'), 'the audit names settings, never values');
});
