import type { Migration } from '../migration.ts';

// The board's work items (board.repo.ts) and the schedule's jobs and runs (schedule.repo.ts).
// schedule_runs has one row per (job, slot): the UNIQUE key is what keeps a slot from firing twice,
// across restarts and overlapping ticks alike.
export const m002BoardSchedule: Migration = {
  version: 2,
  name: 'dashboard: board and schedule',
  up(db) {
    db.exec(`
      CREATE TABLE board_items (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        detail      TEXT NOT NULL DEFAULT '',
        lane        TEXT NOT NULL CHECK (lane IN ('backlog', 'ready', 'active', 'review', 'done')),
        position    REAL NOT NULL,
        instance_id TEXT,
        session_id  TEXT,
        message_id  INTEGER,
        source      TEXT NOT NULL CHECK (source IN ('user', 'message', 'connector')),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX board_items_lane ON board_items(lane, position);
      CREATE TABLE schedule_jobs (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        prompt      TEXT NOT NULL,
        cron        TEXT,
        run_at      INTEGER,
        when_busy   TEXT NOT NULL CHECK (when_busy IN ('skip', 'queue')),
        enabled     INTEGER NOT NULL,
        next_run_at INTEGER,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        CHECK ((cron IS NULL) <> (run_at IS NULL))
      );
      CREATE TABLE schedule_runs (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id      TEXT NOT NULL REFERENCES schedule_jobs(id) ON DELETE CASCADE,
        slot        INTEGER NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('sending', 'sent', 'answered', 'failed', 'skipped')),
        reason      TEXT,
        message_id  INTEGER,
        trace_id    TEXT,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (job_id, slot)
      );
    `);
  },
};
