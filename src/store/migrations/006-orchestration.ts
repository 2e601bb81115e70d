import type { Migration } from './migration.ts';

// The orchestration of each chat session (one JSON document per session: phase, records, history),
// the employees (worker definitions; presets are rows too once changed), and the worker runs, which
// are durable: a run that was running when the server died is found and marked orphaned at start.
export const m006Orchestration: Migration = {
  version: 6,
  name: 'orchestration: per-session state, employees, worker runs',
  up(db) {
    db.exec(`
      CREATE TABLE orchestrations (
        session_id  TEXT PRIMARY KEY,
        state       TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE TABLE employees (
        id          TEXT PRIMARY KEY,
        data        TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE TABLE worker_runs (
        id            TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL,
        employee_id   TEXT NOT NULL,
        employee      TEXT NOT NULL,
        task          TEXT NOT NULL,
        phase         TEXT,
        batch_id      TEXT,
        batch_index   INTEGER,
        affected_files TEXT,
        plan_version  INTEGER,
        round         INTEGER,
        status        TEXT NOT NULL,
        reason        TEXT,
        verdict       TEXT,
        scope_violations TEXT,
        steps         TEXT NOT NULL DEFAULT '[]',
        output        TEXT NOT NULL DEFAULT '',
        pid           INTEGER,
        created_at    INTEGER NOT NULL,
        started_at    INTEGER,
        ended_at      INTEGER,
        last_activity_at INTEGER,
        delivered_at  INTEGER
      );
      CREATE INDEX worker_runs_session ON worker_runs (session_id, created_at);
      CREATE INDEX worker_runs_status ON worker_runs (status);
      CREATE INDEX worker_runs_batch ON worker_runs (batch_id);
    `);
  },
};
