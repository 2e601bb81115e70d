// Worker worktrees in SQLite: one row per worktree from the moment git made it until it is merged or
// discarded (kept after that, so a run still says what became of its changes).
import type { Db } from '../../../store/db.ts';
import type { MergeState } from '../../../protocol/orchestration.ts';

export interface Worktree {
  /** The run that made it (a follow-up run works in it too). */
  id: string;
  sessionId: string;
  /** The user's repository (its top level). */
  repo: string;
  /** The worktree's directory, under svc's home. */
  path: string;
  /** Where the working directory lies inside the repository ('' at its top): the worker starts there. */
  subdir: string;
  branch: string;
  base: string;
  uncommittedLeftOut: boolean;
  state: MergeState;
  mergedCommit?: string;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  session_id: string;
  repo: string;
  path: string;
  subdir: string;
  branch: string;
  base: string;
  uncommitted_left_out: number;
  state: MergeState;
  merged_commit: string | null;
  created_at: number;
  updated_at: number;
}

const toWorktree = (r: Row): Worktree => ({
  id: r.id,
  sessionId: r.session_id,
  repo: r.repo,
  path: r.path,
  subdir: r.subdir,
  branch: r.branch,
  base: r.base,
  uncommittedLeftOut: r.uncommitted_left_out === 1,
  state: r.state,
  ...(r.merged_commit ? { mergedCommit: r.merged_commit } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class WorktreeRepo {
  constructor(private readonly db: Db) {}

  insert(w: Omit<Worktree, 'state' | 'updatedAt' | 'mergedCommit'>): void {
    this.db
      .prepare('INSERT INTO worker_worktrees (id, session_id, repo, path, subdir, branch, base, uncommitted_left_out, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, \'open\', ?, ?)')
      .run(w.id, w.sessionId, w.repo, w.path, w.subdir, w.branch, w.base, w.uncommittedLeftOut ? 1 : 0, w.createdAt, w.createdAt);
  }

  get(id: string): Worktree | undefined {
    const row = this.db.prepare('SELECT * FROM worker_worktrees WHERE id = ?').get(id) as Row | undefined;
    return row ? toWorktree(row) : undefined;
  }

  open(): Worktree[] {
    return (this.db.prepare("SELECT * FROM worker_worktrees WHERE state = 'open' ORDER BY created_at DESC").all() as Row[]).map(toWorktree);
  }

  /** Moves an open worktree to merged or discarded; false when it was not open (the first wins). */
  close(id: string, state: 'merged' | 'discarded', at: number, mergedCommit?: string): boolean {
    return this.db.prepare("UPDATE worker_worktrees SET state = ?, merged_commit = ?, updated_at = ? WHERE id = ? AND state = 'open'").run(state, mergedCommit ?? null, at, id).changes === 1;
  }
}
