// Storage of the security audit log: appends (row and head in one transaction) and reads. Nothing here
// updates or deletes a row; the table's triggers refuse it anyway.
import type Database from 'better-sqlite3';
import type { Db } from '../../store/db.ts';
import type { AuditEntry, AuditOutcome } from '../../protocol/security-audit.ts';
import { entryHash, GENESIS_HASH, type ChainHead } from './chain.ts';

export interface AuditRecord {
  ts: number;
  actor: string;
  action: string;
  target: string;
  outcome: AuditOutcome;
  details: Record<string, unknown>;
}

export interface AuditQuery {
  /** Entries after this seq, oldest first; absent = the newest `limit` entries. */
  since?: number;
  limit: number;
  /** An action, or a dotted prefix of one (`channel` matches `channel.send`). */
  action?: string;
  outcome?: AuditOutcome;
}

interface Row {
  seq: number;
  ts: number;
  actor: string;
  action: string;
  target: string;
  outcome: AuditOutcome;
  details: string;
  prev_hash: string;
  hash: string;
}

const toEntry = (row: Row): AuditEntry => ({
  seq: row.seq,
  ts: row.ts,
  actor: row.actor,
  action: row.action,
  target: row.target,
  outcome: row.outcome,
  details: JSON.parse(row.details) as Record<string, unknown>,
  prevHash: row.prev_hash,
  hash: row.hash,
});

export class AuditRepo {
  private readonly appendTx: Database.Transaction<(record: AuditRecord) => AuditEntry>;

  constructor(private readonly db: Db) {
    const insert = db.prepare(
      'INSERT INTO security_audit (seq, ts, actor, action, target, outcome, details, prev_hash, hash) VALUES (@seq, @ts, @actor, @action, @target, @outcome, @details, @prevHash, @hash)',
    );
    const setHead = db.prepare('INSERT INTO security_audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash');
    this.appendTx = db.transaction((record: AuditRecord) => {
      // The head, not MAX(seq): a row deleted behind svc's back never lets its seq or hash be reused.
      const head = this.head() ?? { seq: 0, hash: GENESIS_HASH };
      const content = { seq: head.seq + 1, ...record };
      const entry: AuditEntry = { ...content, prevHash: head.hash, hash: entryHash(head.hash, content) };
      insert.run({ ...entry, details: JSON.stringify(entry.details) });
      setHead.run(entry.seq, entry.hash);
      return entry;
    });
  }

  append(record: AuditRecord): AuditEntry {
    return this.appendTx.immediate(record);
  }

  head(): ChainHead | undefined {
    return this.db.prepare('SELECT seq, hash FROM security_audit_head WHERE id = 1').get() as ChainHead | undefined;
  }

  /** One page, oldest first, and whether more match after it. */
  page(query: AuditQuery): { entries: AuditEntry[]; hasMore: boolean } {
    const where: string[] = [];
    const args: Record<string, unknown> = { limit: query.limit + 1 };
    if (query.action) {
      where.push("(action = @action OR substr(action, 1, length(@action) + 1) = @action || '.')");
      args.action = query.action;
    }
    if (query.outcome) {
      where.push('outcome = @outcome');
      args.outcome = query.outcome;
    }
    if (query.since !== undefined) {
      where.push('seq > @since');
      args.since = query.since;
      const rows = this.db.prepare(`SELECT * FROM security_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq LIMIT @limit`).all(args) as Row[];
      return { entries: rows.slice(0, query.limit).map(toEntry), hasMore: rows.length > query.limit };
    }
    const rows = this.db.prepare(`SELECT * FROM security_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`).all(args) as Row[];
    return { entries: rows.slice(0, query.limit).reverse().map(toEntry), hasMore: false };
  }

  /** Every row in seq order, read lazily (the log may be long). */
  *all(): Generator<AuditEntry> {
    for (const row of this.db.prepare('SELECT * FROM security_audit ORDER BY seq').iterate() as Iterable<Row>) yield toEntry(row);
  }
}
