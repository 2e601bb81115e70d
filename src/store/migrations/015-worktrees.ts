import type { Migration } from './migration.ts';

// Worker worktrees (src/modules/orchestration/worktrees): a mutable worker with isolation "worktree"
// writes in a git worktree of its own, on branch svc/<runId>, until a person merges or discards it.
// The row outlives a restart, so an open worktree is still listed, diffed and discarded after one. A
// follow-up run (a review asked for changes) works in its first run's worktree: worktree_id names it.
export const m015Worktrees: Migration = {
  version: 15,
  name: 'worker worktrees',
  up(db) {
    db.exec(`
      CREATE TABLE worker_worktrees (
        id                    TEXT PRIMARY KEY,
        session_id            TEXT NOT NULL,
        repo                  TEXT NOT NULL,
        path                  TEXT NOT NULL,
        subdir                TEXT NOT NULL,
        branch                TEXT NOT NULL,
        base                  TEXT NOT NULL,
        uncommitted_left_out  INTEGER NOT NULL,
        state                 TEXT NOT NULL CHECK (state IN ('open', 'merged', 'discarded')),
        merged_commit         TEXT,
        created_at            INTEGER NOT NULL,
        updated_at            INTEGER NOT NULL
      );
      CREATE INDEX worker_worktrees_state ON worker_worktrees (state);
      ALTER TABLE worker_runs ADD COLUMN isolation TEXT NOT NULL DEFAULT 'none';
      ALTER TABLE worker_runs ADD COLUMN worktree_id TEXT;
      ALTER TABLE worker_runs ADD COLUMN review_of TEXT;
      CREATE INDEX worker_runs_worktree ON worker_runs (worktree_id);
    `);
  },
};
