// One route module per group of the spec's §4. The order here is the order of registration.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.ts';
import { coreRoutes } from './core.ts';
import { messageRoutes } from './messages.ts';
import { eventRoutes } from './events.ts';
import { settingsRoutes } from './settings.ts';
import { uiRoutes } from './ui.ts';
import { agentRoutes } from './agent.ts';
import { traceRoutes } from './traces.ts';
import { webRoutingRoutes } from './web-routing.ts';
import { skillRoutes } from './skills.ts';
import { browserRoutes } from './browser.ts';
import { mediaRoutes } from './media.ts';
import { uploadRoutes } from './upload.ts';
import { providerRoutes } from './providers.ts';
import { visionClickRoutes } from './vision-click.ts';

export type RouteModule = (app: FastifyInstance, context: AppContext) => void;

export const routeModules: RouteModule[] = [coreRoutes, messageRoutes, eventRoutes, settingsRoutes, agentRoutes, traceRoutes, skillRoutes,
  (app, ctx) => webRoutingRoutes({ rules: ctx.rules })(app),
  (app, ctx) => browserRoutes({ client: ctx.browser })(app),
  (app, ctx) => visionClickRoutes({ service: ctx.visionClick })(app),
  mediaRoutes,
  uploadRoutes,
  (app, ctx) =>
    providerRoutes({
      detector: ctx.detector,
      quota: ctx.quota,
      getActive: () => ctx.settings.get().agent,
    })(app, ctx),
  uiRoutes];
