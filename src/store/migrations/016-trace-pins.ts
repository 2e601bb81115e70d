import type { Migration } from './migration.ts';

// Trace pins (src/modules/traces/retention.ts): a trace a person pinned is never removed by trace
// retention. Only pins are stored: a removed trace is known by its run's row outliving its file.
export const m016TracePins: Migration = {
  version: 16,
  name: 'trace pins',
  up(db) {
    db.exec(`
      CREATE TABLE trace_pins (
        trace_id   TEXT PRIMARY KEY,
        pinned_at  INTEGER NOT NULL
      );
    `);
  },
};
