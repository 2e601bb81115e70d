import type { Migration } from '../migration.ts';

// An instance on a fleet's machine is an instance of the dashboard (origin 'fleet', reached through its machine's
// tunnel): the table gains the origin and the machine it runs on. SQLite changes a CHECK only by copying the table;
// nothing references `instances`, so the copy keeps every row as it was.
export const m008FleetInstances: Migration = {
  version: 8,
  name: 'dashboard: instances on fleet machines',
  up(db) {
    db.exec(`
      CREATE TABLE instances_v8 (
        id          TEXT PRIMARY KEY,
        url         TEXT NOT NULL UNIQUE,
        label       TEXT NOT NULL,
        origin      TEXT NOT NULL CHECK (origin IN ('started', 'scanned', 'added', 'fleet')),
        token       TEXT,
        home        TEXT,
        pid         INTEGER,
        created_at  INTEGER NOT NULL,
        machine_id  TEXT
      );
      INSERT INTO instances_v8 (id, url, label, origin, token, home, pid, created_at)
        SELECT id, url, label, origin, token, home, pid, created_at FROM instances;
      DROP TABLE instances;
      ALTER TABLE instances_v8 RENAME TO instances;
      CREATE INDEX instances_machine ON instances (machine_id) WHERE machine_id IS NOT NULL;
    `);
  },
};
