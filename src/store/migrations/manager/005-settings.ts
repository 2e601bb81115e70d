import type { Migration } from '../migration.ts';

// The manager's settings (modules/dashboard/settings.ts): one row holding the fields a user set, as
// JSON; the rest follow the defaults of the running version.
export const m005Settings: Migration = {
  version: 5,
  name: 'dashboard: manager settings',
  up(db) {
    db.exec(`
      CREATE TABLE manager_settings (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        value      TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `);
  },
};
