import type { Migration } from './migration.ts';

// Tool permissions answered by a person (src/modules/permissions): each request a CLI made and how it
// was answered (kept, so a restart can resolve what was pending and the history shows who decided),
// and the rules "remember" leaves.
export const m013Permissions: Migration = {
  version: 13,
  name: 'permissions: requests and remembered rules',
  up(db) {
    db.exec(`
      CREATE TABLE permission_requests (
        id          TEXT PRIMARY KEY,
        session_id  TEXT NOT NULL,
        run_id      TEXT NOT NULL,
        provider    TEXT NOT NULL,
        tool        TEXT NOT NULL,
        input       TEXT NOT NULL,
        summary     TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied')),
        decided_at  INTEGER,
        decided_by  TEXT,
        reason      TEXT
      );
      CREATE INDEX permission_requests_pending ON permission_requests (status, session_id);
      CREATE TABLE permission_rules (
        id          TEXT PRIMARY KEY,
        tool        TEXT NOT NULL,
        pattern     TEXT NOT NULL,
        decision    TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
        scope       TEXT NOT NULL CHECK (scope IN ('session', 'always')),
        session_id  TEXT,
        created_at  INTEGER NOT NULL
      );
    `);
  },
};
