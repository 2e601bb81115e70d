import type { Migration } from './migration.ts';

// Agent runs: the provider session to resume per chat session and provider, and one row per run
// (the summary behind GET /api/traces/:runId; the events themselves are NDJSON files).
export const m002Agent: Migration = {
  version: 2,
  name: 'agent: provider sessions, runs',
  up(db) {
    db.exec(`
      CREATE TABLE provider_sessions (
        chat_session_id      TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        provider             TEXT NOT NULL,
        provider_session_id  TEXT NOT NULL,
        updated_at           INTEGER NOT NULL,
        PRIMARY KEY (chat_session_id, provider)
      );

      CREATE TABLE runs (
        id               TEXT PRIMARY KEY,
        chat_session_id  TEXT NOT NULL,
        request_id       TEXT NOT NULL,
        provider         TEXT NOT NULL,
        model            TEXT NOT NULL DEFAULT '',
        status           TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'stopped', 'interrupted')),
        error            TEXT,
        message_id       INTEGER,
        usage            TEXT,
        event_count      INTEGER NOT NULL DEFAULT 0,
        started_at       INTEGER NOT NULL,
        finished_at      INTEGER
      );
      CREATE INDEX runs_started_at ON runs(started_at);
    `);
  },
};
