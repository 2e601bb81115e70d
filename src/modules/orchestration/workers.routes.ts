// Employees, dispatch (single and batch, asynchronous first), worker runs and worker progress, and
// isolated runs' worktrees (worktrees/worktrees.routes.ts).
import { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import { callerOf } from '../../http/caller.ts';
import { routeGroup, route } from '../../http/routes.ts';
import { readTraceEvents, TRACE_ID_PATTERN } from '../../agent/traces.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import {
  BatchBodySchema,
  BatchSchema,
  DispatchBodySchema,
  EMPLOYEE_ID,
  EmployeePatchSchema,
  EmployeeSchema,
  NewEmployeeSchema,
  WORKER_RUN_STATUSES,
  WorkerProgressSchema,
  WorkerRunSchema,
} from '../../protocol/orchestration.ts';
import type { OrchestrationService } from './orchestration.service.ts';
import type { EmployeeRepo } from './employees.ts';
import { publicRun } from './workers.repo.ts';
import type { WorkerService } from './workers.service.ts';
import { worktreeRoutes } from './worktrees/worktrees.routes.ts';

export interface WorkerRouteDeps {
  orchestration: OrchestrationService;
  workers: WorkerService;
  employees: EmployeeRepo;
  resolveRun(token: string): RunIdentity | undefined;
  /** The traces directory (each worker run's trace is <runId>.ndjson there). */
  traceDir: string;
  /** Bound of `wait: true` (the worker timeout). */
  waitMs(): number;
}

const employeeParams = z.strictObject({ id: z.string().regex(EMPLOYEE_ID, 'not an employee id') });
const runParams = z.strictObject({ runId: z.string().regex(TRACE_ID_PATTERN, 'not a worker run id (tr_…)') });
const listQuery = z.strictObject({
  sessionId: z.string().min(1).max(100).optional(),
  status: z.enum(WORKER_RUN_STATUSES).optional(),
  employeeId: z.string().regex(EMPLOYEE_ID).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
const pageQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const outputQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1_000_000).default(65_536),
});
const cancelBody = z.strictObject({ reason: z.string().max(500).optional() }).optional();
const accepted = z.object({ runId: z.string(), status: z.enum(WORKER_RUN_STATUSES), sessionId: z.string() });

