// Worker runs in SQLite: every run is a row from the moment it is dispatched, so a restart finds the
// queued ones (run them), the running ones (orphaned: their process died with the server) and the
// ended ones whose result was not delivered yet (deliver them, once).
import type { Db } from '../../store/db.ts';
import type { Employee, Isolation, MergeState, Phase, WorkerRun, WorkerRunStatus } from '../../protocol/orchestration.ts';

interface Row {
  id: string;
  session_id: string;
  employee_id: string;
  employee: string;
  task: string;
  phase: string | null;
  batch_id: string | null;
  batch_index: number | null;
  affected_files: string | null;
  plan_version: number | null;
  round: number | null;
  status: WorkerRunStatus;
  reason: string | null;
  verdict: string | null;
  scope_violations: string | null;
  steps: string;
  output: string;
  pid: number | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  last_activity_at: number | null;
  delivered_at: number | null;
  isolation: Isolation;
  worktree_id: string | null;
  review_of: string | null;
  /** From the run's worktree (LEFT JOIN worker_worktrees). */
  wt_branch: string | null;
  wt_base: string | null;
  wt_state: MergeState | null;
  wt_merged_commit: string | null;
  wt_left_out: number | null;
}

/** A run with its worktree's state beside it. */
const SELECT = `SELECT r.*, w.branch AS wt_branch, w.base AS wt_base, w.state AS wt_state, w.merged_commit AS wt_merged_commit, w.uncommitted_left_out AS wt_left_out
  FROM worker_runs r LEFT JOIN worker_worktrees w ON w.id = r.worktree_id`;

/** A run as stored, with what the server needs beside the public shape. */
export interface StoredRun extends WorkerRun {
  output: string;
  batchIndex?: number;
  planVersion?: number;
  round?: number;
  /** The worktree it works in (its own id, or its first run's for a follow-up). */
  worktreeId?: string;
}

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function toRun(r: Row): StoredRun {
  const output = r.output;
  return {
    runId: r.id,
    sessionId: r.session_id,
    employeeId: r.employee_id,
    employee: JSON.parse(r.employee) as Employee,
    task: r.task,
    ...(r.phase ? { phase: r.phase as Phase } : {}),
    ...(r.batch_id ? { batchId: r.batch_id, batchIndex: r.batch_index ?? 0 } : {}),
    ...(r.affected_files ? { affectedFiles: JSON.parse(r.affected_files) as string[] } : {}),
    ...(r.plan_version !== null ? { planVersion: r.plan_version } : {}),
    ...(r.round !== null ? { round: r.round } : {}),
    status: r.status,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.verdict ? { verdict: r.verdict } : {}),
    ...(r.scope_violations ? { scopeViolations: JSON.parse(r.scope_violations) as string[] } : {}),
    isolation: r.isolation,
    ...(r.worktree_id ? { worktreeId: r.worktree_id } : {}),
    ...(r.wt_state ? { worktree: { branch: r.wt_branch!, base: r.wt_base!, state: r.wt_state, ...(r.wt_merged_commit ? { mergedCommit: r.wt_merged_commit } : {}), uncommittedLeftOut: r.wt_left_out === 1 } } : {}),
    ...(r.review_of ? { reviewOf: r.review_of } : {}),
    steps: JSON.parse(r.steps),
    output,
    outputChars: output.length,
    createdAt: r.created_at,
    startedAt: opt(r.started_at),
    endedAt: opt(r.ended_at),
    lastActivityAt: opt(r.last_activity_at),
    deliveredAt: opt(r.delivered_at),
  };
}

/** The public shape (without the output text and the server's bookkeeping). */
export function publicRun(run: StoredRun): WorkerRun {
  const { output: _o, batchIndex: _b, planVersion: _p, round: _r, worktreeId: _w, ...rest } = run;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as WorkerRun;
}

export class WorkerRunRepo {
  constructor(private readonly db: Db) {}

