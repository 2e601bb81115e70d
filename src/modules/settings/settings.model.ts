// The settings document: the sections the server composes (each declared by its owner), their
// defaults, validation of every change, and redaction of secrets. Stored in SQLite (one JSON
// document per section). A PUT is a JSON merge patch (RFC 7396): objects merge, arrays and scalars
// replace, `null` resets a field to its default (or removes a key of a map). The merged result is
// validated as a whole before anything is saved. Pure.
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { REDACTED, sectionJsonSchema, settingsSection, type SettingsSection } from '../../protocol/settings.ts';
import type { SettingSchema } from '../../protocol/settings-form.ts';

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `network` section: who may call the server besides this machine (see the guard in src/http). */
export const networkSettings = settingsSection(
  () =>
    z
      .strictObject({
        /** Accept requests from private-network addresses without the bearer token. */
        trustedLanBypass: z.boolean().meta({ title: 'Trust the local network', description: 'Accept private-network requests without the access token.' }),
        /** Host names (besides IP literals and localhost) this server answers to. */
        allowedHosts: z
          .array(z.string().min(1).max(253))
          .max(32)
          .meta({ title: 'Allowed host names', description: 'Besides IP addresses and localhost. One per line.' }),
        /** Browser origins (besides the server's own) allowed to call the API. */
        allowedOrigins: z
          .array(z.string().url())
          .max(32)
          .meta({ title: 'Allowed browser origins', description: "Besides this server's own, e.g. https://example.com. One per line." }),
      })
      .meta({ title: 'Network', description: 'Who may call this server besides this machine.' }),
  { trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] },
);

export type Sections = Record<string, SettingsSection>;
export type SettingsOf<T extends Sections> = { [K in keyof T]: z.output<T[K]['schema']> };

/** The settings document made of `sections`: its schema, defaults, and the pure operations on it. */
export class SettingsModel<T extends Sections> {
  readonly defaults: SettingsOf<T>;
  private whole?: z.ZodType<SettingsOf<T>>;
  private json?: SettingSchema;

  constructor(readonly sections: T) {
    this.defaults = Object.fromEntries(Object.entries(sections).map(([k, s]) => [k, s.defaults])) as SettingsOf<T>;
  }

  /** The whole document's schema (every section's, built on first use). */
  get schema(): z.ZodType<SettingsOf<T>> {
    this.whole ??= z.strictObject(Object.fromEntries(Object.entries(this.sections).map(([k, s]) => [k, s.schema]))) as unknown as z.ZodType<SettingsOf<T>>;
    return this.whole;
  }

  /**
   * The document as JSON Schema (GET /api/settings/schema): each section's schema in order, with its
   * title, and each field's label and help, bounds, choices and secrets (`writeOnly`).
   */
  jsonSchema(): SettingSchema {
    this.json ??= {
      type: 'object',
      title: 'Settings',
      properties: Object.fromEntries(Object.entries(this.sections).map(([name, section]) => [name, sectionJsonSchema(section.schema)])),
      required: Object.keys(this.sections),
      additionalProperties: false,
    };
    return this.json;
  }

  /** Validates a whole settings object; the error names the first bad field. */
  validate(candidate: Json): SettingsOf<T> {
    const result = this.schema.safeParse(candidate);
    if (result.success) return result.data;
    throw invalidSetting(result.error.issues[0]!, []);
  }

  /**
   * The settings from what storage holds: each stored section merged over its defaults and validated, every
   * other section its defaults, which are valid by construction (test/modules/settings checks each). So a
   * start builds the schemas of the sections someone changed, and none on settings never changed.
   */
  fromStorage(stored: Record<string, unknown>): SettingsOf<T> {
    const out: Record<string, unknown> = {};
    for (const [name, section] of Object.entries(this.sections)) {
      if (stored[name] === undefined) {
        out[name] = structuredClone(section.defaults);
        continue;
      }
      const result = section.schema.safeParse(mergePatch(section.defaults as Json, stored[name] as Json, section.defaults as Json));
      if (!result.success) throw invalidSetting(result.error.issues[0]!, [name]);
      out[name] = result.data;
    }
    return out as SettingsOf<T>;
  }

  /** Every secret value that is set (for redaction from traces and logs). */
  secretValues(settings: SettingsOf<T>): string[] {
    const values: string[] = [];
    for (const [name, section] of Object.entries(this.sections)) {
      for (const secret of section.secrets) {
        const { holder, key } = secretSlot((settings as Record<string, Json>)[name], secret);
        if (!holder) continue;
        const value = holder[key];
        if (typeof value === 'string' && value) values.push(value);
        else if (isObject(value)) values.push(...Object.values(value).filter((v): v is string => typeof v === 'string' && v !== ''));
      }
    }
    return values;
  }

  /** The names of the fields that differ between two documents (a section's top-level keys, a secret by its path); never values. */
  changedFields(before: SettingsOf<T>, after: SettingsOf<T>): { fields: string[]; secrets: string[] } {
    const fields: string[] = [];
    const secrets: string[] = [];
    const differ = (a: Json, b: Json) => JSON.stringify(a) !== JSON.stringify(b);
    for (const [name, section] of Object.entries(this.sections)) {
      const a = (before as Record<string, Json>)[name];
      const b = (after as Record<string, Json>)[name];
      if (!differ(a, b)) continue;
      for (const secret of section.secrets) {
        const x = secretSlot(a, secret);
        const y = secretSlot(b, secret);
        if (differ(x.holder?.[x.key], y.holder?.[y.key])) secrets.push(`${name}.${secret}`);
      }
      if (isObject(a) && isObject(b)) {
        for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) if (differ(a[key], b[key])) fields.push(`${name}.${key}`);
      } else fields.push(name);
    }
    return { fields, secrets };
  }

  /** A copy with every secret that is set shown as `***` (and the names of secret maps kept). */
  redact(settings: Partial<SettingsOf<T>>): Record<string, Json> {
    const copy = structuredClone(settings) as Record<string, Json>;
    for (const [name, section] of Object.entries(this.sections)) {
      for (const secret of section.secrets) {
        const { holder, key } = secretSlot(copy[name], secret);
        if (!holder) continue;
        const value = holder[key];
        if (typeof value === 'string') holder[key] = value ? REDACTED : '';
        else if (isObject(value)) holder[key] = Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
      }
    }
    return copy;
  }
}

/** The error of a refused setting, naming its field (`section.key`) from the first issue zod found under `at`. */
function invalidSetting(issue: z.core.$ZodIssue, at: string[]): AppError {
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const field = [...at, ...issue.path.map(String), ...(unknownKey ? [unknownKey] : [])].join('.') || '(root)';
  // a map's key that breaks its rule: the rule's own message, not zod's "Invalid key in record"
  const detail = issue.code === 'invalid_key' && issue.issues[0] ? issue.issues[0].message : issue.message;
  const message = unknownKey ? `unknown setting '${field}'` : `${field}: ${detail}`;
  return new AppError(400, 'INVALID_SETTING', message, { field });
}

/** The object holding a secret named by a dotted path inside a section (`env`, `embeddings.apiKey`). */
function secretSlot(section: Json, path: string): { holder?: Record<string, Json>; key: string } {
  const keys = path.split('.');
  const key = keys.pop()!;
  let holder: Json = section;
  for (const k of keys) holder = isObject(holder) ? holder[k] : undefined;
  return { holder: isObject(holder) ? holder : undefined, key };
}

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
