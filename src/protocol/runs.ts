// The agent runtime on the wire: what GET /api/runtime says about the active run and the queue.
import { z } from 'zod';
import { RUN_STATUSES, STEP_KINDS, ToolLogEntrySchema } from './events.ts';
import { lazySchema } from './lazy-schema.ts';

export { stepSummary } from './step-summary.ts';

export const RunSnapshotSchema = lazySchema(() => z.object({
  traceId: z.string(),
  provider: z.string(),
  sessionId: z.string(),
  requestId: z.string(),
  startedAt: z.number(),
  /** Everything the run streamed so far (`agent_output` offsets index into it). */
  output: z.string(),
  steps: z.array(ToolLogEntrySchema),
}));
export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;

export const RuntimeStatusSchema = lazySchema(() => z.object({
  busy: z.boolean(),
  /** Messages waiting in the active chat session (the one the chat shows). */
  pending: z.number().int(),
  /** Messages waiting in all chat sessions: the runtime runs one at a time, whichever session they belong to. */
  total: z.number().int(),
  /** Waiting messages per chat session (sessions with none are left out). */
  sessions: z.record(z.string(), z.number().int()),
  /** The active run, with what it streamed so far: a client opened mid-run shows it, then follows `agent_output` offsets. */
  active: RunSnapshotSchema.optional(),
}));
export type RuntimeStatus = z.infer<typeof RuntimeStatusSchema>;

/** A run's summary (GET /api/traces/:runId); its events are in the trace file. */
export const RunRecordSchema = lazySchema(() => z.object({
  id: z.string(),
  chatSessionId: z.string(),
  requestId: z.string(),
  provider: z.string(),
  model: z.string(),
  status: z.enum(['running', 'ok', 'error', 'stopped', 'interrupted']),
  error: z.string().optional(),
  messageId: z.number().int().optional(),
  usage: z.record(z.string(), z.number()).optional(),
  eventCount: z.number().int(),
  startedAt: z.number(),
  finishedAt: z.number().optional(),
}));
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** One step of a finished run as its saved record keeps it: enough to show the step list again. */
export const StepSummarySchema = lazySchema(() => z.object({
  stepId: z.string(),
  name: z.string(),
  step: z.enum(STEP_KINDS),
  status: z.enum(['running', 'ok', 'error']),
  /** What the step worked on (a command, a path, a query…), at most 120 characters. */
  summary: z.string().optional(),
}));
export type StepSummary = z.infer<typeof StepSummarySchema>;

/**
 * The `meta` of the message a run leaves in the conversation: its answer (role `assistant`), or,
 * when it failed or was stopped before answering, a record of why (role `system`). The live view
 * and the history render a run from the same fields.
 */
export const RunRecordMetaSchema = lazySchema(() => z.object({
  traceId: z.string(),
  /** The request the run answered (its agent_done carries the same id). */
  requestId: z.string().optional(),
  provider: z.string(),
  model: z.string().optional(),
  status: z.enum(RUN_STATUSES),
  durationMs: z.number().optional(),
  usage: z.record(z.string(), z.number()).optional(),
  /** The failure class when the run failed (`auth`, `cli_missing`, …). */
  failure: z.string().optional(),
  /** The one command that fixes the failure. */
  fix: z.string().optional(),
  steps: z.array(StepSummarySchema).optional(),
  /** Kept for records written before `status` (an answer cut short by a stop). */
  interrupted: z.boolean().optional(),
}));
export type RunRecordMeta = z.infer<typeof RunRecordMetaSchema>;
