// The `orchestration` settings section: the check command C → D runs, and the policy of worker runs.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

/** The section's schema, built on first use (src/protocol/settings.ts). */
const orchestrationSettingsSchema = () =>
  z
    .strictObject({
      /** Run by the server for C → D, in the working directory (e.g. `npm test`); '' = none set (only a human can approve D). */
      checkCommand: z
        .string()
        .max(4000)
        .meta({ title: 'Check command', description: 'Run by the server for C → D in the working directory, e.g. npm test. Empty: only a person can approve D.' }),
      checkTimeoutSec: z.number().int().min(1).max(86_400).meta({ title: 'Check timeout (s)', description: 'The check command is stopped after this long.' }),
      /** Worker runs at once; more wait in the queue. */
      concurrency: z.number().int().min(1).max(20).meta({ title: 'Workers at once', description: 'Worker runs at the same time; more wait in the queue.' }),
      /** `worker_stalled` after this long without output (once per quiet spell). */
      stallSec: z
        .number()
        .int()
        .min(5)
        .max(86_400)
        .meta({ title: 'Stall warning after (s)', description: 'A worker run that printed nothing for this long is reported as stalled (once per quiet spell).' }),
      /** What a stall does besides the event: nothing more, or end the run. */
      stallAction: z.enum(['warn', 'kill']).meta({
        title: 'When a worker stalls',
        description: 'Besides the report.',
        'x-enumLabels': { warn: 'Only warn', kill: 'Stop the run' },
      }),
      /** A worker run is killed at this duration (`worker_timeout`). */
      workerTimeoutSec: z
        .number()
        .int()
        .min(10)
        .max(7 * 86_400)
        .meta({ title: 'Worker time limit (s)', description: 'A worker run is stopped once it has run this long.' }),
    })
    .meta({ title: 'Orchestration', description: 'The phases of a task (I P A B C D): the check before D, and the worker runs.' });
export type OrchestrationSettings = z.infer<ReturnType<typeof orchestrationSettingsSchema>>;

export const orchestrationSettings = settingsSection(orchestrationSettingsSchema, {
  checkCommand: '',
  checkTimeoutSec: 900,
  concurrency: 3,
  stallSec: 180,
  stallAction: 'warn',
  workerTimeoutSec: 1800,
});
