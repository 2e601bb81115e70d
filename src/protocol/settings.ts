// A settings section: the schema, defaults and secret keys of one part of the settings document
// (`agent`, `network`, `vision`, …). Each owner declares its own section; the server composes them
// into the one document of GET/PUT /api/settings (src/modules/settings/settings.model.ts).
//
// The schema is the one definition of a section: every field carries its label and help as zod
// metadata (`.meta({ title, description })`), a fixed choice is a `z.enum` (its values' names in
// `x-enumLabels`), and a secret is marked `writeOnly: true`. GET /api/settings/schema publishes it as
// JSON Schema, and the settings page is made from that (src/protocol/settings-form.ts).
import { z } from 'zod';
import { REDACTED, type SettingSchema } from './settings-form.ts';

export { REDACTED };

export interface SettingsSection<S extends z.ZodType = z.ZodType> {
  /** Built on first use: a start validates only the sections the settings table holds (settings.model.ts). */
  readonly schema: S;
  defaults: z.output<S>;
  /** Keys of this section whose values are secret (a dotted path reaches into an object, e.g. `embeddings.apiKey`): a string, or a map whose values are all secret. */
  secrets: readonly string[];
}

/** A section's schema as JSON Schema (what GET /api/settings/schema publishes of it). */
export function sectionJsonSchema(schema: z.ZodType): SettingSchema {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', target: 'draft-2020-12' }) as SettingSchema & { $schema?: string };
  delete json.$schema;
  return json;
}

/** The dotted paths of the fields marked `writeOnly` (a string, or a map whose values are secret). */
export function secretPaths(schema: SettingSchema, prefix = ''): string[] {
  if (schema.writeOnly) return prefix ? [prefix] : [];
  if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.writeOnly && !schema.properties) return prefix ? [prefix] : [];
  return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => secretPaths(child, prefix ? `${prefix}.${key}` : key));
}

/**
 * A section, from the function that builds its schema: the schema is built on first use, and its secrets
 * (the fields it marks `writeOnly`) are found in its JSON Schema on first use too. Building the ten sections'
 * schemas was some 450 zod schemas at every start, for settings most starts only read.
 */
export function settingsSection<S extends z.ZodType>(build: () => S, defaults: z.output<S>): SettingsSection<S> {
  let schema: S | undefined;
  let secrets: readonly string[] | undefined;
  return {
    get schema() {
      return (schema ??= build());
    },
    defaults,
    get secrets() {
      return (secrets ??= secretPaths(sectionJsonSchema(this.schema)));
    },
  };
}
