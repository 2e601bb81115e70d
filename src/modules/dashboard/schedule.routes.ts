// /api/dashboard/schedule/*: scheduled jobs (cron or one-off) and the record of their runs.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { ScheduleJobSchema, ScheduleRunSchema } from '../../protocol/dashboard.ts';
import type { ScheduleService } from './schedule.service.ts';

const jobFields = {
  title: z.string().trim().min(1).max(200),
  instanceId: z.string().min(1).max(64),
  prompt: z.string().min(1).max(100_000),
  cron: z.string().min(1).max(200).optional().describe('A cron expression (croner: 5 or 6 fields).'),
  runAt: z.number().int().positive().optional().describe('A one-off time, in ms since the epoch.'),
  whenBusy: z.enum(['skip', 'queue']).optional().describe('When the target is busy: skip the slot (recorded) or send anyway (default skip).'),
  enabled: z.boolean().optional(),
};
const idParams = z.strictObject({ id: z.string().min(1).max(64) });

export const scheduleRoutes: FastifyPluginAsync<{ schedule: ScheduleService }> = async (app, { schedule }) => {
  defineRoutes(app, 'dashboard-schedule', [
    route({
      method: 'GET',
      url: '/api/dashboard/schedule/jobs',
      summary: 'Every scheduled job with its next run.',
      response: z.object({ jobs: z.array(ScheduleJobSchema) }),
      handler: () => ({ jobs: schedule.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/schedule/jobs',
      errors: [404],
      summary: 'Schedules a prompt for an instance: cron or runAt (one of them); it is really sent when due.',
      body: z.strictObject(jobFields),
      status: 201,
      response: ScheduleJobSchema,
      handler: ({ body }) => schedule.create(body),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/schedule/jobs/:id',
      summary: 'One scheduled job.',
      params: idParams,
      response: ScheduleJobSchema,
      handler: ({ params }) => schedule.get(params.id),
    }),
    route({
      method: 'PATCH',
      url: '/api/dashboard/schedule/jobs/:id',
      summary: 'Changes a job (a new cron or runAt replaces the old timing); enabled:false pauses it.',
      params: idParams,
      body: z.strictObject({ ...jobFields, title: jobFields.title.optional(), instanceId: jobFields.instanceId.optional(), prompt: jobFields.prompt.optional() }),
      response: ScheduleJobSchema,
      handler: ({ params, body }) => schedule.update(params.id, body),
    }),
    route({
      method: 'DELETE',
      url: '/api/dashboard/schedule/jobs/:id',
      summary: 'Deletes a job and its runs.',
      params: idParams,
      response: z.object({ deleted: z.string() }),
      handler: ({ params }) => {
        schedule.remove(params.id);
        return { deleted: params.id };
      },
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/schedule/jobs/:id/runs',
      summary: 'The runs of a job, newest first: sent, answered (with the answer\'s message id), failed or skipped (with why).',
      params: idParams,
      response: z.object({ runs: z.array(ScheduleRunSchema) }),
      handler: ({ params }) => ({ runs: schedule.runs(params.id) }),
    }),
  ]);
};