export const workerRoutes = routeGroup('orchestration', (deps: WorkerRouteDeps) => {
  const { orchestration, workers, employees } = deps;
  const requireRun = (runId: string) => {
    const run = workers.get(runId);
    if (!run) throw notFound('Worker run', runId);
    return run;
  };
  const progressOf = (employeeId: string, name: string) => {
    const runs = workers.list({ employeeId, limit: 10 });
    const item = (run: (typeof runs)[number] | undefined) =>
      run ? { runId: run.runId, status: run.status, taskPreview: run.task.slice(0, 200), steps: run.steps, ...(run.lastActivityAt ? { lastActivityAt: run.lastActivityAt } : {}), ...(run.reason ? { reason: run.reason } : {}) } : null;
    const current = runs.find((r) => r.status === 'running') ?? runs.find((r) => r.status === 'queued');
    const previous = runs.find((r) => r !== current && r.status !== 'running' && r.status !== 'queued');
    return { employeeId, name, current: item(current), previous: item(previous) };
  };

  return [
    route({
      method: 'GET',
      url: '/api/employees',
      summary: 'The employees (worker definitions): the built-in presets and your own.',
      response: z.object({ employees: z.array(EmployeeSchema) }),
      handler: () => ({ employees: employees.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/employees',
      summary: 'Creates an employee: id, name, role, provider, model, instructions, capability (read-only | mutable, with an optional path scope).',
      body: NewEmployeeSchema,
      status: 201,
      response: EmployeeSchema,
      handler: ({ body }) => {
        const { id, ...fields } = body;
        return employees.create(id, fields);
      },
    }),
    route({
      method: 'PATCH',
      url: '/api/employees/:id',
      summary: 'Changes some fields of an employee (a preset too).',
      params: employeeParams,
      body: EmployeePatchSchema,
      response: EmployeeSchema,
      handler: ({ params, body }) => employees.update(params.id, body),
    }),
    route({
      method: 'DELETE',
      url: '/api/employees/:id',
      summary: 'Deletes an employee; a preset returns to its built-in definition.',
      params: employeeParams,
      response: z.object({ deleted: z.string(), restored: EmployeeSchema.nullable() }),
      handler: ({ params }) => ({ deleted: params.id, restored: employees.remove(params.id) ?? null }),
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/dispatch',
      errors: [404],
      summary: 'Dispatches a task to a worker (employee id or an inline virtual one): 202 {runId} at once; wait: true answers when the run ends (200, bounded by the worker timeout).',
      body: DispatchBodySchema,
      status: 202,
      response: z.union([accepted, WorkerRunSchema]),
      handler: async ({ body, request, reply }) => {
        const acting = orchestration.acting(callerOf(request, deps.resolveRun), body.sessionId);
        const { wait, sessionId: _s, ...entry } = body;
        const run = workers.dispatch(acting, entry);
        if (!wait) return { runId: run.runId, status: run.status, sessionId: run.sessionId };
        const ended = await workers.wait(run.runId, deps.waitMs() + 10_000);
        reply.code(200);
        return publicRun(ended);
      },
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/dispatch/batch',
      summary: 'Dispatches 1 to 10 runs, all validated first; runs naming overlapping affectedFiles run one after another. 202 with the batch; its aggregate verdict when all end.',
      body: BatchBodySchema,
      status: 202,
      response: BatchSchema,
      handler: ({ body, request }) => workers.dispatchBatch(orchestration.acting(callerOf(request, deps.resolveRun), body.sessionId), body.runs),
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/batches/:batchId',
      summary: 'A batch: its runs, whether all ended, and the aggregate verdict (any fail → fail; any run that did not succeed voids a pass).',
      params: z.strictObject({ batchId: z.string().regex(/^wb_[A-Za-z0-9_-]{4,40}$/, 'not a batch id (wb_…)') }),
      response: BatchSchema,
      handler: ({ params }) => {
        const batch = workers.batch(params.batchId);
        if (!batch) throw notFound('Batch', params.batchId);
        return batch;
      },
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-runs',
      summary: 'Worker runs, newest first (filter by session, status, employee).',
      query: listQuery,
      response: z.object({ runs: z.array(WorkerRunSchema) }),
      handler: ({ query }) => ({ runs: workers.list(query) }),
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-runs/:runId',
      summary: 'One worker run: status, the reason it ended, verdict, steps, scope violations, times.',
      params: runParams,
      response: WorkerRunSchema,
      handler: ({ params }) => publicRun(requireRun(params.runId)),
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-runs/:runId/events',
      summary: 'A page of a worker run\'s trace (its tool steps and raw CLI lines, redacted).',
      params: runParams,
      query: pageQuery,
      response: z.object({
        runId: z.string(),
        events: z.array(z.looseObject({ ts: z.number(), seq: z.number().int(), event: z.string() })),
        hasMore: z.boolean(),
        nextOffset: z.number().int().nullable(),
      }),
      handler: async ({ params, query }) => {
        requireRun(params.runId);
        const page = (await readTraceEvents(deps.traceDir, params.runId, query.offset, query.limit)) ?? { events: [], hasMore: false };
        return { runId: params.runId, events: page.events, hasMore: page.hasMore, nextOffset: page.hasMore ? query.offset + query.limit : null };
      },
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-runs/:runId/output',
      summary: 'A slice of a worker run\'s text output (characters offset..offset+limit), live while it runs.',
      params: runParams,
      query: outputQuery,
      response: z.object({ runId: z.string(), status: z.enum(WORKER_RUN_STATUSES), offset: z.number().int(), text: z.string(), total: z.number().int(), nextOffset: z.number().int().nullable() }),
      handler: ({ params, query }) => {
        const run = requireRun(params.runId);
        const text = run.output.slice(query.offset, query.offset + query.limit);
        const end = query.offset + text.length;
        return { runId: run.runId, status: run.status, offset: query.offset, text, total: run.output.length, nextOffset: end < run.output.length ? end : null };
      },
    }),
    route({
      method: 'POST',
      url: '/api/orchestrate/worker-runs/:runId/cancel',
      summary: 'Cancels a queued or running worker run (its whole process group); 409 when it already ended.',
      params: runParams,
      body: cancelBody,
      response: WorkerRunSchema,
      handler: ({ params, body, request }) => {
        orchestration.acting(callerOf(request, deps.resolveRun));
        workers.cancel(params.runId, body?.reason ?? 'cancelled');
        return publicRun(requireRun(params.runId));
      },
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-progress',
      summary: 'Per worker (employee) with runs: the current run (state, task preview, tool steps, last activity) and the previous one.',
      response: z.object({ workers: z.array(WorkerProgressSchema) }),
      handler: () => ({
        workers: [...employees.list(), { id: 'virtual', name: 'virtual worker' }].map((e) => progressOf(e.id, e.name)).filter((p) => p.current || p.previous),
      }),
    }),
    route({
      method: 'GET',
      url: '/api/orchestrate/worker-progress/:id',
      summary: 'One worker\'s current and previous run.',
      params: employeeParams,
      response: WorkerProgressSchema,
      handler: ({ params }) => {
        const employee = params.id === 'virtual' ? { id: 'virtual', name: 'virtual worker' } : employees.require(params.id);
        return progressOf(employee.id, employee.name);
      },
    }),
    ...worktreeRoutes(deps),
  ];
});
