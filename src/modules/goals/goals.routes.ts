// Goals and goal-runs (spec §4 "Goals and tasks"), and wakeups. A request that carries a run
// credential acts as the agent of that run's chat session; any other acts as a person, on the
// session it names or the active one.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, badRequest } from '../../core/errors.ts';
import { callerOf } from '../../http/caller.ts';
import { routeGroup, route } from '../../http/routes.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import {
  BudgetSchema,
  GOAL_RUN_MODES,
  GoalActionResultSchema,
  GoalHistorySchema,
  GoalRunViewSchema,
  GoalViewSchema,
  MAX_OBJECTIVE,
  WakeupSchema,
} from '../../protocol/goals.ts';
import type { Caller, GoalService } from './goals.service.ts';
import { parseDelay } from './wakeup.ts';

export interface GoalRouteDeps {
  goals: GoalService;
  /** The live run a run credential belongs to. */
  resolveRun(token: string): RunIdentity | undefined;
}

const sessionId = z.string().min(1).max(100).optional().describe('default: the active chat session');
const text = (max: number) => z.string().max(max);
const objective = z.string().min(1, 'objective is required').max(MAX_OBJECTIVE);

const GoalBody = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('set'), sessionId, objective, projectRoot: text(4096).optional(), budget: BudgetSchema.optional(), replace: z.boolean().optional() }),
  z.strictObject({
    action: z.literal('update'),
    sessionId,
    summary: z.string().min(1, 'summary is required').max(10_000),
    nextAction: text(10_000).optional(),
    evidence: z.union([text(4096), z.array(text(4096)).max(100)]).optional().describe('files under the project root'),
    check: text(10_000).optional().describe('a shell command the server runs in the project root; exit code 0 is evidence'),
  }),
  z.strictObject({ action: z.literal('refine'), sessionId, objective }),
  z.strictObject({ action: z.literal('done'), sessionId, note: text(10_000).optional() }),
  z.strictObject({ action: z.literal('cancel'), sessionId, reason: text(2000).optional() }),
  z.strictObject({ action: z.literal('pause'), sessionId, reason: text(2000).optional(), audit: text(10_000).optional() }),
  z.strictObject({ action: z.literal('resume'), sessionId }),
  z.strictObject({ action: z.literal('clear'), sessionId }),
]);

const GoalRunBody = z.strictObject({
  action: z.enum(['preflight', 'start', 'pause', 'resume', 'stop', 'complete', 'approve']),
  mode: z.enum(GOAL_RUN_MODES).optional(),
  budget: BudgetSchema.optional(),
  sessionId,
});

export const goalRoutes = routeGroup('goals', ({ goals, resolveRun }: GoalRouteDeps) => {
  const caller = (request: FastifyRequest, named?: string): Caller => {
    const who = callerOf(request, resolveRun);
    if (who.kind === 'human') return goals.caller(named);
    // a credential that no longer resolves is still the agent's: never taken for a person
    if (!who.run) throw new AppError(401, 'UNAUTHORIZED', 'The run credential is not valid: its run has ended.');
    if (named && named !== who.run.sessionId) throw badRequest('VALIDATION_FAILED', "A run acts on its own chat session's goal; leave sessionId out.");
    return { actor: 'agent', sessionId: who.run.sessionId };
  };
  return [
    route({
      method: 'GET',
      url: '/api/goal',
      summary: "The chat session's goal, its latest checkpoints and the pause gate.",
      query: z.strictObject({ sessionId }),
      response: GoalViewSchema,
      handler: ({ query, request }) => goals.view(caller(request, query.sessionId).sessionId),
    }),
    route({
      method: 'GET',
      url: '/api/goal/history',
      summary: "The chat session's goals, newest first (ended ones included).",
      query: z.strictObject({ sessionId, limit: z.coerce.number().int().min(1).max(100).default(10) }),
      response: GoalHistorySchema,
      handler: ({ query, request }) => goals.history(caller(request, query.sessionId).sessionId, query.limit),
    }),
    route({
      method: 'POST',
      url: '/api/goal',
      errors: [404, 409],
      summary: 'Acts on the goal: set, update (a checkpoint with evidence), refine, done (needs checkable evidence), cancel, pause (an agent\'s first request arms the pause gate), resume, clear.',
      body: GoalBody,
      response: GoalActionResultSchema,
      handler: ({ body, request }) => {
        const who = caller(request, body.sessionId);
        const { sessionId: _, ...input } = body;
        if (input.action === 'update') return goals.act(who, { ...input, evidence: typeof input.evidence === 'string' ? [input.evidence] : input.evidence });
        return goals.act(who, input);
      },
    }),
    route({
      method: 'GET',
      url: '/api/goal-run',
      summary: "The goal-run of the chat session's goal: mode, status, budget and usage, gates, the next prompt.",
      query: z.strictObject({ sessionId }),
      response: GoalRunViewSchema,
      handler: ({ query, request }) => goals.runView(caller(request, query.sessionId).sessionId),
    }),
    route({
      method: 'GET',
      url: '/api/goal-run/preflight',
      summary: 'The preflight gates of a goal-run in this mode, each passed or failed with its reason.',
      query: z.strictObject({ sessionId, mode: z.enum(GOAL_RUN_MODES).default('assist') }),
      response: GoalRunViewSchema,
      handler: ({ query, request }) => goals.preflight(caller(request, query.sessionId).sessionId, query.mode),
    }),
    route({
      method: 'POST',
      url: '/api/goal-run',
      errors: [404, 409],
      summary: 'Preflight, start (dry-run, assist, bounded, supervised), approve the next turn (supervised), pause, resume, stop or complete the goal-run.',
      body: GoalRunBody,
      response: GoalRunViewSchema,
      handler: ({ body, request }) => {
        const who = caller(request, body.sessionId);
        if (who.actor === 'agent' && body.action !== 'preflight') throw badRequest('GOAL_HUMAN_ONLY', 'Only a person drives a goal-run; the agent reports with `svc goal update|done|pause`.');
        return goals.runAct(who.sessionId, body);
      },
    }),
    route({
      method: 'GET',
      url: '/api/wakeup',
      summary: "The chat session's wakeups, newest first.",
      query: z.strictObject({ sessionId }),
      response: z.object({ wakeups: z.array(WakeupSchema) }),
      handler: ({ query, request }) => ({ wakeups: goals.wakeups(caller(request, query.sessionId).sessionId) }),
    }),
    route({
      method: 'POST',
      url: '/api/wakeup',
      summary: 'Resumes the agent later with a prompt (persisted: it fires after a restart too).',
      body: z.strictObject({
        sessionId,
        in: z.string().max(20).optional().describe('e.g. 90s, 10m, 2h, 1d'),
        delaySeconds: z.number().optional(),
        prompt: z.string().min(1, 'prompt is required').max(10_000),
        reason: text(2000).optional(),
      }),
      response: WakeupSchema,
      status: 201,
      handler: ({ body, request }) => {
        const delaySeconds = body.delaySeconds ?? (body.in !== undefined ? parseDelay(body.in) : undefined);
        if (delaySeconds === undefined) throw badRequest('INVALID_DELAY', 'Say when: `in` (e.g. "10m") or delaySeconds.');
        return goals.wakeup(caller(request, body.sessionId).sessionId, { delaySeconds, prompt: body.prompt, reason: body.reason });
      },
    }),
  ];
});
