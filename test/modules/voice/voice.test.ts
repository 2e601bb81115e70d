// POST /api/voice with the offline engine (Debian's pocketsphinx behind ffmpeg) on speech synthesised in
// the test, and with an OpenAI-compatible endpoint (a local server speaking that protocol: multipart POST
// /v1/audio/transcriptions → {"text"}).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { VOICE_LIMIT_BYTES } from '../../../src/modules/voice/voice.routes.ts';
import { getJson, startServer } from '../../support/server.ts';
import { encode, silence, speak, words } from '../../support/speech.ts';

const post = (url: string, body: Buffer, type: string) => getJson(url, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) });

/** Every word of `sentence` is in the transcript. */
function assertHeard(transcript: string, sentence: string): void {
  const heard = words(transcript);
  const missing = words(sentence).filter((w) => !heard.includes(w));
  assert.deepEqual(missing, [], `"${transcript}" should contain every word of "${sentence}"`);
}

test('the offline engine: speech in wav, webm, ogg and m4a, silence, bad audio, send as a message', { timeout: 120_000 }, async (t) => {
  // the engine's temp dirs go here, to see that none is left behind
  const privateTmp = mkdtempSync(join(tmpdir(), 'svc-voice-test-'));
  const outerTmp = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  t.after(() => (outerTmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = outerTmp)));
  const server = await startAgentServer();
  t.after(() => server.close());
  const url = `${server.url}/api/voice`;

  const kitchen = 'turn on the lights in the kitchen';
  const wav = await post(url, speak(kitchen), 'audio/wav');
  assert.equal(wav.status, 200, JSON.stringify(wav.body));
  assert.equal(wav.body.engine, 'pocketsphinx');
  assertHeard(wav.body.text, kitchen);
  assert.ok(wav.body.durationMs > 0);

  const messages = 'read the last three messages';
  const webm = await post(url, encode(speak(messages), 'webm'), 'audio/webm;codecs=opus');
  assert.equal(webm.status, 200, JSON.stringify(webm.body));
  assertHeard(webm.body.text, messages);
  const m4a = await post(url, encode(speak(kitchen), 'm4a'), 'audio/mp4');
  assertHeard(m4a.body.text, kitchen);

  const session = 'create a new session';
  const sent = await post(`${url}?send=true`, encode(speak(session), 'ogg'), 'audio/ogg');
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assertHeard(sent.body.text, session);
  const deadline = Date.now() + 30_000;
  let history: { role: string; content: string }[] = [];
  while (Date.now() < deadline && !history.some((m) => m.role === 'assistant')) {
    history = (await getJson(`${server.url}/api/messages?sessionId=${sent.body.sent.sessionId}`)).body.messages ?? [];
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(history.find((m) => m.role === 'user')?.content, sent.body.text);
  assert.ok(history.some((m) => m.role === 'assistant'), 'the agent answered the spoken message');

  const quiet = await post(url, silence(2), 'audio/wav');
  assert.deepEqual([quiet.status, quiet.body.error], [422, 'EMPTY_TRANSCRIPT']);
  assert.match(quiet.body.message, /No speech/);
  const garbage = await post(url, Buffer.from('not audio at all'), 'audio/webm');
  assert.deepEqual([garbage.status, garbage.body.error], [422, 'UNREADABLE_AUDIO']);
  assert.deepEqual(readdirSync(privateTmp).filter((name) => name.startsWith('svc-voice-')), [], 'every temp dir was removed');
});

test('a missing offline engine answers 503 saying what to install; engine=endpoint needs baseUrl', async (t) => {
  const server = await startServer({ voiceTools: { pocketsphinx: '/nonexistent/pocketsphinx_continuous' } });
  t.after(() => server.close());
  const missing = await post(`${server.url}/api/voice`, speak('hello'), 'audio/wav');
  assert.deepEqual([missing.status, missing.body.error], [503, 'VOICE_ENGINE_MISSING']);
  assert.match(missing.body.message, /apt-get install pocketsphinx pocketsphinx-en-us ffmpeg/);
  assert.match(missing.body.message, /\/nonexistent\/pocketsphinx_continuous/);

  server.app.services.settings.update({ voice: { engine: 'endpoint' } });
  const unset = await post(`${server.url}/api/voice`, speak('hello'), 'audio/wav');
  assert.deepEqual([unset.status, unset.body.error], [503, 'VOICE_NOT_CONFIGURED']);
  assert.match(unset.body.message, /voice\.baseUrl/);
});

