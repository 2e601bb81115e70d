import type { Migration } from './migration.ts';

// The skills registry (src/modules/skills): skills added from a local path or an npm package, by
// reference (nothing is copied), and each skill's enabled flag when the user changed it.
export const m011Skills: Migration = {
  version: 11,
  name: 'skills: added skills and enabled flags',
  up(db) {
    db.exec(`
      CREATE TABLE skill_sources (
        id        TEXT PRIMARY KEY,
        kind      TEXT NOT NULL CHECK (kind IN ('path', 'npm')),
        location  TEXT NOT NULL,
        added_at  INTEGER NOT NULL
      );
      CREATE TABLE skill_state (
        id       TEXT PRIMARY KEY,
        enabled  INTEGER NOT NULL CHECK (enabled IN (0, 1))
      );
    `);
  },
};
