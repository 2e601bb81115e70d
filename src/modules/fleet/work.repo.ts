// The fleet's work items and attempts (tables of dashboard.db). The repo decides which attempt counts: an item is
// claimed by one attempt at a time (a newer claim abandons the one before: its machine died or was revoked, and the
// queue gave the item to another), and an item ends once: a late end of an abandoned attempt changes nothing.
import type { Db } from '../../store/db.ts';
import type { WorkAttempt, WorkItem, WORK_STATES } from '../../protocol/fleet.ts';

export interface NewWork {
  id: string;
  prompt: string;
  provider: string | null;
  model: string | null;
  machine: string;
  workingDir: string | null;
}

interface ItemRow {
  id: string;
  prompt: string;
  provider: string | null;
  model: string | null;
  machine: string;
  working_dir: string | null;
  status: (typeof WORK_STATES)[number];
  attempt: string | null;
  answer: string | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
}

interface AttemptRow {
  id: string;
  item_id: string;
  machine_id: string;
  instance_id: string | null;
  run_id: string | null;
  status: WorkAttempt['status'];
  reason: string | null;
  started_at: number;
  ended_at: number | null;
}

const toAttempt = (a: AttemptRow): WorkAttempt => ({
  machineId: a.machine_id,
  instanceId: a.instance_id,
  runId: a.run_id,
  status: a.status,
  reason: a.reason,
  startedAt: a.started_at,
  endedAt: a.ended_at,
});

export type ClaimOutcome = { ok: true; abandoned: boolean } | { ok: false; reason: string };

export class WorkRepo {
  constructor(private readonly db: Db) {}

  add(item: NewWork, now: number): void {
    this.db
      .prepare('INSERT INTO work_items (id, prompt, provider, model, machine, working_dir, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, \'queued\', ?, ?)')
      .run(item.id, item.prompt, item.provider, item.model, item.machine, item.workingDir, now, now);
  }

  get(id: string): WorkItem | undefined {
    const row = this.db.prepare('SELECT * FROM work_items WHERE id = ?').get(id) as ItemRow | undefined;
    return row && this.view(row);
  }

  /** The newest items first. */
  list(limit: number): WorkItem[] {
    return (this.db.prepare('SELECT * FROM work_items ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as ItemRow[]).map((r) => this.view(r));
  }

  /**
   * A machine takes an item. Refused when the item ended or is unknown; an attempt of another machine still running
   * is abandoned (the queue redelivers only what was not acknowledged in time: that machine is gone).
   */
  claim(itemId: string, attempt: { id: string; machineId: string; instanceId: string | null; runId: string | null }, now: number): ClaimOutcome {
    return this.db.transaction((): ClaimOutcome => {
      const item = this.db.prepare('SELECT status, attempt FROM work_items WHERE id = ?').get(itemId) as Pick<ItemRow, 'status' | 'attempt'> | undefined;
      if (!item) return { ok: false, reason: 'no such work item' };
      if (item.status === 'succeeded' || item.status === 'failed') return { ok: false, reason: `the item ${item.status} already` };
      if (item.attempt === attempt.id) return { ok: true, abandoned: false };
      if (this.db.prepare('SELECT 1 FROM work_attempts WHERE id = ?').get(attempt.id)) return { ok: false, reason: 'this attempt was abandoned: another machine took the item' };
      const abandoned = this.db
        .prepare("UPDATE work_attempts SET status = 'abandoned', reason = 'another machine took the item (this one stopped answering)', ended_at = ? WHERE item_id = ? AND status = 'running'")
        .run(now, itemId).changes;
      this.db
        .prepare("INSERT INTO work_attempts (id, item_id, machine_id, instance_id, run_id, status, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?)")
        .run(attempt.id, itemId, attempt.machineId, attempt.instanceId, attempt.runId, now);
      this.db.prepare("UPDATE work_items SET status = 'running', attempt = ?, updated_at = ? WHERE id = ?").run(attempt.id, now, itemId);
      return { ok: true, abandoned: abandoned > 0 };
    })();
  }

  /** An attempt ended: the item ends with it when it is the item's current attempt (true), otherwise nothing changes. */
  end(itemId: string, attemptId: string, outcome: { status: 'succeeded' | 'failed'; answer: string | null; reason: string | null }, now: number): boolean {
    return this.db.transaction(() => {
      const current = this.db.prepare("SELECT 1 FROM work_items WHERE id = ? AND attempt = ? AND status = 'running'").get(itemId, attemptId);
      if (!current) return false;
      this.db.prepare('UPDATE work_attempts SET status = ?, reason = ?, ended_at = ? WHERE id = ?').run(outcome.status, outcome.reason, now, attemptId);
      this.db.prepare('UPDATE work_items SET status = ?, answer = ?, reason = ?, updated_at = ? WHERE id = ?').run(outcome.status, outcome.answer, outcome.reason, now, itemId);
      return true;
    })();
  }

  /** An item that never reached the queue fails with the reason. */
  fail(itemId: string, reason: string, now: number): void {
    this.db.prepare("UPDATE work_items SET status = 'failed', reason = ?, updated_at = ? WHERE id = ? AND status = 'queued'").run(reason, now, itemId);
  }

  /**
   * A machine was revoked: its running attempts are abandoned and their items queued again (the queue redelivers
   * them), and the items only it could run fail. Returns the ids of the items that changed.
   */
  revokeMachine(machineId: string, now: number): string[] {
    return this.db.transaction(() => {
      const running = this.db.prepare("SELECT item_id FROM work_attempts WHERE machine_id = ? AND status = 'running'").all(machineId) as { item_id: string }[];
      this.db.prepare("UPDATE work_attempts SET status = 'abandoned', reason = 'its machine was revoked', ended_at = ? WHERE machine_id = ? AND status = 'running'").run(now, machineId);
      const requeue = this.db.prepare("UPDATE work_items SET status = 'queued', attempt = NULL, updated_at = ? WHERE id = ? AND machine = 'any' AND status = 'running'");
      for (const { item_id } of running) requeue.run(now, item_id);
      const pinned = this.db.prepare("SELECT id FROM work_items WHERE machine = ? AND status IN ('queued', 'running')").all(machineId) as { id: string }[];
      this.db.prepare("UPDATE work_items SET status = 'failed', reason = 'its machine was revoked', updated_at = ? WHERE machine = ? AND status IN ('queued', 'running')").run(now, machineId);
      return [...new Set([...running.map((r) => r.item_id), ...pinned.map((r) => r.id)])];
    })();
  }

  private view(row: ItemRow): WorkItem {
    const attempts = (this.db.prepare('SELECT * FROM work_attempts WHERE item_id = ? ORDER BY started_at, rowid').all(row.id) as AttemptRow[]).map(toAttempt);
    const current = row.attempt ? (this.db.prepare('SELECT * FROM work_attempts WHERE id = ?').get(row.attempt) as AttemptRow | undefined) : undefined;
    return {
      id: row.id,
      prompt: row.prompt,
      provider: row.provider,
      model: row.model,
      machine: row.machine,
      workingDir: row.working_dir,
      status: row.status,
      machineId: current?.machine_id ?? null,
      instanceId: current?.instance_id ?? null,
      runId: current?.run_id ?? null,
      answer: row.answer,
      reason: row.reason,
      attempts,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
