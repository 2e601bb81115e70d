import type { Migration } from './migration.ts';
import { createSecurityAuditTables } from './security-audit-tables.ts';

// The security audit log (src/modules/security-audit): append-only, each row's hash covers the previous
// row's hash and its own canonical content. The triggers refuse UPDATE and DELETE so nothing in svc can
// rewrite history by mistake; someone who edits the file anyway (or drops the triggers) is caught by the
// chain check. `security_audit_head` remembers the last seq and hash, so deleting the newest rows shows.
export const m008SecurityAudit: Migration = {
  version: 8,
  name: 'security audit: hash-chained entries',
  up: createSecurityAuditTables,
};
