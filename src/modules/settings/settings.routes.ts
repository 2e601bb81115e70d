// Settings: read (secrets masked) and change (a validated JSON merge patch).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import type { SettingsService } from './settings.service.ts';

export const settingsRoutes: FastifyPluginAsync<{ settings: SettingsService }> = async (app, { settings }) => {
  const document = settings.model.schema;
  defineRoutes(app, 'settings', [
    route({
      method: 'GET',
      url: '/api/settings',
      summary: 'Every settings section; secrets that are set read `***`.',
      response: document,
      handler: () => settings.redacted(),
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
  ]);
};
