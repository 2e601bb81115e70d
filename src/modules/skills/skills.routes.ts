// MCP and skills group: the automation skills and their ids.
import type { RouteModule } from './index.ts';
import { SKILLS } from '../../skills/catalogue.ts';

export const skillRoutes: RouteModule = (app) => {
  app.get('/api/skills', async () => ({ skills: SKILLS }));
};
