import type { Migration } from '../migration.ts';

// Connector credentials the manager issued to instances (only a hash is kept) and the audit of every
// write made with one (connectors.repo.ts).
export const m003Connectors: Migration = {
  version: 3,
  name: 'dashboard: connector credentials and audit',
  up(db) {
    db.exec(`
      CREATE TABLE connector_credentials (
        instance_id TEXT PRIMARY KEY,
        hash        TEXT NOT NULL UNIQUE,
        created_at  INTEGER NOT NULL
      );
      CREATE TABLE connector_audit (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        instance_id TEXT NOT NULL,
        action      TEXT NOT NULL,
        target_id   TEXT,
        summary     TEXT NOT NULL,
        created_at  INTEGER NOT NULL
      );
    `);
  },
};
