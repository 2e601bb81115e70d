// The `traces` settings section: how much of the disk run traces may take (src/modules/traces/retention.ts).
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

export const GIB = 1024 ** 3;

export const traceSettings = settingsSection(
  () =>
    z
      .strictObject({
        maxBytes: z
          .number()
          .int()
          .min(0)
          .max(2 ** 50)
          .meta({ title: 'Largest total size of traces (bytes)', description: 'The oldest traces are removed beyond it; pinned traces count but stay. 0: no size limit. Default 1 GiB.' }),
        maxAgeDays: z
          .number()
          .int()
          .min(0)
          .max(36500)
          .meta({ title: 'Keep traces for (days)', description: 'Older traces are removed unless pinned. 0: no age limit.' }),
      })
      .meta({ title: 'Traces and disk use', description: 'Each run writes a trace (every event of the run) to the data directory; these bound them.' }),
  { maxBytes: GIB, maxAgeDays: 30 },
);

export type TraceSettings = z.output<typeof traceSettings.schema>;
