// The server kit: one way to make an svc HTTP server, shared by the core server, the browser server
// and the manager. It sets up what every server must have and nothing a module decides: the request
// guard (Host, Origin, token), the one error body, the not-found answer, JSON-only mutating routes,
// the security headers, HTTPS with HSTS when given a certificate, the route documentation (GET
// /api/openapi.json) and the list of routes actually registered (for the test that every route is
// documented).
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { createLog, parseLogLevel, type Log } from '../core/log.ts';
import type { ServerTls } from '../core/tls.ts';
import { createGuard, markRefusedTarget, type GuardOptions } from './guard.ts';
import { canonicalTarget } from './canonical-path.ts';
import { lingerOnClose } from './lingering-close.ts';
import { BODY_LIMIT_BYTES, errorHandler, writeClientError } from './error-handler.ts';
import { defineRoutes, type Method, type RouteDoc } from './routes.ts';
import { answerLazyRoute, loadAllRoutes } from './lazy-routes.ts';
import { openApiDocument, type ApiInfo } from './openapi.ts';

export interface ServerKitOptions {
  /** Title, version and description of the OpenAPI document. */
  info: ApiInfo;
  guard: GuardOptions;
  /** error, warn, info or silent (default: SVC_LOG_LEVEL, else warn); info logs every request. */
  logLevel?: string;
  /** Accept WebSocket upgrades (the core's /ws fallback). */
  websocket?: boolean;
  bodyLimit?: number;
  /** Serve HTTPS (HTTP/1.1) with this certificate instead of plain HTTP. */
  tls?: ServerTls;
}

/**
 * Sent over HTTPS only (RFC 6797 has browsers ignore it over HTTP). A day: long enough that a browser that
 * came once keeps refusing a downgrade or a certificate it cannot verify (HSTS also removes the "proceed
 * anyway" button), short enough that a host moved back to plain HTTP is not locked out for months. No
 * includeSubDomains: the host is usually an IP address or one tailnet machine's name, and the other names
 * under it are not svc's to decide.
 */
export const HSTS = 'max-age=86400';

export interface RegisteredRoute {
  method: Method;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route Fastify registered (documented or not) and every lazy route loaded, for the route-count test. */
    routeTable: RegisteredRoute[];
    /** The server's log (src/core/log.ts). */
    svcLog: Log;
  }
}

/** Routes declare zod schemas (routes.ts), never Fastify's: its compilers are never built. */
const noFastifySchemas = () => {
  throw new Error('svc routes validate with zod (src/http/routes.ts); Fastify schemas are not used');
};

export async function createServer(options: ServerKitOptions): Promise<FastifyInstance> {
  const log = createLog(parseLogLevel(options.logLevel ?? process.env.SVC_LOG_LEVEL));
  const app = Fastify({
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
    // Fastify's own logger (pino) and schema compilers stay unloaded (see scripts/build.mjs).
    logger: false,
    schemaController: { compilersFactory: { buildValidator: noFastifySchemas, buildSerializer: noFastifySchemas } },
    bodyLimit: options.bodyLimit ?? BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    return503OnClosing: true,
    // A request without Host reaches the guard, which answers it in the one error shape (Node's own
    // refusal is an empty 400).
    http: { requireHostHeader: false },
    // The one reading of the path, before the router sees it (canonical-path.ts): the router, the
    // guard, the proxy and the handlers all get this spelling. A target without a canonical form
    // is routed as `/` only so that the hooks run: the guard answers it 400 before any handler.
    //
    // A HEAD request is routed as the GET it asks about: Node's response to a HEAD sends no body
    // whatever the handler writes, so it gets the GET's status and headers. Fastify's own way, a HEAD
    // route beside every GET one, doubles the routes it builds at start, the largest part of start-up.
    exposeHeadRoutes: false,
    rewriteUrl: (req) => {
      if (req.method === 'HEAD') req.method = 'GET';
      const target = canonicalTarget(req.url ?? '');
      if (target.ok) return target.url;
      markRefusedTarget(req, target.message);
      return '/';
    },
    // Errors found before a route is chosen (a malformed percent-encoding, a parameter over 100
    // characters) and by Node's parser (headers too large, a bad Content-Length, a NUL in the path)
    // get the same body as every other error.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    clientErrorHandler: writeClientError,
  });
  // Mutating routes take JSON only: with the text/plain parser gone, a cross-site "simple" form or
  // text post is refused with 415 before any handler runs.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler(errorHandler);
  // Fastify routes what was registered at start; the routes of lazy groups are reached from here (lazy-routes.ts)
  app.setNotFoundHandler(async (request, reply) => {
    const lazy = await answerLazyRoute(request, reply);
    if (lazy) return lazy.answer;
    throw new AppError(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}. The routes are listed at GET /api/openapi.json.`);
  });
  app.addHook('onRequest', async (request, reply) => lingerOnClose(request.raw, reply.raw));
  // On the raw response, before the guard: refusals, event streams and proxied answers (which take the
  // response over from Fastify) carry it too.
  if (options.tls) app.addHook('onRequest', async (_request, reply) => void reply.raw.setHeader('Strict-Transport-Security', HSTS));
  app.addHook('onRequest', createGuard(options.guard));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    return payload;
  });

  app.decorate('svcLog', log);
  if (log.level === 'info') {
    // The bearer token may ride in ?token= on the two streaming paths: log paths, never queries.
    app.addHook('onResponse', async (request, reply) => log.info(`${request.method} ${request.url.split('?')[0]} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`));
  }
  const routeSections: RouteDoc[][] = [];
  app.decorate('routeSections', routeSections);
  app.decorate('routeDocs', { getter: () => routeSections.flat() });
  const routeTable: RegisteredRoute[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method: method as Method, url: route.url });
  });
  if (options.websocket) await app.register(websocket, { options: { maxPayload: 64 * 1024 } });

  defineRoutes(app, 'system', [
    {
      method: 'GET',
      url: '/api/openapi.json',
      summary: 'This OpenAPI 3.1 document: every route with its parameters, bodies and answers.',
      response: z.record(z.string(), z.unknown()),
      handler: async () => {
        await loadAllRoutes(app);
        return openApiDocument(app.routeDocs, options.info);
      },
    },
  ]);
  return app;
}
