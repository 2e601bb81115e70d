// The `voice` settings section: the speech-to-text engine behind POST /api/voice and channel voice notes.
// One engine today: any OpenAI-compatible /audio/transcriptions endpoint (a local whisper server such
// as whisper.cpp's or faster-whisper's, or a hosted API). `apiKey` is a secret.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlOrEmptySetting } from '../../protocol/settings-url.ts';

export const voiceSettingsSchema = z.strictObject({
  /** The endpoint's base (…/v1); '' = voice input is off. */
  baseUrl: httpUrlOrEmptySetting('http://127.0.0.1:8080/v1'),
  /** The model the endpoint should use (whisper-1 for OpenAI; local servers often ignore it). */
  model: z.string().trim().min(1).max(200),
  /** Bearer token for the endpoint; '' sends none. Secret. */
  apiKey: z.string().max(4096),
  /** ISO-639-1 language hint, e.g. en; '' = let the engine detect it. */
  language: z.string().trim().regex(/^([a-z]{2})?$/, 'a two-letter language code such as en, or empty'),
});
export type VoiceSettings = z.infer<typeof voiceSettingsSchema>;

export const voiceSettings = settingsSection(voiceSettingsSchema, { baseUrl: '', model: 'whisper-1', apiKey: '', language: '' }, ['apiKey']);
