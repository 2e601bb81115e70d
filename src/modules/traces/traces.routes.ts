// Traces: a run's summary and its events, a page at a time; pinning a trace so retention keeps it.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { AppError, forbidden, notFound } from '../../core/errors.ts';
import { routeGroup, route } from '../../http/routes.ts';
import { callerOf } from '../../http/caller.ts';
import { readTraceEvents, traceFile, TRACE_ID_PATTERN } from '../../agent/traces.ts';
import type { RunRepo } from '../../agent/runs.repo.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import { RunRecordSchema } from '../../protocol/runs.ts';
import type { TraceRetention } from './retention.ts';

const params = z.strictObject({ runId: z.string().regex(TRACE_ID_PATTERN, 'not a trace id (tr_…)') });
const pageQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const PinSchema = z.object({ traceId: z.string(), pinned: z.boolean() });

export interface TraceRouteDeps {
  runs: RunRepo;
  /** The traces directory (<home>/traces). */
  dir: string;
  retention: TraceRetention;
  /** Whether a run (a chat run or a worker run) of this id exists: its trace, when missing, was removed. */
  knownRun(runId: string): boolean;
  /** Whether the run is still writing its trace (its file may not be open yet). */
  inFlight(runId: string): boolean;
  resolveRun(token: string): RunIdentity | undefined;
}

/** A trace retention removed (its run is on record, its file is not). */
const removed = (runId: string) =>
  new AppError(
    404,
    'TRACE_REMOVED',
    `The trace of run ${runId} was removed by trace retention (the settings traces.maxBytes and traces.maxAgeDays). Pin a trace to keep it.`,
  );

export const traceRoutes = routeGroup('traces', ({ runs, dir, retention, knownRun, inFlight, resolveRun }: TraceRouteDeps) => {
  /** 404 unless the trace's file is there: TRACE_REMOVED for a known run, NOT_FOUND otherwise. */
  const requireFile = (runId: string) => {
    if (inFlight(runId) || existsSync(traceFile(dir, runId))) return;
    throw knownRun(runId) ? removed(runId) : notFound('trace', runId);
  };
  const setPin = (request: Parameters<typeof callerOf>[0], runId: string, pinned: boolean) => {
    if (callerOf(request, resolveRun).kind === 'agent') throw forbidden('PERSON_REQUIRED', 'Only a person pins or unpins a trace: an agent run\'s credential cannot.');
    if (pinned) {
      requireFile(runId);
      retention.pin(runId);
    } else retention.unpin(runId);
    return { traceId: runId, pinned };
  };
  return [
    route({
      method: 'GET',
      url: '/api/traces/:runId',
      summary: 'A run\'s summary: provider, status, error, usage, the saved answer\'s id, duration, pinned (404 TRACE_REMOVED once retention removed its trace).',
      params,
      response: RunRecordSchema.extend({ traceId: z.string(), durationMs: z.number().optional(), pinned: z.boolean() }),
      handler: ({ params }) => {
        const run = runs.get(params.runId);
        if (!run) throw notFound('trace', params.runId);
        requireFile(params.runId);
        return { traceId: run.id, ...run, durationMs: run.finishedAt ? run.finishedAt - run.startedAt : undefined, pinned: retention.isPinned(run.id) };
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
        requireFile(params.runId);
        const page = (await readTraceEvents(dir, params.runId, offset, limit)) ?? { events: [], hasMore: false };
        return { traceId: params.runId, offset, limit, events: page.events, hasMore: page.hasMore, nextOffset: page.hasMore ? offset + limit : null };
      },
    }),
    route({
      method: 'POST',
      url: '/api/traces/:runId/pin',
      summary: 'Pins a trace: trace retention never removes it (a person only).',
      params,
      body: z.strictObject({}).optional(),
      response: PinSchema,
      handler: ({ params, request }) => setPin(request, params.runId, true),
    }),
    route({
      method: 'DELETE',
      url: '/api/traces/:runId/pin',
      summary: 'Unpins a trace: it is removed again when it is among the oldest beyond the bounds (a person only).',
      params,
      response: PinSchema,
      handler: ({ params, request }) => setPin(request, params.runId, false),
    }),
  ];
});
