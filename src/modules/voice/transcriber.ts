// Speech to text through an OpenAI-compatible endpoint: multipart POST <baseUrl>/audio/transcriptions
// with `file`, `model` (and `language`), answered with {"text": "..."}.
import { AppError } from '../../core/errors.ts';
import type { VoiceSettings } from './settings.ts';

export const TRANSCRIBE_TIMEOUT_MS = 120_000;

export async function transcribeOpenAi(settings: VoiceSettings, audio: Buffer, mime: string, filename: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(audio)], { type: mime }), filename);
  form.set('model', settings.model);
  form.set('response_format', 'json');
  if (settings.language) form.set('language', settings.language);
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body: form,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      signal: AbortSignal.timeout(TRANSCRIBE_TIMEOUT_MS),
    });
  } catch (err) {
    throw new AppError(502, 'TRANSCRIPTION_FAILED', `the transcription endpoint ${url} is unreachable (${(err as Error).message}); check voice.baseUrl`);
  }
  const body = await response.text();
  if (!response.ok) {
    throw new AppError(502, 'TRANSCRIPTION_FAILED', `the transcription endpoint answered HTTP ${response.status}: ${body.slice(0, 200)}; check voice.baseUrl, voice.model and voice.apiKey`);
  }
  try {
    const text = (JSON.parse(body) as { text?: unknown }).text;
    if (typeof text === 'string') return text.trim();
  } catch {
    // some servers answer text/plain whatever response_format says
    return body.trim();
  }
  throw new AppError(502, 'TRANSCRIPTION_FAILED', 'the transcription endpoint answered without a `text` field');
}
