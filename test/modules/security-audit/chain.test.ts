import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, entryHash, GENESIS_HASH, verifyChain } from '../../../src/modules/security-audit/index.ts';
import { FloodLimiter } from '../../../src/modules/security-audit/limiter.ts';
import type { AuditEntry } from '../../../src/protocol/security-audit.ts';

function chain(n: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const content = { seq, ts: 1000 + seq, actor: 'local', action: 'channel.send', target: `t${seq}`, outcome: 'ok' as const, details: { b: 1, a: [seq] } };
    const hash = entryHash(prev, content);
    out.push({ ...content, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}
const headOf = (rows: AuditEntry[]) => ({ seq: rows.at(-1)!.seq, hash: rows.at(-1)!.hash });

test('canonical JSON sorts keys at every level and drops undefined', () => {
  assert.equal(canonicalJson({ b: { d: 1, c: [2, { z: 1, y: 2 }] }, a: 'x', u: undefined }), '{"a":"x","b":{"c":[2,{"y":2,"z":1}],"d":1}}');
});

test('an intact chain verifies', () => {
  const rows = chain(5);
  assert.deepEqual(verifyChain(rows, headOf(rows)), { ok: true, entries: 5 });
  assert.deepEqual(verifyChain([], undefined), { ok: true, entries: 0 });
});

test('an edited entry is named', () => {
  const rows = chain(5);
  const head = headOf(rows);
  rows[2] = { ...rows[2]!, target: 'elsewhere' };
  const verdict = verifyChain(rows, head);
  assert.equal(verdict.ok, false);
  assert.equal(verdict.firstBadSeq, 3);
  assert.match(verdict.problem!, /changed/);
});

test('an entry re-hashed after an edit breaks the next link', () => {
  const rows = chain(5);
  const head = headOf(rows);
  const edited = { ...rows[1]!, outcome: 'refused' as const };
  rows[1] = { ...edited, hash: entryHash(edited.prevHash, edited) };
  assert.equal(verifyChain(rows, head).firstBadSeq, 3);
});

test('a deleted entry (middle or newest) is named', () => {
  const rows = chain(5);
  const head = headOf(rows);
  assert.equal(verifyChain(rows.filter((r) => r.seq !== 2), head).firstBadSeq, 2);
  assert.equal(verifyChain(rows.slice(0, 3), head).firstBadSeq, 4);
  assert.equal(verifyChain(rows.slice(1), head).firstBadSeq, 1);
});

test('an entry appended outside svc is named', () => {
  const rows = chain(4);
  assert.equal(verifyChain(rows, { seq: 3, hash: rows[2]!.hash }).firstBadSeq, 4);
});

test('the flood limiter keeps a few per key and per window, and counts what it dropped', () => {
  let now = 0;
  const limiter = new FloodLimiter({ windowMs: 60_000, perKey: 2, total: 3, now: () => now });
  assert.equal(limiter.admit('a'), 0);
  assert.equal(limiter.admit('a'), 0);
  assert.equal(limiter.admit('a'), undefined);
  assert.equal(limiter.admit('a'), undefined);
  assert.equal(limiter.admit('b'), 0);
  assert.equal(limiter.admit('c'), undefined, 'the window total is reached');
  now = 60_000;
  assert.equal(limiter.admit('a'), 2, 'the next kept entry carries the count');
  assert.equal(limiter.admit('c'), 1);
});
