// The agent runtime on the wire: what GET /api/runtime says about the active run and the queue.
import { z } from 'zod';
import { ToolLogEntrySchema } from './events.ts';

export const RunSnapshotSchema = z.object({
  traceId: z.string(),
  provider: z.string(),
  sessionId: z.string(),
  requestId: z.string(),
  startedAt: z.number(),
  /** Everything the run streamed so far (`agent_output` offsets index into it). */
  output: z.string(),
  steps: z.array(ToolLogEntrySchema),
});
export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;

export const RuntimeStatusSchema = z.object({
  busy: z.boolean(),
  pending: z.number().int(),
  /** The active run, with what it streamed so far: a client opened mid-run shows it, then follows `agent_output` offsets. */
  active: RunSnapshotSchema.optional(),
});
export type RuntimeStatus = z.infer<typeof RuntimeStatusSchema>;

/** A run's summary (GET /api/traces/:runId); its events are in the trace file. */
export const RunRecordSchema = z.object({
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
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
