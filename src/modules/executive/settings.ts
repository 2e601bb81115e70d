// The executive's settings (GET|PUT /api/svc-ceo/settings): which provider CLI and model it runs, the
// executable and extra environment (values write-only: API keys live there), kept in its own table.
import { z } from 'zod';
import { PROVIDER_IDS, PROVIDERS } from '../../agent/providers/registry.ts';
import { voiceSettings } from '../voice/index.ts';
import { httpUrlOrEmptySetting } from '../../protocol/settings-url.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

/** The realtime voice endpoint (OpenAI's Realtime API over WebRTC, or one speaking it); the key never leaves svc. */
export const RealtimeSettingsSchema = lazySchema(() => z.object({
  /** The API's base URL, e.g. https://api.openai.com/v1; '' turns realtime voice off. */
  baseUrl: httpUrlOrEmptySetting('https://api.openai.com/v1'),
  apiKey: z.string().max(10_000),
  model: z.string().min(1).max(200),
  voice: z.string().min(1).max(100),
}));
export type RealtimeSettings = z.infer<typeof RealtimeSettingsSchema>;
const DEFAULT_REALTIME: RealtimeSettings = { baseUrl: '', apiKey: '', model: 'gpt-realtime', voice: 'marin' };

export const CeoSettingsSchema = lazySchema(() => z.object({
  provider: z.enum(PROVIDER_IDS),
  model: z.string().max(200),
  /** The CLI's path; empty: the server's own setting for that provider, else its name on PATH. */
  executable: z.string().max(4096),
  /** Extra environment of the executive's runs (e.g. an API key): values are never shown again. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(10_000)),
  /** Push-to-talk's transcription engine on the manager (the voice section's fields; apiKey write-only). */
  voice: voiceSettings.schema,
  /** Realtime voice over WebRTC (apiKey write-only). */
  realtime: RealtimeSettingsSchema,
}));
export type CeoSettings = z.infer<typeof CeoSettingsSchema>;

export const DEFAULT_CEO_SETTINGS: CeoSettings = { provider: 'claude', model: '', executable: '', env: {}, voice: voiceSettings.defaults, realtime: DEFAULT_REALTIME };

/** The providers the executive can run on: its tools reach the CLI as an MCP server. */
export const executiveProviders = () => PROVIDERS.filter((p) => p.supports.mcp);
const executiveProviderIds = () => executiveProviders().map((p) => p.id);

/** A patch: fields given replace; an env value of null removes that variable. */
export const CeoSettingsPatchSchema = lazySchema(() => z.strictObject({
  provider: z
    .enum(PROVIDER_IDS)
    .refine((id) => executiveProviderIds().includes(id), { error: () => `the executive's tools reach its CLI as an MCP server, which this provider cannot take: choose ${executiveProviderIds().join(', ')}` })
    .optional(),
  model: z.string().max(200).optional(),
  executable: z.string().max(4096).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(10_000).nullable()).optional(),
  voice: voiceSettings.schema.partial().optional(),
  realtime: RealtimeSettingsSchema.partial().optional(),
}));

export function applySettingsPatch(current: CeoSettings, patch: z.infer<typeof CeoSettingsPatchSchema>): CeoSettings {
  const env = { ...current.env };
  for (const [k, v] of Object.entries(patch.env ?? {})) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  return {
    provider: patch.provider ?? current.provider,
    model: patch.model ?? current.model,
    executable: patch.executable ?? current.executable,
    env,
    voice: { ...current.voice, ...patch.voice },
    realtime: { ...current.realtime, ...patch.realtime },
  };
}

/** What GET answers: env values masked. */
export const maskSettings = (s: CeoSettings): CeoSettings => ({
  ...s,
  env: Object.fromEntries(Object.keys(s.env).map((k) => [k, '***'])),
  voice: { ...s.voice, apiKey: s.voice.apiKey ? '***' : '' },
  realtime: { ...s.realtime, apiKey: s.realtime.apiKey ? '***' : '' },
});
