// The `voice` settings section: the speech-to-text engine behind POST /api/voice and channel voice notes.
// Two engines: the offline one (Debian's pocketsphinx, see offline.ts) and any OpenAI-compatible
// /audio/transcriptions endpoint (a local whisper server such as whisper.cpp's or faster-whisper's, or a
// hosted API). `apiKey` is a secret.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlOrEmptySetting } from '../../protocol/settings-url.ts';

/** The section's schema, built on first use (src/protocol/settings.ts). */
const voiceSettingsSchema = () =>
  z
    .strictObject({
      /** auto: the endpoint when baseUrl is set, else offline; offline: pocketsphinx; endpoint: baseUrl only. */
      engine: z.enum(['auto', 'offline', 'endpoint']).meta({
        title: 'Engine',
        description: 'What turns speech into text.',
        'x-enumLabels': { auto: 'Automatic: the endpoint when one is set, else offline', offline: 'Offline (pocketsphinx, US English)', endpoint: 'The transcription endpoint only' },
      }),
      /** The endpoint's base (…/v1); '' = no endpoint. */
      baseUrl: httpUrlOrEmptySetting('http://127.0.0.1:8080/v1').meta({
        title: 'Transcription endpoint',
        description: 'OpenAI-compatible …/v1 (a local whisper server, or https://api.openai.com/v1). Empty: the offline engine.',
      }),
      /** The model the endpoint should use (whisper-1 for OpenAI; local servers often ignore it). */
      model: z.string().trim().min(1).max(200).meta({ title: 'Model', description: 'The model the endpoint should use (whisper-1 for OpenAI; local servers often ignore it).' }),
      /** Bearer token for the endpoint; '' sends none. Secret. */
      apiKey: z.string().max(4096).meta({ title: 'API key', description: 'For the endpoint; empty sends none. Secret: never shown again once saved.', writeOnly: true }),
      /** ISO-639-1 language hint for the endpoint, e.g. en; '' = let it detect it. The offline model is US English. */
      language: z
        .string()
        .trim()
        .regex(/^([a-z]{2})?$/, 'a two-letter language code such as en, or empty')
        .meta({ title: 'Language', description: 'For the endpoint: two letters such as en; empty lets it detect the language.' }),
    })
    .meta({ title: 'Voice input', description: 'Speech to text for the microphone button and for voice notes from chat channels.' });
export type VoiceSettings = z.infer<ReturnType<typeof voiceSettingsSchema>>;

export const voiceSettings = settingsSection(voiceSettingsSchema, { engine: 'auto', baseUrl: '', model: 'whisper-1', apiKey: '', language: '' });

/** The engine `settings` pick. */
export function engineOf(settings: VoiceSettings): 'offline' | 'endpoint' {
  if (settings.engine !== 'auto') return settings.engine;
  return settings.baseUrl ? 'endpoint' : 'offline';
}
