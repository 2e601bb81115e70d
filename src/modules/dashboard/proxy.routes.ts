// /i/:instanceId/*: the reverse proxy's routes (one per method, WebSocket upgrades on the GET), for
// registered instances only.
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { defineRoutes, route, type Method } from '../../http/routes.ts';
import { parseInput } from '../../http/validate.ts';
import type { UiFiles } from '../ui/index.ts';
import { forward, openUpstreamSocket, proxiedPath, PROXY_PREFIX, relaySockets, uiFileOf } from './proxy.ts';
import type { InstancesService } from './instances.service.ts';

const params = z.looseObject({ instanceId: z.string().min(1).max(64) });
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
    const upstream = await openUpstreamSocket(target, proxiedPath(request.raw.url ?? '', instanceId), request.raw);
    upstreams.set(request.raw, upstream);
    // the caller may go before its handshake completes
    request.raw.socket.once('close', () => upstream.terminate());
  };

  defineRoutes(app, 'dashboard', [
    route({
      method: 'GET',
      url: '/i/:instanceId',
      summary: 'Redirects to /i/:instanceId/ (the instance\'s UI resolves its paths against that directory).',
      status: 308,
      params,
      produces: 'html',
      handler: ({ params, request, reply }) => {
        instances.target(params.instanceId);
        const q = (request.raw.url ?? '').indexOf('?');
        return reply.redirect(`${PROXY_PREFIX}${encodeURIComponent(params.instanceId)}/${q === -1 ? '' : (request.raw.url ?? '').slice(q)}`, 308);
      },
    }),
    ...METHODS.map((method) =>
      route({
        method,
        url: '/i/:instanceId/*',
        summary: `Reverse proxy (${method}${method === 'GET' ? ' and WebSocket upgrades' : ''}) to a registered instance's API, media and event stream, with the instance's token (its chat UI's files come from the manager's own build); dot segments and encoded separators are refused.`,
        params,
        // what the instance answers, as it answers it (JSON, NDJSON, an event stream, a file)
        produces: 'file',
        ...(method === 'GET' || method === 'DELETE' ? {} : { rawBody: '*/*' }),
        ...(method === 'GET'
          ? {
              onRequest: openUpgrade,
              websocket: (socket: WebSocket, request: FastifyRequest) => {
                const upstream = upstreams.get(request.raw);
                upstreams.delete(request.raw);
                if (upstream) relaySockets(socket, upstream);
                else socket.close(1011, 'the instance side is gone');
              },
            }
          : {}),
        handler: async ({ params, request, reply }) => {
          const target = instances.target(params.instanceId);
          const path = proxiedPath(request.raw.url ?? '', params.instanceId);
          const file = method === 'GET' ? uiFileOf(path) : null;
          if (file?.kind === 'index') return chatUi.index(reply);
          if (file?.kind === 'favicon') return (await chatUi.favicon(reply)) ?? reply.callNotFound();
          if (file?.kind === 'asset') return chatUi.asset(file.name, request, reply);
          reply.hijack();
          forward(target, path, request.raw, reply.raw, (err) => {
            if (reply.raw.headersSent) return void reply.raw.destroy();
            const body = new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${err.message}).`).toBody();
            reply.raw.writeHead(502, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
          });
        },
      }),
    ),
  ]);
};
