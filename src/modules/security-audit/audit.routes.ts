// GET /api/security-audit/entries and /verify (spec §4 "Traces and security").
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import { AUDIT_OUTCOMES, AuditPageSchema, AuditVerifySchema } from '../../protocol/security-audit.ts';
import type { SecurityAudit } from './audit.service.ts';

export interface AuditRouteDeps {
  audit: SecurityAudit;
}

export const auditRoutes = routeGroup('security-audit', ({ audit }: AuditRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/security-audit/entries',
      summary: 'A page of the security audit log: entries after `since` oldest first, or without `since` the newest `limit`; filter by action (or its dotted prefix) and outcome.',
      query: z.strictObject({
        since: z.coerce.number().int().min(0).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        action: z.string().trim().min(1).max(100).regex(/^[a-z0-9_.-]+$/, 'an action name such as channel.send, or a prefix such as channel').optional(),
        outcome: z.enum(AUDIT_OUTCOMES).optional(),
      }),
      response: AuditPageSchema,
      handler: ({ query }) => audit.page(query),
    }),
    route({
      method: 'GET',
      url: '/api/security-audit/verify',
      summary: 'Recomputes the hash chain: ok, how many entries, and the first entry that was edited, deleted or inserted outside svc.',
      response: AuditVerifySchema,
      handler: () => audit.verify(),
    }),
  ];
});
