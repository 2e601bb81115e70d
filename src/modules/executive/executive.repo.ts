// Storage of the executive agent: transcript, watches, completions, confirmations and audit, all in
// SQLite so they survive a restart. The single-use and exactly-once rules are enforced here by
// conditional updates and unique keys, not by reads followed by writes.
import type { Db } from '../../store/db.ts';
import type { CeoAudit, CeoAuditKind, Completion, Confirmation, TranscriptEntry, Watch } from '../../protocol/executive.ts';

const TRANSCRIPT_KEEP = 500;
const AUDIT_KEEP = 5000;
export const SUMMARY_CHARS = 320;

type Row = Record<string, any>;

const transcript = (r: Row): TranscriptEntry => ({ id: r.id, at: r.at, role: r.role, text: r.text, instanceId: r.instance_id, untrusted: r.untrusted === 1 });
const watch = (r: Row): Watch => ({ id: r.id, instanceId: r.instance_id, requestId: r.request_id, reason: r.reason, status: r.status, createdAt: r.created_at, endedAt: r.ended_at });
const completion = (r: Row): Completion => ({
  key: r.key,
  watchId: r.watch_id,
  instanceId: r.instance_id,
  requestId: r.request_id,
  runStatus: r.run_status,
  text: r.text,
  summary: r.text.slice(0, SUMMARY_CHARS),
  messageId: r.message_id,
  status: r.status,
  detectedAt: r.detected_at,
});
const confirmation = (r: Row): Confirmation => ({ id: r.id, action: r.action, args: JSON.parse(r.args), argsHash: r.args_hash, status: r.status, createdAt: r.created_at, expiresAt: r.expires_at });
const audit = (r: Row): CeoAudit => ({ id: r.id, at: r.at, kind: r.kind, action: r.action, ok: r.ok === 1, instanceId: r.instance_id, message: r.message, meta: r.meta ? JSON.parse(r.meta) : null });

import type { DoneRun } from './fleet.ts';

export class ExecutiveRepo {
  constructor(private readonly db: Db) {}

  // ── transcript ──
  addTranscript(e: Omit<TranscriptEntry, 'id'>): TranscriptEntry {
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO ceo_transcript (at, role, text, instance_id, untrusted) VALUES (?, ?, ?, ?, ?)')
      .run(e.at, e.role, e.text, e.instanceId, e.untrusted ? 1 : 0);
    this.db.prepare('DELETE FROM ceo_transcript WHERE id <= ?').run(Number(lastInsertRowid) - TRANSCRIPT_KEEP);
    return { ...e, id: Number(lastInsertRowid) };
  }

  transcriptTail(limit: number): TranscriptEntry[] {
    return (this.db.prepare('SELECT * FROM ceo_transcript ORDER BY id DESC LIMIT ?').all(limit) as Row[]).map(transcript).reverse();
  }

