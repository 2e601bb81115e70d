import type { Migration } from './migration.ts';

// What the runner learned about providers' rate limits (src/agent/quota.ts): the last limit seen and
// the last success, per provider, so GET /api/quota still knows them after a restart. `observed` is
// that record as JSON.
export const m004QuotaObservations: Migration = {
  version: 4,
  name: 'quota: observed rate limits per provider',
  up(db) {
    db.exec(`
      CREATE TABLE quota_observations (
        provider    TEXT PRIMARY KEY,
        observed    TEXT NOT NULL CHECK (json_valid(observed)),
        updated_at  INTEGER NOT NULL
      );
    `);
  },
};
