// The hash chain of the security audit log, pure: each entry's hash is SHA-256 over the previous hash
// and the entry's canonical JSON (keys sorted at every level), so any edit, deletion or reordering of a
// stored row changes a hash that a later row (or the stored head) vouches for.
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../protocol/security-audit.ts';

export const GENESIS_HASH = '0'.repeat(64);

export type AuditContent = Omit<AuditEntry, 'prevHash' | 'hash'>;

/** JSON with object keys sorted at every level: one text per value, whatever the insertion order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function entryHash(prevHash: string, content: AuditContent): string {
  const { seq, ts, actor, action, target, outcome, details } = content;
  return createHash('sha256').update(prevHash).update('\n').update(canonicalJson({ seq, ts, actor, action, target, outcome, details })).digest('hex');
}

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface ChainVerdict {
  ok: boolean;
  entries: number;
  firstBadSeq?: number;
  problem?: string;
}

/** Walks the rows in seq order; the first break names the entry that was edited, deleted or inserted. */
export function verifyChain(rows: Iterable<AuditEntry>, head: ChainHead | undefined): ChainVerdict {
  let prev: ChainHead = { seq: 0, hash: GENESIS_HASH };
  let entries = 0;
  const bad = (firstBadSeq: number, problem: string): ChainVerdict => ({ ok: false, entries, firstBadSeq, problem });
  for (const row of rows) {
    entries++;
    if (row.seq > prev.seq + 1) return bad(prev.seq + 1, `entry ${prev.seq + 1} is missing (deleted)`);
    if (row.prevHash !== prev.hash) return bad(row.seq, `entry ${row.seq} does not follow entry ${prev.seq} (its prevHash differs)`);
    if (entryHash(row.prevHash, row) !== row.hash) return bad(row.seq, `entry ${row.seq} was changed after it was written (its hash differs)`);
    prev = { seq: row.seq, hash: row.hash };
  }
  const expected = head ?? { seq: 0, hash: GENESIS_HASH };
  if (expected.seq > prev.seq) return bad(prev.seq + 1, `entries ${prev.seq + 1}–${expected.seq} are missing (deleted)`);
  if (expected.seq < prev.seq) return bad(expected.seq + 1, `entry ${expected.seq + 1} was added outside svc (the head names entry ${expected.seq})`);
  if (expected.hash !== prev.hash) return bad(prev.seq, `entry ${prev.seq} was changed after it was written (the head's hash differs)`);
  return { ok: true, entries };
}
