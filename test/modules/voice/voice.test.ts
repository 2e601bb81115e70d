// POST /api/voice against a local server speaking the OpenAI transcription protocol (multipart POST
// /v1/audio/transcriptions → {"text"}). No offline engine is installable here, so this fake stands in for
// a whisper server; it answers a fixed sentence for audio with a marker and nothing for "silence".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAgentServer } from '../../support/agent.ts';
import { getJson } from '../../support/server.ts';

const SPOKEN = 'turn on the lights scenario:text';

/** A WAV file: 16 kHz mono 16-bit, `marker` in the samples (what the fake "hears"). */
function wav(marker: string): Buffer {
  const data = Buffer.concat([Buffer.from(marker), Buffer.alloc(3200)]);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16000, 24);
  head.writeUInt32LE(32000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

async function fakeWhisper() {
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
    res.end(JSON.stringify({ text: bytes.includes('SPEECH') ? ` ${SPOKEN} ` : '' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const post = (url: string, body: Buffer, type: string) => getJson(url, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(body) });

test('POST /api/voice: transcript, send as a message, empty speech, types and setup errors', { timeout: 60_000 }, async (t) => {
  const whisper = await fakeWhisper();
  t.after(() => whisper.close());
  const server = await startAgentServer();
  t.after(() => server.close());

  const unset = await post(`${server.url}/api/voice`, wav('SPEECH'), 'audio/wav');
  assert.deepEqual([unset.status, unset.body.error], [503, 'VOICE_NOT_CONFIGURED']);
  assert.match(unset.body.message, /voice\.baseUrl/);

  server.app.services.settings.update({ voice: { baseUrl: whisper.url, apiKey: 'sk-voice-key', language: 'en' } });
  const heard = await post(`${server.url}/api/voice`, wav('SPEECH'), 'audio/wav');
  assert.equal(heard.status, 200, JSON.stringify(heard.body));
  assert.equal(heard.body.text, SPOKEN);
  assert.equal(heard.body.engine, 'openai-compatible:whisper-1');
  assert.equal(typeof heard.body.durationMs, 'number');
  assert.equal(heard.body.sent, undefined);
  assert.deepEqual(whisper.seen[0], { auth: 'Bearer sk-voice-key', model: 'whisper-1', language: 'en', filename: 'voice.wav', type: 'audio/wav', size: wav('SPEECH').length });

  const sent = await post(`${server.url}/api/voice?send=true`, wav('SPEECH'), 'audio/webm;codecs=opus');
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.match(sent.body.sent.requestId, /^req/);
  const deadline = Date.now() + 15_000;
  let messages: { role: string; content: string }[] = [];
  while (Date.now() < deadline && !messages.some((m) => m.role === 'assistant')) {
    messages = (await getJson(`${server.url}/api/messages?sessionId=${sent.body.sent.sessionId}`)).body.messages ?? [];
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(messages.find((m) => m.role === 'user')?.content, SPOKEN);
  assert.ok(messages.some((m) => m.role === 'assistant'), 'the agent answered the spoken message');

  const silence = await post(`${server.url}/api/voice`, wav('quiet'), 'audio/ogg');
  assert.deepEqual([silence.status, silence.body.error], [422, 'EMPTY_TRANSCRIPT']);
  const text = await post(`${server.url}/api/voice`, Buffer.from('hello'), 'text/plain');
  assert.equal(text.status, 415);
  const empty = await post(`${server.url}/api/voice`, Buffer.alloc(0), 'audio/wav');
  assert.equal(empty.status, 400);
  assert.equal((await getJson(`${server.url}/api/settings`)).body.voice.apiKey, '***');

  server.app.services.settings.update({ voice: { baseUrl: 'http://127.0.0.1:1/v1' } });
  const down = await post(`${server.url}/api/voice`, wav('SPEECH'), 'audio/wav');
  assert.deepEqual([down.status, down.body.error], [502, 'TRANSCRIPTION_FAILED']);
});
