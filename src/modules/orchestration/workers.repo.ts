// Worker runs in SQLite: every run is a row from the moment it is dispatched, so a restart finds the
// queued ones (run them), the running ones (orphaned: their process died with the server) and the
// ended ones whose result was not delivered yet (deliver them, once).
import type { Db } from '../../store/db.ts';
import type { Employee, Phase, WorkerRun, WorkerRunStatus } from '../../protocol/orchestration.ts';

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
}

/** A run as stored, with what the server needs beside the public shape. */
export interface StoredRun extends WorkerRun {
  output: string;
  batchIndex?: number;
  planVersion?: number;
  round?: number;
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
  const { output: _o, batchIndex: _b, planVersion: _p, round: _r, ...rest } = run;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as WorkerRun;
}

export class WorkerRunRepo {
  constructor(private readonly db: Db) {}

  insert(run: { runId: string; sessionId: string; employee: Employee; task: string; phase?: Phase; batchId?: string; batchIndex?: number; affectedFiles?: string[]; planVersion?: number; round?: number; createdAt: number }): void {
    this.db
      .prepare(
        `INSERT INTO worker_runs (id, session_id, employee_id, employee, task, phase, batch_id, batch_index, affected_files, plan_version, round, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
      )
      .run(run.runId, run.sessionId, run.employee.id, JSON.stringify(run.employee), run.task, run.phase ?? null, run.batchId ?? null, run.batchIndex ?? null,
        run.affectedFiles ? JSON.stringify(run.affectedFiles) : null, run.planVersion ?? null, run.round ?? null, run.createdAt);
  }

  get(id: string): StoredRun | undefined {
    const row = this.db.prepare('SELECT * FROM worker_runs WHERE id = ?').get(id) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  list(filter: { sessionId?: string; status?: WorkerRunStatus; employeeId?: string; batchId?: string; limit: number }): StoredRun[] {
    const where: string[] = [];
    const args: unknown[] = [];
    for (const [column, value] of [['session_id', filter.sessionId], ['status', filter.status], ['employee_id', filter.employeeId], ['batch_id', filter.batchId]] as const) {
      if (value !== undefined) {
        where.push(`${column} = ?`);
        args.push(value);
      }
    }
    const sql = `SELECT * FROM worker_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, filter.limit) as Row[]).map(toRun);
  }

  /** Queued runs, oldest first (the order they start in). */
  queued(): StoredRun[] {
    return (this.db.prepare("SELECT * FROM worker_runs WHERE status = 'queued' ORDER BY created_at, rowid").all() as Row[]).map(toRun);
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
    return (this.db.prepare("SELECT * FROM worker_runs WHERE delivered_at IS NULL AND status NOT IN ('queued', 'running') ORDER BY ended_at, rowid").all() as Row[]).map(toRun);
  }

  /** At start: runs that were running when the server died. */
  markOrphaned(at: number): string[] {
    const rows = this.db.prepare("SELECT id FROM worker_runs WHERE status = 'running'").all() as { id: string }[];
    this.db.prepare("UPDATE worker_runs SET status = 'orphaned', reason = 'the server stopped while the run was going; its process was ended at restart', ended_at = ? WHERE status = 'running'").run(at);
    return rows.map((r) => r.id);
  }
}
