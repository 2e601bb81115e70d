import type { Migration } from '../migration.ts';

// The fleet (modules/fleet): invites to join (the code's hash only) and the machines that joined.
export const m007Fleet: Migration = {
  version: 7,
  name: 'dashboard: fleet invites and machines',
  up(db) {
    db.exec(`
      CREATE TABLE fleet_invites (
        id          TEXT PRIMARY KEY,
        code_hash   TEXT NOT NULL UNIQUE,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        used_at     INTEGER,
        machine_id  TEXT
      );
      CREATE TABLE fleet_machines (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        public_key  TEXT NOT NULL UNIQUE,
        joined_at   INTEGER NOT NULL,
        last_seen   INTEGER,
        info        TEXT NOT NULL DEFAULT '{}',
        revoked_at  INTEGER
      );
    `);
  },
};
