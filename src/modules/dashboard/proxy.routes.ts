// /i/:instanceId/*: the reverse proxy's routes (one per method), for registered instances only.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { defineRoutes, route, type Method } from '../../http/routes.ts';
import { forward, proxiedPath } from './proxy.ts';
import type { InstancesService } from './instances.service.ts';

const params = z.looseObject({ instanceId: z.string().min(1).max(64) });
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const proxyRoutes: FastifyPluginAsync<{ instances: InstancesService }> = async (app, { instances }) => {
  // bodies are streamed to the instance as they come, never parsed here
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (_request, _payload, done) => done(null));
  defineRoutes(
    app,
    'dashboard',
    METHODS.map((method) =>
      route({
        method,
        url: '/i/:instanceId/*',
        summary: `Reverse proxy (${method}) to a registered instance's HTTP API and event stream, with the instance's token; dot segments and encoded separators are refused.`,
        params,
        // what the instance answers, as it answers it (JSON, NDJSON, an event stream, a file)
        produces: 'file',
        ...(method === 'GET' || method === 'DELETE' ? {} : { rawBody: '*/*' }),
        handler: ({ params, request, reply }) => {
          const target = instances.target(params.instanceId);
          const path = proxiedPath(request.raw.url ?? '', params.instanceId);
          reply.hijack();
          forward(target, path, request.raw, reply.raw, (err) => {
            if (reply.raw.headersSent) return void reply.raw.destroy();
            const body = new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${err.message}).`).toBody();
            reply.raw.writeHead(502, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
          });
        },
      }),
    ),
  );
};
