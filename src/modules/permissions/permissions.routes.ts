// The permissions API: pending requests, a person's decision, and the remembered rules. A decision
// carrying an agent run's credential is refused: an agent never answers its own request.
import { z } from 'zod';
import { forbidden } from '../../core/errors.ts';
import { callerOf } from '../../http/caller.ts';
import { routeGroup, route } from '../../http/routes.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import { DecisionBodySchema, PermissionRequestSchema, PermissionRuleSchema } from '../../protocol/permissions.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { PermissionsService } from './permissions.service.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export interface PermissionRouteDeps {
  permissions: PermissionsService;
  audit: AuditSink;
  resolveRun(token: string): RunIdentity | undefined;
  actorOf(address: string | undefined): string;
}

const id = lazySchema(() => z.string().min(1).max(64));

export const permissionRoutes = routeGroup('permissions', ({ permissions, audit, resolveRun, actorOf }: PermissionRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/permissions',
      summary: 'The tool calls waiting for a person, oldest first: of one chat session (sessionId) or all.',
      query: lazySchema(() => z.strictObject({ sessionId: z.string().min(1).max(100).optional() })),
      response: lazySchema(() => z.object({ requests: z.array(PermissionRequestSchema) })),
      handler: ({ query }) => ({ requests: permissions.pending(query.sessionId) }),
    }),
    route({
      method: 'POST',
      url: '/api/permissions/:id',
      errors: [404, 409],
      summary: 'A person answers a held tool call: allow or deny (with a reason the agent reads), optionally remembered for the session or always. Refused (403) to an agent run\'s credential.',
      params: lazySchema(() => z.object({ id })),
      body: DecisionBodySchema,
      response: lazySchema(() => z.object({ request: PermissionRequestSchema })),
      handler: ({ params, body, request }) => {
        const actor = actorOf(request.socket.remoteAddress);
        const caller = callerOf(request, resolveRun);
        if (caller.kind === 'agent') {
          audit.record({ actor: caller.run ? `agent:${caller.run.runId}` : 'agent', action: 'permission.decide', target: params.id, outcome: 'refused', details: { decision: body.decision } });
          throw forbidden('PERSON_REQUIRED', 'Only a person answers a permission request: an agent run\'s credential cannot decide one.');
        }
        return { request: permissions.decide(params.id, body, 'person', actor) };
      },
    }),
    route({
      method: 'GET',
      url: '/api/permissions/rules',
      summary: 'The remembered decisions: each rule\'s tool, what of its input it covers, allow or deny, and for which sessions.',
      response: lazySchema(() => z.object({ rules: z.array(PermissionRuleSchema) })),
      handler: () => ({ rules: permissions.rules() }),
    }),
    route({
      method: 'DELETE',
      url: '/api/permissions/rules/:id',
      summary: 'Forgets a remembered decision: the calls it covered are asked again.',
      params: lazySchema(() => z.object({ id })),
      response: lazySchema(() => z.object({ removed: z.string() })),
      handler: ({ params, request }) => {
        const caller = callerOf(request, resolveRun);
        if (caller.kind === 'agent') throw forbidden('PERSON_REQUIRED', 'Only a person changes the remembered decisions.');
        permissions.removeRule(params.id, actorOf(request.socket.remoteAddress));
        return { removed: params.id };
      },
    }),
  ];
});
