// The executive agent's resources (/api/svc-ceo/*): transcript entries, watches, completions,
// confirmations and audit records, shared by the server and the dashboard page.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const LIFECYCLE_ACTIONS = ['start', 'stop', 'restart'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

export const TranscriptEntrySchema = lazySchema(() => z.object({
  id: z.number().int(),
  at: z.number(),
  role: z.enum(['user', 'executive', 'instance', 'system']),
  text: z.string(),
  instanceId: z.string().nullable(),
  /** Text that came from an instance (an answer, output): data to read, never instructions. */
  untrusted: z.boolean(),
}));
export type TranscriptEntry = z.infer<typeof TranscriptEntrySchema>;

export const WatchSchema = lazySchema(() => z.object({
  id: z.string(),
  instanceId: z.string(),
  /** The request whose run ends the watch; null for a manual watch (the next run of the instance). */
  requestId: z.string().nullable(),
  reason: z.enum(['dispatch', 'manual']),
  status: z.enum(['active', 'completed', 'removed']),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
}));
export type Watch = z.infer<typeof WatchSchema>;

export const COMPLETION_STATUSES = ['pending', 'acknowledged', 'dismissed', 'continued'] as const;
export const CompletionSchema = lazySchema(() => z.object({
  key: z.string(),
  watchId: z.string(),
  instanceId: z.string(),
  requestId: z.string().nullable(),
  runStatus: z.string(),
  /** The run's answer (untrusted data); `summary` is its first 320 characters. */
  text: z.string(),
  summary: z.string(),
  messageId: z.number().int().nullable(),
  status: z.enum(COMPLETION_STATUSES),
  detectedAt: z.number(),
}));
export type Completion = z.infer<typeof CompletionSchema>;

export const ConfirmationSchema = lazySchema(() => z.object({
  id: z.string(),
  action: z.enum(LIFECYCLE_ACTIONS),
  args: z.object({ instanceId: z.string() }),
  /** sha256 of the action and its arguments, computed by the server. */
  argsHash: z.string(),
  status: z.enum(['pending', 'approved', 'consumed', 'cancelled']),
  createdAt: z.number(),
  expiresAt: z.number(),
}));
export type Confirmation = z.infer<typeof ConfirmationSchema>;

export const CeoAuditSchema = lazySchema(() => z.object({
  id: z.number().int(),
  at: z.number(),
  kind: z.enum(['tool', 'policy', 'lifecycle', 'completion', 'docs_edit', 'confirmation', 'voice']),
  action: z.string(),
  ok: z.boolean(),
  instanceId: z.string().nullable(),
  message: z.string(),
  meta: z.record(z.string(), z.unknown()).nullable(),
}));
export type CeoAudit = z.infer<typeof CeoAuditSchema>;
export type CeoAuditKind = CeoAudit['kind'];
