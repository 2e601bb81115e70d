// The `goals` settings section: how soon a goal's next turn starts, and when an untouched goal stops.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

/** The section's schema, built on first use (src/protocol/settings.ts). */
const goalSettingsSchema = () =>
  z
    .strictObject({
      /** Seconds between the end of a turn and the goal's next turn. */
      turnDelaySec: z.number().min(0).max(3600).meta({ title: "Seconds before a goal's next turn", description: 'Between the end of one turn and the start of the next.' }),
      /** A goal nobody changed (no checkpoint, no action) for this many days stops continuing. */
      staleDays: z
        .number()
        .min(0.01)
        .max(365)
        .meta({ title: 'Days before an unchanged goal stops', description: 'A goal with no checkpoint or action for this long stops continuing until it is resumed.' }),
    })
    .meta({ title: 'Goals', description: 'How a chat keeps working towards its goal on its own.' });

export type GoalSettings = z.infer<ReturnType<typeof goalSettingsSchema>>;

export const goalSettings = settingsSection(goalSettingsSchema, { turnDelaySec: 2, staleDays: 3 });
