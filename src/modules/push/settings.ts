// The `push` settings section: which events send a notification to the devices that turned
// notifications on (Settings › Notifications on this device), and the contact push services are given.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';

/** The VAPID subject when none is set: push services only read it to reach whoever runs the sender. */
export const DEFAULT_CONTACT = 'mailto:svc@localhost';

const contact = () =>
  z
    .string()
    .trim()
    .max(300)
    .refine((value) => value === '' || /^mailto:[^\s@]+@[^\s@]+$/.test(value) || /^https:\/\/[^\s]+$/.test(value), 'a mailto: address or an https:// URL, or empty')
    .meta({
      title: 'Contact for push services',
      description: `A mailto: address or https:// URL a push service may use to reach you about these notifications (the VAPID subject). Empty: ${DEFAULT_CONTACT}.`,
    });

/** The section's schema, built on first use (src/protocol/settings.ts). */
const pushSettingsSchema = () =>
  z
    .strictObject({
      /** A tool call waits for a person: a notification with Allow and Deny. */
      onPermission: z.boolean().meta({ title: 'When a tool call waits for you', description: 'With Allow and Deny on the notification (where the device shows actions).' }),
      /** A run of the chat's agent ended. */
      onRunDone: z.boolean().meta({ title: 'When the agent finishes a run', description: 'The start of its answer, or why it failed.' }),
      /** A chat's goal was reached. */
      onGoalDone: z.boolean().meta({ title: 'When a goal is done' }),
      /** A worker run stalled, timed out or lost its connection. */
      onWorkerAttention: z.boolean().meta({ title: 'When a worker needs attention', description: 'It stalled, timed out or was disconnected.' }),
      contact: contact(),
    })
    .meta({
      title: 'Notifications',
      description: 'Push notifications to the phones and browsers that turned them on (below). They need HTTPS, or localhost on this machine.',
    });

export type PushSettings = z.infer<ReturnType<typeof pushSettingsSchema>>;

export const pushSettings = settingsSection(pushSettingsSchema, {
  onPermission: true,
  onRunDone: false,
  onGoalDone: false,
  onWorkerAttention: false,
  contact: '',
});
