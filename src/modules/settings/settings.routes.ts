// Settings: read (secrets masked), change (a validated JSON merge patch), and the JSON Schema the
// settings page is made from (labels, help, choices, bounds and secrets of every field).
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import type { SettingsService } from './settings.service.ts';

/** A field of a section as JSON Schema: its label and help, and whatever else its type says. */
const FieldJsonSchema = z.looseObject({ title: z.string(), description: z.string().optional() });

/** What GET /api/settings/schema answers (checked loosely: it is JSON Schema, written by zod). */
export const SettingsJsonSchema = z
  .looseObject({
    type: z.literal('object'),
    title: z.string(),
    properties: z.record(
      z.string(),
      z.looseObject({
        type: z.literal('object'),
        title: z.string(),
        description: z.string().optional(),
        properties: z.record(z.string(), FieldJsonSchema),
      }),
    ),
  })
  .describe(
    'JSON Schema (draft 2020-12) of the settings document, one property per section in order. Each field has `title` and `description`; secrets are `writeOnly`; `x-enumLabels` names the values of an enum, `x-multiline` marks text of several lines.',
  );

export const settingsRoutes = routeGroup('settings', ({ settings }: { settings: SettingsService }) => {
  const document = settings.model.schema;
  return [
    route({
      method: 'GET',
      url: '/api/settings',
      summary: 'Every settings section; secrets that are set read `***`.',
      response: document,
      handler: () => settings.redacted(),
    }),
    route({
      method: 'GET',
      url: '/api/settings/schema',
      summary: 'The settings document as JSON Schema: every section and field with its label (`title`), help (`description`), bounds, choices and which are secret (`writeOnly`).',
      response: SettingsJsonSchema,
      handler: () => settings.model.jsonSchema() as z.infer<typeof SettingsJsonSchema>,
    }),
    route({
      method: 'PUT',
      url: '/api/settings',
      summary: 'Changes settings with a JSON merge patch (`null` resets a field; `***` keeps a secret); nothing is saved unless the result validates.',
      body: z.record(z.string(), z.unknown()).describe('A JSON merge patch of the settings document (RFC 7396).'),
      validateBody: false,
      response: document,
      handler: ({ body }) => {
        settings.update(body);
        return settings.redacted();
      },
    }),
  ];
});
