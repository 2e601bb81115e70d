// The `fleet` settings section of svc serve: whether this machine takes work from its fleet's queue, and how much
// at once. It matters only on a machine that joined a fleet (svc fleet join).
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

const fleetSettingsSchema = () =>
  z
    .strictObject({
      acceptWork: z.boolean().meta({ title: 'Take work from the fleet', description: "Run items of the fleet's work queue that this machine can run (its provider ready, their directory here)." }),
      workAtOnce: z.number().int().min(1).max(20).meta({ title: 'Work items at once', description: 'Items of the queue this machine runs at the same time.' }),
    })
    .meta({ title: 'Fleet', description: 'For a machine that joined a fleet: the work it takes from the queue.' });
export type FleetSettings = z.infer<ReturnType<typeof fleetSettingsSchema>>;

export const fleetSettings = settingsSection(fleetSettingsSchema, { acceptWork: true, workAtOnce: 1 });
