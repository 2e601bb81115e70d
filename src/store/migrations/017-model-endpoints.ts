import type { Migration } from './migration.ts';

// Model endpoints (src/modules/models): the model servers a user runs, the API each speaks, its key (kept
// here as the settings' secrets are: in this file, mode 0600, never returned by the API) and its last probe.
export const m017ModelEndpoints: Migration = {
  version: 17,
  name: 'model endpoints',
  up(db) {
    db.exec(`
      CREATE TABLE model_endpoints (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        base_url      TEXT NOT NULL,
        api           TEXT NOT NULL CHECK (api IN ('openai-chat', 'openai-responses', 'anthropic')),
        api_key       TEXT,
        api_key_env   TEXT,
        models        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(models)),
        context_size  INTEGER,
        created_at    INTEGER NOT NULL,
        probe         TEXT CHECK (probe IS NULL OR json_valid(probe))
      );
    `);
  },
};
