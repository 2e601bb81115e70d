// Builds the Fastify server: guard, error model, body rules, and one route module per spec group.
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { AppContext } from '../app.ts';
import { createGuard } from './guard.ts';
import { BODY_LIMIT_BYTES, errorHandler } from './error-handler.ts';
import { ApiError } from './errors.ts';
import { routeModules } from './routes/index.ts';

export interface HttpOptions {
  logLevel?: string;
}

export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, in order (for `npm run routes`). */
    routeTable: RouteEntry[];
  }
}

export async function buildHttpServer(context: AppContext, options: HttpOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? process.env.SVC_LOG_LEVEL ?? 'warn',
      // The bearer token may ride in ?token= on the two streaming paths: log paths, never queries.
      serializers: { req: (req) => ({ method: req.method, path: req.url.split('?')[0] }) },
    },
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    return503OnClosing: true,
  });
  // Mutating routes take JSON only: with the text/plain parser gone, a cross-site "simple" form or
  // text post is refused with 415 before any handler runs.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request) => {
    throw new ApiError(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}. The route list is in the README (npm run routes).`);
  });
  app.addHook('onRequest', createGuard({
    token: context.token,
    classifyPeer: context.classifyPeer,
    network: () => context.settings.get().network,
  }));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    return payload;
  });

  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url });
  });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  for (const register of routeModules) register(app, context);
  await app.ready();
  return app;
}
