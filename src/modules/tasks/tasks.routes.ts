// GET/POST /api/task (spec §4 "Goals and tasks").
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import { TASK_STATUSES, TaskSchema } from '../../protocol/goals.ts';
import type { TaskService } from './tasks.service.ts';

const id = z.string().min(1).max(64);
const content = z.string().min(1, 'content is required').max(10_000);
const owner = z.string().trim().max(100).describe('`main` (the main agent, the default) or a worker name');
const after = z.array(id).max(50).describe('ids of the tasks this one waits for');

const TaskBody = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('add'), content, owner: owner.optional(), after: after.optional(), goalId: id.optional() }),
  z.strictObject({ action: z.literal('update'), id, content: content.optional(), status: z.enum(TASK_STATUSES).optional(), owner: owner.optional(), after: after.optional(), goalId: id.nullable().optional() }),
  z.strictObject({ action: z.literal('done'), id }),
  z.strictObject({ action: z.literal('clear') }),
]);

export const taskRoutes = routeGroup('tasks', ({ tasks }: { tasks: TaskService }) => {
  return [
    route({
      method: 'GET',
      url: '/api/task',
      summary: 'The task list (of one status, owner or goal), oldest first.',
      query: z.strictObject({ status: z.enum(TASK_STATUSES).optional(), owner: z.string().max(100).optional(), goalId: id.optional() }),
      response: z.object({ tasks: z.array(TaskSchema) }),
      handler: ({ query }) => tasks.list(query),
    }),
    route({
      method: 'POST',
      url: '/api/task',
      errors: [404],
      summary: 'Adds a task, updates one (content, status, owner, after, goal), marks one done, or clears the finished ones.',
      body: TaskBody,
      response: z.union([z.object({ task: TaskSchema }), z.object({ removed: z.number().int() })]),
      handler: ({ body }) => tasks.act(body),
    }),
  ];
});
