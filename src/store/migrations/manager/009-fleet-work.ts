import type { Migration } from '../migration.ts';

// The fleet's work queue (modules/fleet/work-queue.ts): the items and each machine's attempt at one. JetStream holds
// what is still to be delivered; these tables hold what the dashboard shows and decide which attempt counts.
export const m009FleetWork: Migration = {
  version: 9,
  name: 'dashboard: fleet work items',
  up(db) {
    db.exec(`
      CREATE TABLE work_items (
        id           TEXT PRIMARY KEY,
        prompt       TEXT NOT NULL,
        provider     TEXT,
        model        TEXT,
        machine      TEXT NOT NULL,
        working_dir  TEXT,
        status       TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
        attempt      TEXT,
        answer       TEXT,
        reason       TEXT,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL
      );
      CREATE INDEX work_items_created ON work_items (created_at);
      CREATE TABLE work_attempts (
        id           TEXT PRIMARY KEY,
        item_id      TEXT NOT NULL REFERENCES work_items(id) ON DELETE CASCADE,
        machine_id   TEXT NOT NULL,
        instance_id  TEXT,
        run_id       TEXT,
        status       TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'abandoned')),
        reason       TEXT,
        started_at   INTEGER NOT NULL,
        ended_at     INTEGER
      );
      CREATE INDEX work_attempts_item ON work_attempts (item_id, started_at);
      CREATE INDEX work_attempts_running ON work_attempts (machine_id) WHERE status = 'running';
    `);
  },
};
