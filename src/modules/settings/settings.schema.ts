// User settings: one schema, defaults, validation of every change, and redaction of secrets.
// Stored in SQLite (one JSON document per section). A PUT is a JSON merge patch (RFC 7396):
// objects merge, arrays and scalars replace, `null` resets a field to its default (or removes a
// key of a map). The merged result is validated as a whole before anything is saved.
import { z } from 'zod';
import { ApiError } from '../http/errors.ts';
import type { ProviderId } from '../agent/providers/types.ts';
import { DEFAULT_VISION_SETTINGS, VISION_SECRET_PATHS, visionSettingsSchema } from '../skills/vision-click/settings.ts';

export const PROVIDER_IDS = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'custom'] as const satisfies readonly ProviderId[];

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const settingsSchema = z.strictObject({
  agent: z.strictObject({
    /** The provider CLI that runs the agent. */
    provider: z.enum(PROVIDER_IDS),
    /** Model name passed to the provider; '' = the CLI's own default. */
    model: z.string().max(200),
    /** Reasoning effort where the provider supports it; '' = default. */
    effort: z.string().max(40),
    /** Providers tried in order when the active one fails (rate limit, overload, crash, missing). */
    fallback: z.array(z.enum(PROVIDER_IDS)).max(PROVIDER_IDS.length),
    /** Let the CLI run tools without asking (unattended runs cannot answer prompts). */
    autoApprove: z.boolean(),
    /** Working directory of runs; '' = the directory `svc serve` was started in. */
    workingDir: z.string().max(4096),
    /** Extra instructions passed as the provider's system prompt. */
    systemPrompt: z.string().max(50_000),
    /** Kill a run that printed nothing for this long. */
    idleTimeoutSec: z.number().int().min(1).max(86_400),
    /** Kill a run that lasts longer than this. */
    maxRunSec: z.number().int().min(10).max(7 * 86_400),
    /** Retries of the same provider after a transient failure, before falling back. */
    retries: z.number().int().min(0).max(5),
    /** The `custom` provider's command, one argument per item; `{prompt}` `{model}` `{cwd}` are filled in. */
    customCommand: z.array(z.string().max(4096)).max(64),
    /** Path of a provider's executable when it is not the usual command name on PATH. */
    executables: z.partialRecord(z.enum(PROVIDER_IDS), z.string().min(1).max(4096)),
    /** Extra environment variables for provider CLIs (API keys and the like). Secret. */
    env: z.record(envName, z.string().max(8192)),
  }),
  network: z.strictObject({
    /** Accept requests from private-network addresses without the bearer token. */
    trustedLanBypass: z.boolean(),
    /** Host names (besides IP literals and localhost) this server answers to. */
    allowedHosts: z.array(z.string().min(1).max(253)).max(32),
    /** Browser origins (besides the server's own) allowed to call the API. */
    allowedOrigins: z.array(z.string().url()).max(32),
  }),
  /** The vision-click skill: which locator finds targets, and the model it may ask. */
  vision: visionSettingsSchema,
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingsSection = keyof Settings;

export const DEFAULT_SETTINGS: Settings = {
  agent: {
    provider: 'claude',
    model: '',
    effort: '',
    fallback: [],
    autoApprove: true,
    workingDir: '',
    systemPrompt: '',
    idleTimeoutSec: 600,
    maxRunSec: 3600,
    retries: 1,
    customCommand: [],
    executables: {},
    env: {},
  },
  network: { trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] },
  vision: DEFAULT_VISION_SETTINGS,
};

/** Paths of secret values: a string, or a map whose values are all secret. */
const SECRET_PATHS = ['agent.env', ...VISION_SECRET_PATHS] as const;
export const REDACTED = '***';

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7396 merge with defaults for `null`; `REDACTED` placeholders keep the current secret. */
export function mergePatch(current: Json, patch: Json, defaults: Json): Json {
  if (!isObject(patch)) return patch === null ? defaults : patch;
  if (!isObject(current)) return patch;
  const out: Record<string, Json> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === REDACTED && typeof current[key] === 'string') continue;
    if (value === null) {
      if (isObject(defaults) && key in defaults) out[key] = defaults[key];
      else delete out[key];
      continue;
    }
    out[key] = mergePatch(current[key], value, isObject(defaults) ? defaults[key] : undefined);
  }
  return out;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Validates a whole settings object; the error names the first bad field. */
export function validateSettings(candidate: Json): Settings {
  const result = settingsSchema.safeParse(candidate);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const field = fieldPath(unknownKey ? [...issue.path, unknownKey] : issue.path) || '(root)';
  const message = unknownKey ? `unknown setting '${field}'` : `${field}: ${issue.message}`;
  throw new ApiError(400, 'INVALID_SETTING', message, { field });
}

/** Fills sections missing from storage (or added in a later version) with defaults. */
export function withDefaults(stored: Record<string, unknown>): Json {
  const out: Record<string, Json> = {};
  for (const [section, defaults] of Object.entries(DEFAULT_SETTINGS)) {
    out[section] = mergePatch(defaults, stored[section] ?? {}, defaults);
  }
  return out;
}

export function redactSettings(settings: Settings): Json {
  const copy = structuredClone(settings) as Record<string, Json>;
  for (const path of SECRET_PATHS) {
    const [section, key] = path.split('.') as [string, string];
    const holder = copy[section];
    if (!isObject(holder)) continue;
    const value = holder[key];
    if (typeof value === 'string') holder[key] = value ? REDACTED : '';
    else if (isObject(value)) {
      holder[key] = Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
    }
  }
  return copy;
}