  // ── watches ──
  addWatch(w: Watch): Watch {
    this.db
      .prepare('INSERT INTO ceo_watches (id, instance_id, request_id, reason, status, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(w.id, w.instanceId, w.requestId, w.reason, w.status, w.createdAt, w.endedAt);
    return w;
  }

  getWatch(id: string): Watch | undefined {
    const r = this.db.prepare('SELECT * FROM ceo_watches WHERE id = ?').get(id) as Row | undefined;
    return r && watch(r);
  }

  watches(all: boolean): Watch[] {
    const sql = all ? 'SELECT * FROM ceo_watches ORDER BY created_at DESC LIMIT 200' : "SELECT * FROM ceo_watches WHERE status = 'active' ORDER BY created_at";
    return (this.db.prepare(sql).all() as Row[]).map(watch);
  }

  /** Ends an active watch; false when it had ended already. */
  removeWatch(id: string, at: number): boolean {
    return this.db.prepare("UPDATE ceo_watches SET status = 'removed', ended_at = ? WHERE id = ? AND status = 'active'").run(at, id).changes === 1;
  }

  /**
   * Records the completion of a finished run for the watch it belongs to, and ends that watch, in one
   * transaction: the watch of that very request, else the newest manual watch of the instance made
   * before the run ended. Undefined when no active watch claims it (or it was recorded already).
   */
  readonly complete = (run: DoneRun, at: number): { completion: Completion; watch: Watch } | undefined =>
    this.db.transaction(() => {
      const w = (this.db.prepare("SELECT * FROM ceo_watches WHERE request_id = ? AND status = 'active'").get(run.requestId) as Row | undefined) ??
        (this.db
          .prepare("SELECT * FROM ceo_watches WHERE instance_id = ? AND request_id IS NULL AND status = 'active' AND created_at <= ? ORDER BY created_at DESC LIMIT 1")
          .get(run.instanceId, at) as Row | undefined);
      if (!w || w.instance_id !== run.instanceId) return undefined;
      const key = `${w.id}:${run.requestId}`;
      const inserted = this.db
        .prepare("INSERT OR IGNORE INTO ceo_completions (key, watch_id, instance_id, request_id, run_status, text, message_id, status, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)")
        .run(key, w.id, run.instanceId, run.requestId, run.status, run.text, run.messageId ?? null, at);
      if (inserted.changes === 0) return undefined;
      this.db.prepare("UPDATE ceo_watches SET status = 'completed', ended_at = ? WHERE id = ?").run(at, w.id);
      return { completion: this.getCompletion(key)!, watch: this.getWatch(w.id)! };
    }).immediate();

  // ── completions ──
  getCompletion(key: string): Completion | undefined {
    const r = this.db.prepare('SELECT * FROM ceo_completions WHERE key = ?').get(key) as Row | undefined;
    return r && completion(r);
  }

  completions(statuses: readonly string[]): Completion[] {
    const marks = statuses.map(() => '?').join(', ');
    return (this.db.prepare(`SELECT * FROM ceo_completions WHERE status IN (${marks}) ORDER BY detected_at DESC LIMIT 100`).all(...statuses) as Row[]).map(completion);
  }

  setCompletionStatus(key: string, status: Completion['status']): boolean {
    return this.db.prepare('UPDATE ceo_completions SET status = ? WHERE key = ?').run(status, key).changes === 1;
  }

  // ── confirmations ──
  addConfirmation(c: Confirmation): Confirmation {
    this.db
      .prepare('INSERT INTO ceo_confirmations (id, action, args_hash, args, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(c.id, c.action, c.argsHash, JSON.stringify(c.args), c.status, c.createdAt, c.expiresAt);
    return c;
  }

  getConfirmation(id: string): Confirmation | undefined {
    const r = this.db.prepare('SELECT * FROM ceo_confirmations WHERE id = ?').get(id) as Row | undefined;
    return r && confirmation(r);
  }

  /** Confirmations still waiting for a person or for their action (unexpired), newest first. */
  liveConfirmations(now: number): Confirmation[] {
    return (this.db.prepare("SELECT * FROM ceo_confirmations WHERE status IN ('pending', 'approved') AND expires_at > ? ORDER BY created_at DESC LIMIT 50").all(now) as Row[]).map(confirmation);
  }

  /** Moves a confirmation from one status to another; false when it was not in `from` (or expired). */
  transition(id: string, from: Confirmation['status'], to: Confirmation['status'], now: number): boolean {
    return this.db.prepare('UPDATE ceo_confirmations SET status = ? WHERE id = ? AND status = ? AND expires_at > ?').run(to, id, from, now).changes === 1;
  }

  /** Consumes an approved, unexpired confirmation of exactly this action and argument hash: once. */
  consume(id: string, action: string, argsHash: string, now: number): boolean {
    return (
      this.db
        .prepare("UPDATE ceo_confirmations SET status = 'consumed' WHERE id = ? AND action = ? AND args_hash = ? AND status = 'approved' AND expires_at > ?")
        .run(id, action, argsHash, now).changes === 1
    );
  }

  // ── settings and the agent's provider session ──
  getValue<T>(key: string): T | undefined {
    const r = this.db.prepare('SELECT value FROM ceo_kv WHERE key = ?').get(key) as Row | undefined;
    return r ? (JSON.parse(r.value) as T) : undefined;
  }

  setValue(key: string, value: unknown): void {
    this.db.prepare('INSERT INTO ceo_kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  // ── audit ──
  addAudit(a: { at: number; kind: CeoAuditKind; action: string; ok: boolean; instanceId?: string | null; message: string; meta?: Record<string, unknown> }): CeoAudit {
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO ceo_audit (at, kind, action, ok, instance_id, message, meta) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(a.at, a.kind, a.action, a.ok ? 1 : 0, a.instanceId ?? null, a.message, a.meta ? JSON.stringify(a.meta) : null);
    const id = Number(lastInsertRowid);
    if (id % 100 === 0) this.db.prepare('DELETE FROM ceo_audit WHERE id <= ?').run(id - AUDIT_KEEP);
    return { id, at: a.at, kind: a.kind, action: a.action, ok: a.ok, instanceId: a.instanceId ?? null, message: a.message, meta: a.meta ?? null };
  }

  audit(q: { kind?: string; instanceId?: string; limit: number }): CeoAudit[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.kind) (where.push('kind = ?'), args.push(q.kind));
    if (q.instanceId) (where.push('instance_id = ?'), args.push(q.instanceId));
    const sql = `SELECT * FROM ceo_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, q.limit) as Row[]).map(audit);
  }
}
