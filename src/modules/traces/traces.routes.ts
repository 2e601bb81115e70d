// Traces: a run's summary and its events, a page at a time.
import { z } from 'zod';
import type { RouteModule } from './index.ts';
import { parseInput } from '../validate.ts';
import { notFound } from '../errors.ts';
import { readTraceEvents, TRACE_ID_PATTERN } from '../../agent/traces.ts';

const params = z.strictObject({ runId: z.string().regex(TRACE_ID_PATTERN, 'not a trace id (tr_…)') });
const pageQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const traceRoutes: RouteModule = (app, ctx) => {
  app.get('/api/traces/:runId', async (request) => {
    const { runId } = parseInput(params, request.params, 'params');
    const run = ctx.runs.get(runId);
    if (!run) throw notFound('trace', runId);
    return { traceId: run.id, ...run, durationMs: run.finishedAt ? run.finishedAt - run.startedAt : undefined };
  });

  app.get('/api/traces/:runId/events', async (request) => {
    const { runId } = parseInput(params, request.params, 'params');
    const { offset, limit } = parseInput(pageQuery, request.query, 'query');
    const page = await readTraceEvents(ctx.home.traces, runId, offset, limit);
    if (!page) throw notFound('trace', runId);
    return { traceId: runId, offset, limit, events: page.events, hasMore: page.hasMore, nextOffset: page.hasMore ? offset + limit : null };
  });
};