  insert(run: { runId: string; sessionId: string; employee: Employee; task: string; phase?: Phase; batchId?: string; batchIndex?: number; affectedFiles?: string[]; planVersion?: number; round?: number; isolation: Isolation; worktreeId?: string; reviewOf?: string; createdAt: number }): void {
    this.db
      .prepare(
        `INSERT INTO worker_runs (id, session_id, employee_id, employee, task, phase, batch_id, batch_index, affected_files, plan_version, round, isolation, worktree_id, review_of, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
      )
      .run(run.runId, run.sessionId, run.employee.id, JSON.stringify(run.employee), run.task, run.phase ?? null, run.batchId ?? null, run.batchIndex ?? null,
        run.affectedFiles ? JSON.stringify(run.affectedFiles) : null, run.planVersion ?? null, run.round ?? null, run.isolation, run.worktreeId ?? null, run.reviewOf ?? null, run.createdAt);
  }

  /** The worktree a run works in, once git made it. */
  setWorktree(id: string, worktreeId: string): void {
    this.db.prepare('UPDATE worker_runs SET worktree_id = ? WHERE id = ?').run(worktreeId, id);
  }

  /** The runs that worked in one worktree, first first. */
  inWorktree(worktreeId: string): StoredRun[] {
    return (this.db.prepare(`${SELECT} WHERE r.worktree_id = ? ORDER BY r.created_at, r.rowid`).all(worktreeId) as Row[]).map(toRun);
  }

  get(id: string): StoredRun | undefined {
    const row = this.db.prepare(`${SELECT} WHERE r.id = ?`).get(id) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  list(filter: { sessionId?: string; status?: WorkerRunStatus; employeeId?: string; batchId?: string; limit: number }): StoredRun[] {
    const where: string[] = [];
    const args: unknown[] = [];
    for (const [column, value] of [['r.session_id', filter.sessionId], ['r.status', filter.status], ['r.employee_id', filter.employeeId], ['r.batch_id', filter.batchId]] as const) {
      if (value !== undefined) {
        where.push(`${column} = ?`);
        args.push(value);
      }
    }
    const sql = `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, filter.limit) as Row[]).map(toRun);
  }

  /** Queued runs, oldest first (the order they start in). */
  queued(): StoredRun[] {
    return (this.db.prepare(`${SELECT} WHERE r.status = 'queued' ORDER BY r.created_at, r.rowid`).all() as Row[]).map(toRun);
  }

  started(id: string, at: number): void {
    this.db.prepare("UPDATE worker_runs SET status = 'running', started_at = ?, last_activity_at = ? WHERE id = ?").run(at, at, id);
  }

  progress(id: string, fields: { steps: unknown[]; output: string; lastActivityAt: number; pid?: number }): void {
    this.db.prepare('UPDATE worker_runs SET steps = ?, output = ?, last_activity_at = ?, pid = COALESCE(?, pid) WHERE id = ?').run(JSON.stringify(fields.steps), fields.output, fields.lastActivityAt, fields.pid ?? null, id);
  }

  /** Ends a run that has not ended yet; false when it had (the first end wins). */
  end(id: string, fields: { status: WorkerRunStatus; reason: string; verdict?: string; scopeViolations?: string[]; at: number }): boolean {
    const info = this.db
      .prepare("UPDATE worker_runs SET status = ?, reason = ?, verdict = ?, scope_violations = ?, ended_at = ? WHERE id = ? AND status IN ('queued', 'running')")
      .run(fields.status, fields.reason, fields.verdict ?? null, fields.scopeViolations?.length ? JSON.stringify(fields.scopeViolations) : null, fields.at, id);
    return info.changes === 1;
  }

  /** Claims the delivery of a run's result; true exactly once per run, across restarts. */
  claimDelivery(id: string, at: number): boolean {
    return this.db.prepare("UPDATE worker_runs SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL AND status NOT IN ('queued', 'running')").run(at, id).changes === 1;
  }

  undelivered(): StoredRun[] {
    return (this.db.prepare(`${SELECT} WHERE r.delivered_at IS NULL AND r.status NOT IN ('queued', 'running') ORDER BY r.ended_at, r.rowid`).all() as Row[]).map(toRun);
  }

  /** At start: runs that were running when the server died. */
  markOrphaned(at: number): string[] {
    const rows = this.db.prepare("SELECT id FROM worker_runs WHERE status = 'running'").all() as { id: string }[];
    this.db.prepare("UPDATE worker_runs SET status = 'orphaned', reason = 'the server stopped while the run was going; its process was ended at restart', ended_at = ? WHERE status = 'running'").run(at);
    return rows.map((r) => r.id);
  }
}
