// The persisted scheduler of agent turns: goal continuations, pause-gate audits and wakeups are rows
// in scheduled_turns. One timer watches the earliest pending row; a due row is claimed by a single
// UPDATE (pending → running) before it fires, so it fires once, also across a restart. A turn that
// was running when the server stopped is marked interrupted at start (the service decides what next).
import type { Db } from '../../store/db.ts';

export type TurnJobKind = 'continue' | 'audit' | 'wakeup';
export type TurnJobState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';

export interface TurnJob {
  id: number;
  kind: TurnJobKind;
  sessionId: string;
  goalId: string | null;
  dueAt: number;
  prompt: string | null;
  reason: string;
  state: TurnJobState;
  requestId: string | null;
  error: string | null;
}

interface Row {
  id: number;
  kind: TurnJobKind;
  session_id: string;
  goal_id: string | null;
  due_at: number;
  prompt: string | null;
  reason: string;
  state: TurnJobState;
  request_id: string | null;
  error: string | null;
}

const toJob = (r: Row): TurnJob => ({
  id: r.id,
  kind: r.kind,
  sessionId: r.session_id,
  goalId: r.goal_id,
  dueAt: r.due_at,
  prompt: r.prompt,
  reason: r.reason,
  state: r.state,
  requestId: r.request_id,
  error: r.error,
});

/** Longest single timer (setTimeout's limit is 2^31-1 ms); a later job re-arms it. */
const MAX_TIMER_MS = 3_600_000;

export class TurnScheduler {
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly fire: (job: TurnJob) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks turns cut by a stop as interrupted (returned) and arms the timer for the pending ones. */
  start(): TurnJob[] {
    const cut = (this.db.prepare("SELECT * FROM scheduled_turns WHERE state = 'running'").all() as Row[]).map(toJob);
    this.db.prepare("UPDATE scheduled_turns SET state = 'interrupted' WHERE state = 'running'").run();
    this.arm();
    return cut;
  }

  /** Adds a job; a goal's new turn replaces its pending one (at most one per goal). */
  schedule(input: { kind: TurnJobKind; sessionId: string; goalId?: string | null; dueAt: number; prompt?: string | null; reason?: string }): TurnJob {
    const id = this.db.transaction(() => {
      if (input.goalId && input.kind !== 'wakeup') this.cancelGoal(input.goalId);
      return Number(
        this.db
          .prepare("INSERT INTO scheduled_turns (kind, session_id, goal_id, due_at, prompt, reason, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)")
          .run(input.kind, input.sessionId, input.goalId ?? null, input.dueAt, input.prompt ?? null, input.reason ?? '', this.now()).lastInsertRowid,
      );
    })();
    this.arm();
    return this.get(id)!;
  }

  get(id: number): TurnJob | undefined {
    const row = this.db.prepare('SELECT * FROM scheduled_turns WHERE id = ?').get(id) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  /** The job a submitted request belongs to. */
  byRequest(requestId: string): TurnJob | undefined {
    const row = this.db.prepare('SELECT * FROM scheduled_turns WHERE request_id = ?').get(requestId) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  /** The goal's turn that is due or submitted and not yet ended. */
  inFlight(goalId: string): TurnJob | undefined {
    const row = this.db.prepare("SELECT * FROM scheduled_turns WHERE goal_id = ? AND state IN ('pending', 'running') AND kind <> 'wakeup' LIMIT 1").get(goalId) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  pendingFor(goalId: string): TurnJob | undefined {
    const row = this.db.prepare("SELECT * FROM scheduled_turns WHERE goal_id = ? AND state = 'pending' AND kind <> 'wakeup'").get(goalId) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  wakeups(sessionId: string, limit = 50): TurnJob[] {
    return (this.db.prepare("SELECT * FROM scheduled_turns WHERE kind = 'wakeup' AND session_id = ? ORDER BY id DESC LIMIT ?").all(sessionId, limit) as Row[]).map(toJob);
  }

  cancelGoal(goalId: string): void {
    this.db.prepare("UPDATE scheduled_turns SET state = 'cancelled' WHERE goal_id = ? AND state = 'pending' AND kind <> 'wakeup'").run(goalId);
  }

  cancel(id: number): boolean {
    return this.db.prepare("UPDATE scheduled_turns SET state = 'cancelled' WHERE id = ? AND state = 'pending'").run(id).changes === 1;
  }

  started(id: number, requestId: string): void {
    this.db.prepare('UPDATE scheduled_turns SET request_id = ? WHERE id = ?').run(requestId, id);
  }

  finish(id: number, state: 'done' | 'failed', error?: string): void {
    this.db.prepare('UPDATE scheduled_turns SET state = ?, error = ? WHERE id = ?').run(state, error ?? null, id);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const next = this.db.prepare("SELECT due_at FROM scheduled_turns WHERE state = 'pending' ORDER BY due_at LIMIT 1").get() as { due_at: number } | undefined;
    if (!next) return;
    this.timer = setTimeout(() => this.tick(), Math.min(MAX_TIMER_MS, Math.max(0, next.due_at - this.now())));
  }

  private tick(): void {
    if (this.closed) return;
    const due = (this.db.prepare("SELECT * FROM scheduled_turns WHERE state = 'pending' AND due_at <= ? ORDER BY due_at, id").all(this.now()) as Row[]).map(toJob);
    for (const job of due) {
      // the claim: only the caller whose UPDATE changed the row fires it
      const claimed = this.db.prepare("UPDATE scheduled_turns SET state = 'running' WHERE id = ? AND state = 'pending'").run(job.id).changes === 1;
      if (!claimed) continue;
      try {
        this.fire({ ...job, state: 'running' });
      } catch (err) {
        this.finish(job.id, 'failed', (err as Error).message);
      }
    }
    this.arm();
  }
}
