// The orchestration routes: a session's state, its moves and records (plan, check), reset, and the
// one-call snapshot. Who calls (a human, or the agent of a live run by its credential) decides what
// is allowed; the service and the machine decide the rest.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import { callerOf } from '../../http/caller.ts';
import { routeGroup, route } from '../../http/routes.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import { OrcStateSchema, PlanBodySchema, PutStateBodySchema, WorkerRunSchema } from '../../protocol/orchestration.ts';
import { RuntimeStatusSchema } from '../../protocol/runs.ts';
import type { OrchestrationService } from './orchestration.service.ts';
import type { WorkerService } from './workers.service.ts';

export interface OrchestrationRouteDeps {
  orchestration: OrchestrationService;
  workers: WorkerService;
  /** The live run a credential belongs to. */
  resolveRun(token: string): RunIdentity | undefined;
  /** The main agent's runtime status (the snapshot's active run and queue). */
  runtime(): z.input<typeof RuntimeStatusSchema>;
  /** The main agent's queue. */
  queue: {
    list(): { requestId: string; sessionId: string; prompt: string; position: number }[];
    drop(requestId: string): boolean;
    runNow(requestId: string): boolean;
  };
}

const QueuedSchema = z.object({ requestId: z.string(), sessionId: z.string(), prompt: z.string(), position: z.number().int() });
const queueParams = z.strictObject({ id: z.string().regex(/^req_[A-Za-z0-9_-]{4,40}$/, 'not a queued message id (req_…)') });

const sessionQuery = z.strictObject({ sessionId: z.string().min(1).max(100).optional().describe('default: the active session (the agent: its own)') });
const resetBody = z.strictObject({ sessionId: z.string().min(1).max(100).optional(), reason: z.string().max(2000).optional() }).optional();

export const orchestrationRoutes = routeGroup('orchestration', (deps: OrchestrationRouteDeps) => {
  const { orchestration, workers } = deps;
  const acting = (request: FastifyRequest, sessionId?: string) => orchestration.acting(callerOf(request, deps.resolveRun), sessionId);

  return [
    route({
      method: 'GET',
      url: '/api/orchestrate/state',
      errors: [404],
      summary: 'The orchestration of a chat session: phase, status, the gate it waits on, its records (plan, audit, verification, check) and history.',
      query: sessionQuery,
      response: OrcStateSchema,
      handler: ({ query, request }) => orchestration.state(acting(request, query.sessionId).sessionId),
    }),
    route({
      method: 'PUT',
      url: '/api/orchestrate/state',
      errors: [404, 409],
      summary: 'Moves to a phase. A forward move needs its gate\'s record (409 names it) or, from a human only, approve: true.',
      body: PutStateBodySchema,
      response: OrcStateSchema,
      handler: ({ body, request }) => orchestration.move(acting(request, body.sessionId), body),
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/reset',
      errors: [404],
      summary: 'Back to IDLE from anywhere: the records are cleared and the session\'s worker runs cancelled.',
      body: resetBody,
      response: OrcStateSchema,
      handler: ({ body, request }) => orchestration.reset(acting(request, body?.sessionId), body?.reason),
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/plan',
      errors: [404, 409],
      summary: 'Submits the plan artifact (in phase I, P or A): stored with its sha256 and a new version; a new plan needs a new audit.',
      body: PlanBodySchema,
      status: 201,
      response: OrcStateSchema,
      handler: ({ body, request }) => orchestration.submitPlan(acting(request, body.sessionId), body.content),
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/check',
      errors: [404, 409],
      summary: 'Runs the check command (setting orchestration.checkCommand) on the server now and records its exit code and output tail.',
      body: resetBody,
      response: OrcStateSchema,
      handler: ({ body, request }) => orchestration.check(acting(request, body?.sessionId).sessionId),
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/queue',
      summary: 'The messages waiting for the main agent, in the order they will run (worker results among them).',
      response: z.object({ items: z.array(QueuedSchema) }),
      handler: () => ({ items: deps.queue.list() }),
    }),
    route({
      method: 'DELETE',
      url: '/api/orchestrate/queue/:id',
      summary: 'Takes a waiting message out of the queue (it stays in the history, noted as not sent).',
      params: queueParams,
      response: z.object({ removed: z.string() }),
      handler: ({ params, request }) => {
        acting(request);
        if (!deps.queue.drop(params.id)) throw notFound('Queued message', params.id);
        return { removed: params.id };
      },
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/queue/:id/steer',
      summary: 'Runs a waiting message now: the active run is interrupted and this one goes first.',
      params: queueParams,
      body: z.strictObject({}).optional(),
      response: z.object({ started: z.string() }),
      handler: ({ params, request }) => {
        acting(request);
        if (!deps.queue.runNow(params.id)) throw notFound('Queued message', params.id);
        return { started: params.id };
      },
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/snapshot',
      errors: [404],
      summary: 'In one call: the session\'s orchestration state, the main agent\'s active run and queue, and the session\'s worker runs.',
      query: sessionQuery,
      response: z.object({ state: OrcStateSchema, runtime: RuntimeStatusSchema, queue: z.array(QueuedSchema), workerRuns: z.array(WorkerRunSchema) }),
      handler: ({ query, request }) => {
        const { sessionId } = acting(request, query.sessionId);
        return { state: orchestration.state(sessionId), runtime: deps.runtime(), queue: deps.queue.list(), workerRuns: workers.list({ sessionId, limit: 50 }) };
      },
    }),
  ];
});
