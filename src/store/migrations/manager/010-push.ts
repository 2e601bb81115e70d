import type { Migration } from '../migration.ts';
import { createPushTables } from '../push-tables.ts';
import { createSecurityAuditTables } from '../security-audit-tables.ts';

// The hub's own push notifications (modules/dashboard/hub-push.ts): the devices that turned them on in the
// dashboard, the single-use decision tokens of the permission requests pushed to them, and the security
// audit that records who added a device and every refused token, as an instance's does.
export const m010Push: Migration = {
  version: 10,
  name: 'dashboard: push subscriptions, decision tokens, security audit',
  up(db) {
    createPushTables(db);
    createSecurityAuditTables(db);
  },
};
