// The manager's instance routes: the registry, one instance, its latest-message cache, lifecycle,
// the scan, and the manager's own health.
import type { FastifyPluginAsync } from 'fastify';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { defineRoutes, noBody, route } from '../../http/routes.ts';
import { InstanceSchema, LatestSchema } from '../../protocol/dashboard.ts';
import type { InstancesService } from './instances.service.ts';

export interface InstanceRouteDeps {
  instances: InstancesService;
  version: string;
  startedAt: number;
  port: () => number;
}

const idParams = z.strictObject({ id: z.string().min(1).max(64) });

export const instanceRoutes: FastifyPluginAsync<InstanceRouteDeps> = async (app, { instances, version, startedAt, port }) => {
  defineRoutes(app, 'dashboard', [
    route({
      method: 'GET',
      url: '/api/dashboard/health',
      summary: 'The manager\'s liveness: version, uptime, its port, the scan range and how many instances are online.',
      response: z.object({
        ok: z.literal(true),
        service: z.literal('manager-dashboard'),
        version: z.string(),
        uptimeMs: z.number(),
        port: z.number().int(),
        pid: z.number().int(),
        scan: z.object({ from: z.number().int(), count: z.number().int(), scannedAt: z.number().nullable() }),
        instances: z.object({ total: z.number().int(), online: z.number().int() }),
      }),
      handler: () => {
        const list = instances.list();
        return {
          ok: true as const,
          service: 'manager-dashboard' as const,
          version,
          uptimeMs: Date.now() - startedAt,
          port: port(),
          pid: process.pid,
          scan: { ...instances.scanRange, scannedAt: instances.scannedAt },
          instances: { total: list.length, online: list.filter((i) => i.status === 'online').length },
        };
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/instances',
      summary: 'Every known instance (started, scanned, added) with its cached state; never scans on request.',
      response: z.object({ instances: z.array(InstanceSchema), scannedAt: z.number().nullable() }),
      handler: () => ({ instances: instances.list(), scannedAt: instances.scannedAt }),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/instances',
      summary: 'Adds an instance by URL and token (checked now); it keeps running on its own (owner: external).',
      body: z.strictObject({ url: z.url(), token: z.string().min(1).max(512).optional(), label: z.string().min(1).max(100).optional() }),
      status: 201,
      response: InstanceSchema,
      handler: ({ body }) => instances.add(body),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/instances/start',
      summary: 'Starts a new instance owned by the manager, in its own home (default <manager home>/instances/<id>) on a free port.',
      body: z
        .strictObject({
          label: z.string().min(1).max(100).optional(),
          // relative to what? the manager's working directory is an accident of how it was started
          home: z.string().min(1).max(1024).refine(isAbsolute, 'must be an absolute path (or left out for <manager home>/instances/<id>)').optional(),
        })
        .optional(),
      status: 201,
      response: InstanceSchema,
      handler: ({ body }) => instances.create(body ?? {}),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/scan',
      summary: 'Scans the port range now for local instances (the scan otherwise runs in the background, at most once a minute).',
      body: noBody,
      response: z.object({ instances: z.array(InstanceSchema), scannedAt: z.number().nullable() }),
      handler: async () => {
        await instances.scan();
        return { instances: instances.list(), scannedAt: instances.scannedAt };
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/instances/:id',
      summary: 'One instance by its stable id.',
      params: idParams,
      response: InstanceSchema,
      handler: ({ params }) => instances.get(params.id),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/instances/:id/latest',
      summary: 'The latest-message cache of an instance: last user and assistant message, current run, queue, orchestration and worker progress.',
      params: idParams,
      response: LatestSchema,
      handler: ({ params }) => instances.latest(params.id),
    }),
    route({
      method: 'DELETE',
      url: '/api/dashboard/instances/:id',
      summary: 'Forgets an instance (it keeps running); one the manager runs must be stopped first.',
      params: idParams,
      response: z.object({ deleted: z.string() }),
      handler: ({ params }) => {
        instances.remove(params.id);
        return { deleted: params.id };
      },
    }),
    ...(['start', 'stop', 'restart'] as const).map((action) =>
      route({
        method: 'POST',
        url: `/api/dashboard/instances/:id/${action}`,
        summary: `${action[0]!.toUpperCase()}${action.slice(1)}s an instance the manager started (409 for any other).`,
        params: idParams,
        body: noBody,
        response: InstanceSchema,
        handler: ({ params }) => (action === 'start' ? instances.startAgain(params.id) : action === 'stop' ? instances.stop(params.id) : instances.restart(params.id)),
      }),
    ),
  ]);
};
