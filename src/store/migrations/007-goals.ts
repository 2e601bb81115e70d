import type { Migration } from './migration.ts';

// Goals, their checkpoints, the turns scheduled for them (and wakeups), and the one task list.
// - goals: one row per goal; `current` marks each chat session's goal (at most one, by the partial
//   unique index); ended goals keep their rows as the history. The pause gate is a small JSON object.
// - goal_checkpoints: what the agent or a person recorded, with the evidence as the server checked it.
// - scheduled_turns: the persisted scheduler. A row is claimed (pending → running) in one UPDATE, so a
//   turn fires once even across a restart; at most one pending goal turn per goal.
// - tasks: content, status, owner, dependencies (`after`, a JSON array of ids), optional goal.
export const m007Goals: Migration = {
  version: 7,
  name: 'goals: goals, checkpoints, scheduled turns and wakeups, tasks',
  up(db) {
    db.exec(`
      CREATE TABLE goals (
        id            TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL,
        objective     TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('active', 'paused', 'complete', 'cancelled')),
        project_root  TEXT,
        budget        TEXT NOT NULL DEFAULT '{}',
        turns         INTEGER NOT NULL DEFAULT 0,
        minutes       REAL NOT NULL DEFAULT 0,
        dispatches    INTEGER NOT NULL DEFAULT 0,
        gate          TEXT NOT NULL,
        mode          TEXT NOT NULL DEFAULT 'assist',
        run_status    TEXT NOT NULL DEFAULT 'running',
        note          TEXT,
        last_done_rejection TEXT,
        current       INTEGER NOT NULL DEFAULT 1,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        ended_at      INTEGER
      );
      CREATE UNIQUE INDEX goals_current ON goals(session_id) WHERE current = 1;
      CREATE INDEX goals_session ON goals(session_id, created_at DESC);

      CREATE TABLE goal_checkpoints (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        goal_id     TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
        summary     TEXT NOT NULL,
        next_action TEXT NOT NULL,
        evidence    TEXT NOT NULL DEFAULT '[]',
        check_result TEXT,
        actor       TEXT NOT NULL,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX goal_checkpoints_goal ON goal_checkpoints(goal_id, id DESC);

      CREATE TABLE scheduled_turns (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        kind        TEXT NOT NULL CHECK (kind IN ('continue', 'audit', 'wakeup')),
        session_id  TEXT NOT NULL,
        goal_id     TEXT,
        due_at      INTEGER NOT NULL,
        prompt      TEXT,
        reason      TEXT NOT NULL DEFAULT '',
        state       TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed', 'cancelled', 'interrupted')),
        request_id  TEXT,
        error       TEXT,
        created_at  INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX scheduled_turns_goal ON scheduled_turns(goal_id) WHERE state = 'pending' AND kind <> 'wakeup';
      CREATE INDEX scheduled_turns_due ON scheduled_turns(state, due_at);
      CREATE INDEX scheduled_turns_request ON scheduled_turns(request_id);

      CREATE TABLE tasks (
        id          TEXT PRIMARY KEY,
        goal_id     TEXT,
        content     TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'done', 'cancelled')),
        owner       TEXT NOT NULL DEFAULT 'main',
        after       TEXT NOT NULL DEFAULT '[]',
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX tasks_status ON tasks(status, created_at);
    `);
  },
};
