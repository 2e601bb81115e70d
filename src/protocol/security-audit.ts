// The wire shapes of the security audit log (GET /api/security-audit/*), shared by the server and `svc audit`.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export const AuditEntrySchema = lazySchema(() => z.object({
  seq: z.number().int().positive(),
  ts: z.number().int(),
  /** Who acted: `local`, `remote:<address>`, `agent`, `channel:<name>:<chat>`, `system`. */
  actor: z.string(),
  /** Dotted name of what was done: `auth.refused`, `settings.change`, `channel.send`, … */
  action: z.string(),
  target: z.string(),
  outcome: z.enum(AUDIT_OUTCOMES),
  /** Names and counts, never secret values. */
  details: z.record(z.string(), z.unknown()),
  prevHash: z.string(),
  hash: z.string(),
}));
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditPageSchema = lazySchema(() => z.object({
  entries: z.array(AuditEntrySchema),
  /** Pass as `since` to get the entries written after this page. */
  nextSince: z.number().int().nonnegative(),
  hasMore: z.boolean(),
}));
export type AuditPage = z.infer<typeof AuditPageSchema>;

export const AuditVerifySchema = lazySchema(() => z.object({
  ok: z.boolean(),
  /** How many entries were checked. */
  entries: z.number().int().nonnegative(),
  /** The first entry that is missing, edited or out of the chain. */
  firstBadSeq: z.number().int().positive().optional(),
  /** What is wrong there, for people. */
  problem: z.string().optional(),
}));
export type AuditVerify = z.infer<typeof AuditVerifySchema>;
