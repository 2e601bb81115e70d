// /api/dashboard/permissions: the tool calls waiting for a person in every instance, answerable from
// the manager. A decision is the instance's own (POST /api/permissions/:id with the instance's token);
// the manager refuses one that carries an agent's credential (a run token, a connector credential),
// as the instance refuses a run token: an agent never answers its own request through the manager.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { RUN_TOKEN_HEADER } from '../../protocol/caller.ts';
import { DecisionBodySchema, PermissionRequestSchema } from '../../protocol/permissions.ts';
import type { InstancesService } from './instances.service.ts';
import { decideOn, pendingAcross } from './permissions.ts';

/** An agent's own credentials: a request carrying one is not a person's decision. */
const AGENT_HEADERS = [RUN_TOKEN_HEADER, 'x-svc-connector'];

/** Whether a request to the manager carries an agent's credential (a run token, a connector credential). */
export const carriesAgentCredential = (headers: Record<string, unknown>): boolean => AGENT_HEADERS.some((h) => headers[h] !== undefined);

const InstancePermissionSchema = PermissionRequestSchema.extend({
  instanceId: z.string(),
  /** The instance's label, as the dashboard names it. */
  instanceLabel: z.string(),
});

export const dashboardPermissionRoutes: FastifyPluginAsync<{ instances: InstancesService }> = async (app, { instances }) => {
  defineRoutes(app, 'dashboard-permissions', [
    route({
      method: 'GET',
      url: '/api/dashboard/permissions',
      summary: 'The tool calls waiting for a person in every online instance (each one\'s GET /api/permissions, with its token), oldest first, each with its instance\'s id and label; an instance that did not answer is named in errors.',
      response: z.object({
        requests: z.array(InstancePermissionSchema),
        /** How many instances were asked (the online ones). */
        asked: z.number().int(),
        errors: z.array(z.object({ instanceId: z.string(), instanceLabel: z.string(), message: z.string() })),
      }),
      handler: () => pendingAcross(instances.list().filter((i) => i.status === 'online').map((row) => ({ row, target: instances.target(row.id) }))),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/instances/:id/permissions/:requestId',
      errors: [403, 404, 409],
      summary: 'A person answers a held tool call of an instance from the manager: the decision (allow or deny with a reason, optionally remembered) goes to the instance\'s POST /api/permissions/:id with its token; its 404 and 409 come back as they are. Refused (403) to an agent\'s credential.',
      params: z.strictObject({ id: z.string().min(1).max(64), requestId: z.string().min(1).max(64) }),
      body: DecisionBodySchema,
      response: z.object({ request: InstancePermissionSchema }),
      handler: async ({ params, body, request }) => {
        if (carriesAgentCredential(request.headers)) {
          throw forbidden('PERSON_REQUIRED', 'Only a person answers a permission request: a request with an agent\'s credential cannot decide one.');
        }
        const row = instances.get(params.id);
        const decided = await decideOn(instances.target(row.id), params.requestId, body);
        return { request: { ...decided, instanceId: row.id, instanceLabel: row.label } };
      },
    }),
  ]);
};
