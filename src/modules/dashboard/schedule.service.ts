// The schedule: jobs (a cron expression with croner, or a one-off time) that send their prompt to
// an instance when due and record each run: sent, answered (with the answer's message id), failed,
// or skipped with the reason (offline, or busy under the `skip` policy). A slot is claimed in the
// database before anything is sent, so it fires at most once, across ticks and restarts; slots
// missed while the manager was down collapse into one run.
import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import { badRequest, notFound } from '../../core/errors.ts';
import type { Instance, ScheduleJob, ScheduleRun } from '../../protocol/dashboard.ts';
import { sendPrompt, type Target } from './instance-client.ts';
import type { ScheduleRepo } from './schedule.repo.ts';

export interface ScheduleDeps {
  repo: ScheduleRepo;
  /** The instance's current row and how to reach it (throws when unknown). */
  instance(id: string): { row: Instance; target: Target };
  onRun(job: ScheduleJob, run: ScheduleRun): void;
  /** How long an answer may take (default 30 min). */
  answerTimeoutMs?: number;
  /** Longest wait between two checks of the clock (default 30 s). */
  maxSleepMs?: number;
}

export interface JobInput {
  title: string;
  instanceId: string;
  prompt: string;
  cron?: string;
  runAt?: number;
  whenBusy?: 'skip' | 'queue';
  enabled?: boolean;
}

/** The next time a cron expression is due after `from` (null: never again); a bad one is a 400. */
export function nextCronRun(expr: string, from: number): number | null {
  let cron: Cron;
  try {
    cron = new Cron(expr, { paused: true });
  } catch (err) {
    throw badRequest('VALIDATION_FAILED', `'${expr}' is not a cron expression croner reads: ${(err as Error).message}`, { field: 'cron' });
  }
  const next = cron.nextRun(new Date(from));
  cron.stop();
  return next ? next.getTime() : null;
}

export class ScheduleService {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Ends the sends under way when the manager stops (their runs are marked failed at the next start). */
  private readonly stopping = new AbortController();

  constructor(private readonly d: ScheduleDeps) {}

  start(): void {
    this.d.repo.failInterrupted();
    this.arm();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  list(): ScheduleJob[] {
    return this.d.repo.jobs();
  }

  get(id: string): ScheduleJob {
    const job = this.d.repo.job(id);
    if (!job) throw notFound('Scheduled job', id);
    return job;
  }

  runs(id: string): ScheduleRun[] {
    this.get(id);
    return this.d.repo.runs(id);
  }

  create(input: JobInput): ScheduleJob {
    const now = Date.now();
    const job = this.normalize({ id: `job_${randomBytes(6).toString('hex')}`, createdAt: now, updatedAt: now, whenBusy: 'skip', enabled: true, nextRunAt: null, cron: null, runAt: null, ...input } as ScheduleJob, now);
    this.d.repo.saveJob(job);
    this.arm();
    return job;
  }

  update(id: string, patch: Partial<JobInput>): ScheduleJob {
    const current = this.get(id);
    const now = Date.now();
    // a new timing replaces the old one whole
    const timing = patch.cron !== undefined ? { cron: patch.cron, runAt: null } : patch.runAt !== undefined ? { cron: null, runAt: patch.runAt } : {};
    const job = this.normalize({ ...current, ...patch, ...timing, updatedAt: now } as ScheduleJob, now);
    this.d.repo.saveJob(job);
    this.arm();
    return job;
  }

  remove(id: string): void {
    if (!this.d.repo.removeJob(id)) throw notFound('Scheduled job', id);
  }

  private normalize(job: ScheduleJob, now: number): ScheduleJob {
    // (the field named is the one to change: a 400 from the schema names its field the same way)
    if ((job.cron === null) === (job.runAt === null)) throw badRequest('VALIDATION_FAILED', 'Give either cron (a cron expression) or runAt (a time in ms), not both.', { field: job.cron === null ? 'runAt' : 'cron' });
    this.d.instance(job.instanceId);
    const nextRunAt = !job.enabled ? null : job.cron !== null ? nextCronRun(job.cron, now) : job.runAt! > now || !this.d.repo.runs(job.id, 1).length ? job.runAt : null;
    return { ...job, nextRunAt };
  }

  /** Sleeps until the earliest due job (at most maxSleepMs, so a changed clock is noticed). */
  private arm(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const next = this.d.repo.nextDue();
    const max = this.d.maxSleepMs ?? 30_000;
    const delay = next === null ? max : Math.max(0, Math.min(max, next - Date.now()));
    this.timer = setTimeout(() => {
      this.tick(Date.now());
      this.arm();
    }, delay);
    this.timer.unref();
  }

  /** Claims and runs every due slot. */
  tick(now: number): void {
    for (const job of this.d.repo.due(now)) {
      const next = job.cron !== null ? nextCronRun(job.cron, Math.max(now, job.nextRunAt!)) : null;
      const run = this.d.repo.claim(job, next, now);
      if (!run) continue;
      const p = this.execute(job, run).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async execute(job: ScheduleJob, run: ScheduleRun): Promise<void> {
    const finish = (fields: Parameters<ScheduleRepo['finishRun']>[1]) => {
      if (this.closed) return;
      this.d.repo.finishRun(run.id, fields);
      this.d.onRun(job, this.d.repo.runs(job.id).find((r) => r.id === run.id)!);
    };
    let target: { row: Instance; target: Target };
    try {
      target = this.d.instance(job.instanceId);
    } catch {
      return finish({ status: 'skipped', reason: 'the instance is no longer registered', finished: true });
    }
    if (target.row.status !== 'online') return finish({ status: 'skipped', reason: `the instance is ${target.row.status}`, finished: true });
    if (target.row.busy && job.whenBusy === 'skip') return finish({ status: 'skipped', reason: 'the instance was busy (policy: skip)', finished: true });
    try {
      const outcome = await sendPrompt(target.target, job.prompt, {
        timeoutMs: this.d.answerTimeoutMs ?? 30 * 60_000,
        signal: this.stopping.signal,
        onAccepted: () => finish({ status: 'sent', finished: false }),
      });
      finish({
        status: outcome.status === 'ok' ? 'answered' : 'failed',
        reason: outcome.status === 'ok' ? null : (outcome.reason ?? `the run ended ${outcome.status}`),
        messageId: outcome.messageId ?? null,
        traceId: outcome.traceId ?? null,
        finished: true,
      });
    } catch (err) {
      finish({ status: 'failed', reason: (err as Error).message, finished: true });
    }
  }
}
