// The `orchestration` settings section: the check command C → D runs, and the policy of worker runs.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

export const orchestrationSettingsSchema = z.strictObject({
  /** Run by the server for C → D, in the working directory (e.g. `npm test`); '' = none set (only a human can approve D). */
  checkCommand: z.string().max(4000),
  checkTimeoutSec: z.number().int().min(1).max(86_400),
  /** Worker runs at once; more wait in the queue. */
  concurrency: z.number().int().min(1).max(20),
  /** `worker_stalled` after this long without output (once per quiet spell). */
  stallSec: z.number().int().min(5).max(86_400),
  /** What a stall does besides the event: nothing more, or end the run. */
  stallAction: z.enum(['warn', 'kill']),
  /** A worker run is killed at this duration (`worker_timeout`). */
  workerTimeoutSec: z.number().int().min(10).max(7 * 86_400),
});
export type OrchestrationSettings = z.infer<typeof orchestrationSettingsSchema>;

export const orchestrationSettings = settingsSection(orchestrationSettingsSchema, {
  checkCommand: '',
  checkTimeoutSec: 900,
  concurrency: 3,
  stallSec: 180,
  stallAction: 'warn',
  workerTimeoutSec: 1800,
});
