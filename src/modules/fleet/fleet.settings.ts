// The `fleet` settings section of svc serve: whether this machine takes work from its fleet's queue, and how much
// at once, and where its other svc serve instances are looked for. It matters only on a machine that joined a fleet
// (svc fleet join).
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

const fleetSettingsSchema = () =>
  z
    .strictObject({
      acceptWork: z.boolean().meta({ title: 'Take work from the fleet', description: "Run items of the fleet's work queue that this machine can run (its provider ready, their directory here)." }),
      workAtOnce: z.number().int().min(1).max(20).meta({ title: 'Work items at once', description: 'Items of the queue this machine runs at the same time.' }),
      scan: z
        .strictObject({
          from: z.number().int().min(1).max(65535).meta({ title: 'First port' }),
          count: z.number().int().min(0).max(1000).meta({ title: 'Ports', description: '0: list only this instance.' }),
        })
        .meta({ title: 'Other instances here', description: "The loopback ports where this machine's other svc serve instances are looked for, to list them under this machine in the fleet." }),
    })
    .meta({ title: 'Fleet', description: "For a machine that joined a fleet: the work it takes from the queue, and the machine's other instances." });
export type FleetSettings = z.infer<ReturnType<typeof fleetSettingsSchema>>;

export const fleetSettings = settingsSection(fleetSettingsSchema, { acceptWork: true, workAtOnce: 1, scan: { from: 3457, count: 50 } });
