import type { Migration } from '../migration.ts';

// Notes an instance's agent leaves through its connector (modules/dashboard/notes.repo.ts).
export const m006Notes: Migration = {
  version: 6,
  name: 'dashboard: connector notes',
  up(db) {
    db.exec(`
      CREATE TABLE connector_notes (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        instance_id   TEXT NOT NULL,
        title         TEXT NOT NULL,
        body          TEXT NOT NULL,
        board_item_id TEXT,
        created_at    INTEGER NOT NULL
      );
      CREATE INDEX connector_notes_instance ON connector_notes (instance_id, id);
    `);
  },
};
