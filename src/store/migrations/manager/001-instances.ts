import type { Migration } from '../migration.ts';

// The manager's registry of instances (src/modules/dashboard/instances.repo.ts). `id` is the stable
// identity (never the port); `token` is the credential the manager presents to the instance; `home`
// and `pid` are set for instances the manager started (their marker file holds the same pid and token).
export const m001Instances: Migration = {
  version: 1,
  name: 'dashboard: instances',
  up(db) {
    db.exec(`
      CREATE TABLE instances (
        id          TEXT PRIMARY KEY,
        url         TEXT NOT NULL UNIQUE,
        label       TEXT NOT NULL,
        origin      TEXT NOT NULL CHECK (origin IN ('started', 'scanned', 'added')),
        token       TEXT,
        home        TEXT,
        pid         INTEGER,
        created_at  INTEGER NOT NULL
      );
    `);
  },
};
