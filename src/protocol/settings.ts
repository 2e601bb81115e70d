// A settings section: the schema, defaults and secret keys of one part of the settings document
// (`agent`, `network`, `vision`, …). Each owner declares its own section; the server composes them
// into the one document of GET/PUT /api/settings (src/modules/settings/settings.model.ts).
import type { z } from 'zod';

/** What GET /api/settings shows instead of a secret that is set. */
export const REDACTED = '***';

export interface SettingsSection<S extends z.ZodType = z.ZodType> {
  schema: S;
  defaults: z.output<S>;
  /** Keys of this section whose values are secret (a dotted path reaches into an object, e.g. `embeddings.apiKey`): a string, or a map whose values are all secret. */
  secrets: readonly string[];
}

export function settingsSection<S extends z.ZodType>(schema: S, defaults: z.output<S>, secrets: readonly string[] = []): SettingsSection<S> {
  return { schema, defaults, secrets };
}
