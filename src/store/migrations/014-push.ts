import type { Migration } from './migration.ts';
import { createPushTables } from './push-tables.ts';

// Web Push (src/modules/push): the devices that turned notifications on, and the single-use decision
// tokens their permission notifications carried (only their SHA-256: a copy of the database decides
// nothing). A token belongs to one request, one decision and one device, and goes with the device.
export const m014Push: Migration = {
  version: 14,
  name: 'push: subscriptions and decision tokens',
  up: createPushTables,
};