test('a recording over 25 MiB is a 413 with the JSON error body; one of exactly 25 MiB gets past the limit', async (t) => {
  // no engine: a recording that gets past the checks ends in a 503, never in a transcription
  const server = await startServer({ voiceTools: { pocketsphinx: '/nonexistent/pocketsphinx_continuous' } });
  t.after(() => server.close());
  assert.equal(VOICE_LIMIT_BYTES, 25 * 1024 * 1024);
  const over = await post(`${server.url}/api/voice`, Buffer.alloc(VOICE_LIMIT_BYTES + 1), 'audio/wav');
  assert.equal(over.status, 413);
  assert.deepEqual(Object.keys(over.body).sort(), ['error', 'message']);
  assert.equal(over.body.error, 'PAYLOAD_TOO_LARGE');
  assert.equal(typeof over.body.message, 'string');
  const atLimit = await post(`${server.url}/api/voice`, Buffer.alloc(VOICE_LIMIT_BYTES), 'audio/wav');
  assert.deepEqual([atLimit.status, atLimit.body.error], [503, 'VOICE_ENGINE_MISSING']);
});

test('a content type named like a property every object inherits is refused by the audio-type check (415)', async (t) => {
  const server = await startServer({ voiceTools: { pocketsphinx: '/nonexistent/pocketsphinx_continuous' } });
  t.after(() => server.close());
  for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    const answer = await post(`${server.url}/api/voice`, Buffer.from('RIFF not really audio'), type);
    assert.deepEqual([answer.status, answer.body.error], [415, 'UNSUPPORTED_MEDIA_TYPE'], type);
    // the route's own refusal, which names the audio types: Fastify also refuses a type without a
    // slash, but only after the check has let it through, and with a message about JSON
    assert.match(answer.body.message, new RegExp(`audio/webm.*not '${type.toLowerCase()}'`), type);
  }
});

async function fakeWhisper(answer: string) {
  const seen: { auth?: string; model?: string; language?: string; filename?: string; type?: string; size: number }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      res.writeHead(404).end();
      return;
    }
    const form = await new Request('http://x', { method: 'POST', headers: { 'content-type': req.headers['content-type']! }, body: Buffer.concat(chunks) }).formData();
    const file = form.get('file') as File;
    const bytes = Buffer.from(await file.arrayBuffer());
    seen.push({ auth: req.headers.authorization, model: String(form.get('model')), language: form.get('language') as string | undefined, filename: file.name, type: file.type, size: bytes.length });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: bytes.includes('SPEECH') ? ` ${answer} ` : '' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('the endpoint engine: used when voice.baseUrl is set; its key, empty answers, types, unreachable', { timeout: 60_000 }, async (t) => {
  const spoken = 'turn on the lights scenario:text';
  const whisper = await fakeWhisper(spoken);
  t.after(() => whisper.close());
  const server = await startServer();
  t.after(() => server.close());
  const url = `${server.url}/api/voice`;
  // what the fake "hears" is the marker in the bytes
  const audio = (marker: string) => Buffer.concat([speak('hello').subarray(0, 44), Buffer.from(marker), Buffer.alloc(3200)]);

  server.app.services.settings.update({ voice: { baseUrl: whisper.url, apiKey: 'sk-voice-key', language: 'en' } });
  const heard = await post(url, audio('SPEECH'), 'audio/wav');
  assert.equal(heard.status, 200, JSON.stringify(heard.body));
  assert.equal(heard.body.text, spoken);
  assert.equal(heard.body.engine, 'openai-compatible:whisper-1');
  assert.equal(typeof heard.body.durationMs, 'number');
  assert.equal(heard.body.sent, undefined);
  assert.deepEqual(whisper.seen[0], { auth: 'Bearer sk-voice-key', model: 'whisper-1', language: 'en', filename: 'voice.wav', type: 'audio/wav', size: audio('SPEECH').length });

  const webm = await post(url, audio('SPEECH'), 'audio/webm;codecs=opus');
  assert.equal(whisper.seen[1]?.filename, 'voice.webm');
  assert.equal(webm.body.text, spoken);
  const quiet = await post(url, audio('quiet'), 'audio/ogg');
  assert.deepEqual([quiet.status, quiet.body.error], [422, 'EMPTY_TRANSCRIPT']);
  assert.equal((await post(url, Buffer.from('hello'), 'text/plain')).status, 415);
  assert.equal((await post(url, Buffer.alloc(0), 'audio/wav')).status, 400);
  assert.equal((await getJson(`${server.url}/api/settings`)).body.voice.apiKey, '***');

  // engine=offline ignores the endpoint
  server.app.services.settings.update({ voice: { engine: 'offline' } });
  const offline = await post(url, speak('stop the current task'), 'audio/wav');
  assert.equal(offline.body.engine, 'pocketsphinx');
  assert.equal(whisper.seen.length, 3);

  server.app.services.settings.update({ voice: { engine: 'auto', baseUrl: 'http://127.0.0.1:1/v1' } });
  const down = await post(url, audio('SPEECH'), 'audio/wav');
  assert.deepEqual([down.status, down.body.error], [502, 'TRANSCRIPTION_FAILED']);
});
