// Traces: a run's summary and its events, a page at a time.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { readTraceEvents, TRACE_ID_PATTERN } from '../../agent/traces.ts';
import type { RunRepo } from '../../agent/runs.repo.ts';
import { RunRecordSchema } from '../../protocol/runs.ts';

const params = z.strictObject({ runId: z.string().regex(TRACE_ID_PATTERN, 'not a trace id (tr_…)') });
const pageQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export interface TraceRouteDeps {
  runs: RunRepo;
  /** The traces directory (<home>/traces). */
  dir: string;
}

export const traceRoutes: FastifyPluginAsync<TraceRouteDeps> = async (app, { runs, dir }) => {
  defineRoutes(app, 'traces', [
    route({
      method: 'GET',
      url: '/api/traces/:runId',
      summary: 'A run\'s summary: provider, status, error, usage, the saved answer\'s id, duration.',
      params,
      response: RunRecordSchema.extend({ traceId: z.string(), durationMs: z.number().optional() }),
      handler: ({ params }) => {
        const run = runs.get(params.runId);
        if (!run) throw notFound('trace', params.runId);
        return { traceId: run.id, ...run, durationMs: run.finishedAt ? run.finishedAt - run.startedAt : undefined };
      },
    }),
    route({
      method: 'GET',
      url: '/api/traces/:runId/events',
      summary: 'A page of a run\'s trace: every event of the run, in order, raw provider lines redacted.',
      params,
      query: pageQuery,
      response: z.object({
        traceId: z.string(),
        offset: z.number().int(),
        limit: z.number().int(),
        events: z.array(z.looseObject({ ts: z.number(), seq: z.number().int(), event: z.string() })),
        hasMore: z.boolean(),
        nextOffset: z.number().int().nullable(),
      }),
      handler: async ({ params, query }) => {
        const { offset, limit } = query;
        const page = await readTraceEvents(dir, params.runId, offset, limit);
        if (!page) throw notFound('trace', params.runId);
        return { traceId: params.runId, offset, limit, events: page.events, hasMore: page.hasMore, nextOffset: page.hasMore ? offset + limit : null };
      },
    }),
  ]);
};
