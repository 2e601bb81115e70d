// Settings: read (secrets redacted) and change (validated JSON merge patch).
import type { RouteModule } from './index.ts';

export const settingsRoutes: RouteModule = (app, ctx) => {
  app.get('/api/settings', async () => ctx.settings.redacted());

  app.put('/api/settings', async (request) => {
    ctx.settings.update(request.body);
    return ctx.settings.redacted();
  });
};
