// Scheduled jobs and their runs (tables schedule_jobs and schedule_runs of dashboard.db).
import type { Db } from '../../store/db.ts';
import type { ScheduleJob, ScheduleRun } from '../../protocol/dashboard.ts';

interface JobRow {
  id: string;
  title: string;
  instance_id: string;
  prompt: string;
  cron: string | null;
  run_at: number | null;
  when_busy: 'skip' | 'queue';
  enabled: number;
  next_run_at: number | null;
  created_at: number;
  updated_at: number;
}

interface RunRow {
  id: number;
  job_id: string;
  slot: number;
  status: ScheduleRun['status'];
  reason: string | null;
  message_id: number | null;
  trace_id: string | null;
  started_at: number;
  finished_at: number | null;
}

const toJob = (r: JobRow): ScheduleJob => ({
  id: r.id,
  title: r.title,
  instanceId: r.instance_id,
  prompt: r.prompt,
  cron: r.cron,
  runAt: r.run_at,
  whenBusy: r.when_busy,
  enabled: r.enabled === 1,
  nextRunAt: r.next_run_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toRun = (r: RunRow): ScheduleRun => ({
  id: r.id,
  jobId: r.job_id,
  slot: r.slot,
  status: r.status,
  reason: r.reason,
  messageId: r.message_id,
  traceId: r.trace_id,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export class ScheduleRepo {
  constructor(private readonly db: Db) {}

  jobs(): ScheduleJob[] {
    return (this.db.prepare('SELECT * FROM schedule_jobs ORDER BY created_at, id').all() as JobRow[]).map(toJob);
  }

  job(id: string): ScheduleJob | undefined {
    const row = this.db.prepare('SELECT * FROM schedule_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && toJob(row);
  }

  saveJob(j: ScheduleJob): void {
    this.db
      .prepare(
        `INSERT INTO schedule_jobs (id, title, instance_id, prompt, cron, run_at, when_busy, enabled, next_run_at, created_at, updated_at)
         VALUES (@id, @title, @instanceId, @prompt, @cron, @runAt, @whenBusy, @enabled, @nextRunAt, @createdAt, @updatedAt)
         ON CONFLICT(id) DO UPDATE SET title = excluded.title, instance_id = excluded.instance_id, prompt = excluded.prompt, cron = excluded.cron,
           run_at = excluded.run_at, when_busy = excluded.when_busy, enabled = excluded.enabled, next_run_at = excluded.next_run_at, updated_at = excluded.updated_at`,
      )
      .run({ ...j, enabled: j.enabled ? 1 : 0 });
  }

  removeJob(id: string): boolean {
    return this.db.prepare('DELETE FROM schedule_jobs WHERE id = ?').run(id).changes > 0;
  }

  /** Enabled jobs whose next run is due. */
  due(now: number): ScheduleJob[] {
    return (this.db.prepare('SELECT * FROM schedule_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?').all(now) as JobRow[]).map(toJob);
  }

  /** The earliest next run of an enabled job, for the runner's timer. */
  nextDue(): number | null {
    const row = this.db.prepare('SELECT MIN(next_run_at) AS t FROM schedule_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL').get() as { t: number | null };
    return row.t;
  }

  /**
   * Claims a slot of a job and moves the job to its next slot, in one transaction: the run row is
   * created only if this slot has none (UNIQUE job_id, slot), so a slot fires at most once.
   */
  claim(job: ScheduleJob, next: number | null, now: number): ScheduleRun | null {
    return this.db.transaction(() => {
      const inserted = this.db
        .prepare(`INSERT INTO schedule_runs (job_id, slot, status, started_at) VALUES (?, ?, 'sending', ?) ON CONFLICT(job_id, slot) DO NOTHING`)
        .run(job.id, job.nextRunAt, now);
      this.db.prepare('UPDATE schedule_jobs SET next_run_at = ?, updated_at = ? WHERE id = ?').run(next, now, job.id);
      if (inserted.changes === 0) return null;
      return toRun(this.db.prepare('SELECT * FROM schedule_runs WHERE id = ?').get(inserted.lastInsertRowid) as RunRow);
    }).immediate();
  }

  finishRun(id: number, fields: { status: ScheduleRun['status']; reason?: string | null; messageId?: number | null; traceId?: string | null; finished: boolean }): void {
    this.db
      .prepare('UPDATE schedule_runs SET status = ?, reason = ?, message_id = ?, trace_id = ?, finished_at = ? WHERE id = ?')
      .run(fields.status, fields.reason ?? null, fields.messageId ?? null, fields.traceId ?? null, fields.finished ? Date.now() : null, id);
  }

  runs(jobId: string, limit = 50): ScheduleRun[] {
    return (this.db.prepare('SELECT * FROM schedule_runs WHERE job_id = ? ORDER BY slot DESC, id DESC LIMIT ?').all(jobId, limit) as RunRow[]).map(toRun);
  }

  /** Runs a stopped manager left half-done: they are failed, not sent again (the slot is spent). */
  failInterrupted(): number {
    return this.db.prepare(`UPDATE schedule_runs SET status = 'failed', reason = 'the manager stopped during the run', finished_at = ? WHERE status IN ('sending', 'sent')`).run(Date.now()).changes;
  }
}
