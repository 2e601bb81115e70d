// /i/:instanceId/*: the reverse proxy's routes, for registered instances only. Which of an instance's
// paths are open without the manager's token is declared here route by route, as on the instance
// itself: its UI's files (served from the manager's own build) and its liveness are public, its event
// streams take `?token=`, everything else (the API, media) needs the token. WebSocket upgrades ride on
// the GET routes.
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { defineRoutes, route, type Access, type Method, type Route } from '../../http/routes.ts';
import { parseInput } from '../../http/validate.ts';
import type { UiFiles } from '../ui/index.ts';
import { forward, openUpstreamSocket, proxiedPath, PROXY_PREFIX, relaySockets } from './proxy.ts';
import { reachError } from './instance-client.ts';
import type { InstancesService } from './instances.service.ts';

const params = z.looseObject({ instanceId: z.string().min(1).max(64) });
const assetParams = params.extend({ '*': z.string().describe('a file name of the build') });
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface ProxyRouteDeps {
  instances: InstancesService;
  /** The manager's own build of the chat UI, served for an instance's UI files. */
  chatUi: UiFiles;
}

export const proxyRoutes: FastifyPluginAsync<ProxyRouteDeps> = async (app, { instances, chatUi }) => {
  // bodies are streamed to the instance as they come, never parsed here
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (_request, _payload, done) => done(null));

  /** The instance's side of each upgrade, opened before the caller's handshake is answered. */
  const upstreams = new WeakMap<IncomingMessage, WebSocket>();
  const openUpgrade = async (request: FastifyRequest) => {
    if (request.headers.upgrade?.toLowerCase() !== 'websocket') return;
    const { instanceId } = parseInput(params, request.params, 'params');
    const target = instances.target(instanceId);
    const upstream = await openUpstreamSocket(target, proxiedPath(request.url), request.raw);
    upstreams.set(request.raw, upstream);
    // the caller may go before its handshake completes
    request.raw.socket.once('close', () => upstream.terminate());
  };
  const relay = (socket: WebSocket, request: FastifyRequest) => {
    const upstream = upstreams.get(request.raw);
    upstreams.delete(request.raw);
    if (upstream) relaySockets(socket, upstream);
    else socket.close(1011, 'the instance side is gone');
  };

  /** A route that forwards to the instance (with WebSocket upgrades when it is a GET). */
  const forwarding = (method: Method, url: string, access: Access, summary: string): Route =>
    route({
      method,
      url,
      access,
      summary,
      params,
      // what the instance answers, as it answers it (JSON, NDJSON, an event stream, a file)
      produces: 'file',
      ...(method === 'GET' || method === 'DELETE' ? {} : { rawBody: '*/*' }),
      ...(method === 'GET' ? { onRequest: openUpgrade, websocket: relay } : {}),
      handler: async ({ params, request, reply }) => {
        const target = instances.target(params.instanceId);
        const path = proxiedPath(request.url);
        reply.hijack();
        forward(target, path, request.raw, reply.raw, (err) => {
          if (reply.raw.headersSent) return void reply.raw.destroy();
          const body = new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${reachError(err)}).`).toBody();
          reply.raw.writeHead(502, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
        });
      },
    });

  /** One of the chat UI's files, from the manager's own build (after checking the instance is registered). */
  const uiFile = (url: string, summary: string, serve: (input: { params: z.output<typeof assetParams>; request: FastifyRequest; reply: Parameters<UiFiles['index']>[0] }) => unknown): Route =>
    route({
      method: 'GET',
      url,
      access: 'public',
      summary,
      params: url.endsWith('*') ? assetParams : params,
      produces: url.endsWith('.svg') || url.endsWith('*') ? 'file' : 'html',
      handler: ({ params, request, reply }) => {
        instances.target(params.instanceId);
        return serve({ params: params as z.output<typeof assetParams>, request, reply });
      },
    });

  defineRoutes(app, 'dashboard', [
    route({
      method: 'GET',
      url: '/i/:instanceId',
      access: 'public',
      summary: 'Redirects to /i/:instanceId/ (the instance\'s UI resolves its paths against that directory).',
      status: 308,
      params,
      produces: 'html',
      handler: ({ params, request, reply }) => {
        instances.target(params.instanceId);
        const q = request.url.indexOf('?');
        return reply.redirect(`${PROXY_PREFIX}${encodeURIComponent(params.instanceId)}/${q === -1 ? '' : request.url.slice(q)}`, 308);
      },
    }),
    uiFile('/i/:instanceId/', 'An instance\'s chat UI page, from the manager\'s own build (open, as on the instance).', ({ reply }) => chatUi.index(reply)),
    uiFile('/i/:instanceId/index.html', 'The same page as /i/:instanceId/.', ({ reply }) => chatUi.index(reply)),
    uiFile('/i/:instanceId/favicon.svg', 'The chat UI\'s icon, from the manager\'s own build.', async ({ reply }) => (await chatUi.favicon(reply)) ?? reply.callNotFound()),
    uiFile('/i/:instanceId/assets/*', 'The chat UI\'s content-hashed scripts and styles, from the manager\'s own build.', ({ params, request, reply }) => chatUi.asset(params['*'], request, reply)),
    forwarding('GET', '/i/:instanceId/api/health', 'public', 'An instance\'s liveness, through the proxy (open, as on the instance).'),
    forwarding('GET', '/i/:instanceId/api/events', 'token-or-query', 'An instance\'s event stream (SSE) through the proxy; takes the manager\'s token as ?token= like /api/events.'),
    forwarding('GET', '/i/:instanceId/ws', 'token-or-query', 'An instance\'s WebSocket event stream through the proxy; takes the manager\'s token as ?token= like /ws.'),
    ...METHODS.map((method) =>
      forwarding(
        method,
        '/i/:instanceId/*',
        'token',
        `Reverse proxy (${method}${method === 'GET' ? ' and WebSocket upgrades' : ''}) to a registered instance's API and media, with the instance's token; ${'`/api/auth/token`'} is withheld (403 PROXY_PATH_REFUSED).`,
      ),
    ),
  ]);
};
