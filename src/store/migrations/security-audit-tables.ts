// The security audit log's tables (src/modules/security-audit), the same in an instance's database and in the
// manager's: see 008-security-audit.ts.
import type Database from 'better-sqlite3';

export function createSecurityAuditTables(db: Database.Database): void {
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
}
