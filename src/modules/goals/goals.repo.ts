// Goals and their checkpoints in SQLite. Every change is one statement or one transaction, so two
// requests on the same goal never interleave half-written state.
import type { Db } from '../../store/db.ts';
import { newId } from '../../core/ids.ts';
import type { Budget, Checkpoint, CheckResult, Gate, Goal, GoalRunMode, GoalRunStatus, GoalStatus } from '../../protocol/goals.ts';

interface GoalRow {
  id: string;
  session_id: string;
  objective: string;
  status: GoalStatus;
  project_root: string | null;
  budget: string;
  turns: number;
  minutes: number;
  dispatches: number;
  gate: string;
  mode: GoalRunMode;
  run_status: GoalRunStatus;
  note: string | null;
  last_done_rejection: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

interface CheckpointRow {
  id: number;
  summary: string;
  next_action: string;
  evidence: string;
  check_result: string | null;
  actor: 'agent' | 'human';
  created_at: number;
}

const toGoal = (r: GoalRow): Goal => ({
  id: r.id,
  sessionId: r.session_id,
  objective: r.objective,
  status: r.status,
  projectRoot: r.project_root,
  budget: JSON.parse(r.budget) as Budget,
  usage: { turns: r.turns, minutes: r.minutes, dispatches: r.dispatches },
  gate: JSON.parse(r.gate) as Gate,
  mode: r.mode,
  runStatus: r.run_status,
  note: r.note,
  lastDoneRejection: r.last_done_rejection,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  endedAt: r.ended_at,
});

const toCheckpoint = (r: CheckpointRow): Checkpoint => ({
  id: r.id,
  summary: r.summary,
  nextAction: r.next_action,
  evidence: JSON.parse(r.evidence) as Checkpoint['evidence'],
  check: r.check_result ? (JSON.parse(r.check_result) as CheckResult) : null,
  actor: r.actor,
  createdAt: r.created_at,
});

/** Fields a change may set (the rest stay). */
export interface GoalPatch {
  objective?: string;
  status?: GoalStatus;
  gate?: Gate;
  budget?: Budget;
  mode?: GoalRunMode;
  runStatus?: GoalRunStatus;
  note?: string | null;
  lastDoneRejection?: string | null;
  endedAt?: number | null;
}

const COLUMNS: Record<keyof GoalPatch, string> = {
  objective: 'objective',
  status: 'status',
  gate: 'gate',
  budget: 'budget',
  mode: 'mode',
  runStatus: 'run_status',
  note: 'note',
  lastDoneRejection: 'last_done_rejection',
  endedAt: 'ended_at',
};

export class GoalRepo {
  constructor(private readonly db: Db) {}

  current(sessionId: string): Goal | null {
    const row = this.db.prepare('SELECT * FROM goals WHERE session_id = ? AND current = 1').get(sessionId) as GoalRow | undefined;
    return row ? toGoal(row) : null;
  }

  get(id: string): Goal | null {
    const row = this.db.prepare('SELECT * FROM goals WHERE id = ?').get(id) as GoalRow | undefined;
    return row ? toGoal(row) : null;
  }

  /** Active goals of every session (to resume their loops after a restart). */
  active(): Goal[] {
    return (this.db.prepare("SELECT * FROM goals WHERE current = 1 AND status = 'active'").all() as GoalRow[]).map(toGoal);
  }

  history(sessionId: string, limit: number): Goal[] {
    const rows = this.db.prepare('SELECT * FROM goals WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(sessionId, limit) as GoalRow[];
    return rows.map(toGoal);
  }

  /** A new current goal for the session; the previous one (if any) stops being current. */
  create(input: { sessionId: string; objective: string; projectRoot: string | null; budget: Budget; gate: Gate; mode: GoalRunMode }, now: number): Goal {
    const id = newId('goal', 9);
    this.db.transaction(() => {
      this.db.prepare('UPDATE goals SET current = 0 WHERE session_id = ? AND current = 1').run(input.sessionId);
      this.db
        .prepare('INSERT INTO goals (id, session_id, objective, status, project_root, budget, gate, mode, created_at, updated_at) VALUES (?, ?, ?, \'active\', ?, ?, ?, ?, ?, ?)')
        .run(id, input.sessionId, input.objective, input.projectRoot, JSON.stringify(input.budget), JSON.stringify(input.gate), input.mode, now, now);
    })();
    return this.get(id)!;
  }

  /** `now` becomes updated_at: bookkeeping that is not progress (a note, the run status) passes the old value, so staleness stays true. */
  update(id: string, patch: GoalPatch, now: number): Goal {
    const sets: string[] = ['updated_at = @now'];
    const values: Record<string, unknown> = { id, now };
    for (const [key, value] of Object.entries(patch) as [keyof GoalPatch, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${COLUMNS[key]} = @${key}`);
      values[key] = key === 'gate' || key === 'budget' ? JSON.stringify(value) : value;
    }
    this.db.prepare(`UPDATE goals SET ${sets.join(', ')} WHERE id = @id`).run(values);
    return this.get(id)!;
  }

  /** Counts a finished turn of the goal (not its updated_at: a turn is not progress). */
  addUsage(id: string, usage: { turns?: number; minutes?: number; dispatches?: number }): void {
    this.db
      .prepare('UPDATE goals SET turns = turns + ?, minutes = minutes + ?, dispatches = dispatches + ? WHERE id = ?')
      .run(usage.turns ?? 0, usage.minutes ?? 0, usage.dispatches ?? 0, id);
  }

  resetUsage(id: string): void {
    this.db.prepare('UPDATE goals SET turns = 0, minutes = 0, dispatches = 0 WHERE id = ?').run(id);
  }

  detach(sessionId: string): void {
    this.db.prepare('UPDATE goals SET current = 0 WHERE session_id = ? AND current = 1').run(sessionId);
  }

  addCheckpoint(goalId: string, input: Omit<Checkpoint, 'id' | 'createdAt'>, now: number): Checkpoint {
    const info = this.db
      .prepare('INSERT INTO goal_checkpoints (goal_id, summary, next_action, evidence, check_result, actor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(goalId, input.summary, input.nextAction, JSON.stringify(input.evidence), input.check ? JSON.stringify(input.check) : null, input.actor, now);
    return { ...input, id: Number(info.lastInsertRowid), createdAt: now };
  }

  checkpoints(goalId: string, limit = 20): Checkpoint[] {
    const rows = this.db.prepare('SELECT * FROM goal_checkpoints WHERE goal_id = ? ORDER BY id DESC LIMIT ?').all(goalId, limit) as CheckpointRow[];
    return rows.map(toCheckpoint);
  }
}
