import type { Migration } from './migration.ts';

// The security audit log (src/modules/security-audit): append-only, each row's hash covers the previous
// row's hash and its own canonical content. The triggers refuse UPDATE and DELETE so nothing in svc can
// rewrite history by mistake; someone who edits the file anyway (or drops the triggers) is caught by the
// chain check. `security_audit_head` remembers the last seq and hash, so deleting the newest rows shows.
export const m008SecurityAudit: Migration = {
  version: 8,
  name: 'security audit: hash-chained entries',
  up(db) {
    db.exec(`
      CREATE TABLE security_audit (
        seq        INTEGER PRIMARY KEY,
        ts         INTEGER NOT NULL,
        actor      TEXT NOT NULL,
        action     TEXT NOT NULL,
        target     TEXT NOT NULL,
        outcome    TEXT NOT NULL,
        details    TEXT NOT NULL CHECK (json_valid(details)),
        prev_hash  TEXT NOT NULL,
        hash       TEXT NOT NULL
      );
      CREATE INDEX security_audit_action ON security_audit(action, seq);
      CREATE TRIGGER security_audit_no_update BEFORE UPDATE ON security_audit
        BEGIN SELECT RAISE(ABORT, 'the security audit log is append-only'); END;
      CREATE TRIGGER security_audit_no_delete BEFORE DELETE ON security_audit
        BEGIN SELECT RAISE(ABORT, 'the security audit log is append-only'); END;
      CREATE TABLE security_audit_head (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        seq   INTEGER NOT NULL,
        hash  TEXT NOT NULL
      );
    `);
  },
};
