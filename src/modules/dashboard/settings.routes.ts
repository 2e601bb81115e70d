// GET|PUT /api/dashboard/settings: the manager's own settings (scan range and interval, health
// checks, the event bridge's backoff cap), kept in its database and applied at once.
import type { FastifyPluginAsync } from 'fastify';
import { defineRoutes, route } from '../../http/routes.ts';
import { DashboardSettingsPatchSchema, DashboardSettingsViewSchema } from '../../protocol/dashboard.ts';
import type { DashboardSettingsService } from './settings.ts';

export const settingsRoutes: FastifyPluginAsync<{ settings: DashboardSettingsService }> = async (app, { settings }) => {
  defineRoutes(app, 'dashboard', [
    route({
      method: 'GET',
      url: '/api/dashboard/settings',
      summary: 'The manager\'s settings as it runs with them, and which of them this run\'s start-up flags set.',
      response: DashboardSettingsViewSchema,
      handler: () => settings.view(),
    }),
    route({
      method: 'PUT',
      url: '/api/dashboard/settings',
      summary: 'Changes the manager\'s settings (fields given replace; kept, applied at once: a new scan range is scanned now).',
      body: DashboardSettingsPatchSchema,
      response: DashboardSettingsViewSchema,
      handler: ({ body }) => settings.update(body),
    }),
  ]);
};
