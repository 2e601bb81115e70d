import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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
  // one text whatever the insertion order, for keys that sort either way and equal prefixes
  const text = '{"a":1,"ab":2,"b":null,"ba":[{"x":1,"y":2}]}';
  assert.equal(canonicalJson({ ba: [{ y: 2, x: 1 }], b: null, ab: 2, a: 1 }), text);
  assert.equal(canonicalJson({ a: 1, ab: 2, b: null, ba: [{ x: 1, y: 2 }] }), text);
  assert.equal(canonicalJson(null), 'null');
});

test('the hash is SHA-256 over the previous hash, a newline and the canonical JSON (so anyone can re-check it)', () => {
  assert.equal(GENESIS_HASH, '0000000000000000000000000000000000000000000000000000000000000000');
  const content = { seq: 1, ts: 5, actor: 'local', action: 'token.use', target: 'x', outcome: 'ok' as const, details: { k: 'v' } };
  const expected = createHash('sha256')
    .update(`${GENESIS_HASH}\n{"action":"token.use","actor":"local","details":{"k":"v"},"outcome":"ok","seq":1,"target":"x","ts":5}`)
    .digest('hex');
  assert.equal(entryHash(GENESIS_HASH, content), expected);
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
  assert.deepEqual(verdict, { ok: false, entries: 3, firstBadSeq: 3, problem: 'entry 3 was changed after it was written (its hash differs)' });
});

test('an entry re-hashed after an edit breaks the next link', () => {
  const rows = chain(5);
  const head = headOf(rows);
  const edited = { ...rows[1]!, outcome: 'refused' as const };
  rows[1] = { ...edited, hash: entryHash(edited.prevHash, edited) };
  assert.deepEqual(verifyChain(rows, head), { ok: false, entries: 3, firstBadSeq: 3, problem: 'entry 3 does not follow entry 2 (its prevHash differs)' });
});

test('a deleted entry (middle or newest) is named', () => {
  const rows = chain(5);
  const head = headOf(rows);
  assert.deepEqual(verifyChain(rows.filter((r) => r.seq !== 2), head), { ok: false, entries: 2, firstBadSeq: 2, problem: 'entry 2 is missing (deleted)' });
  assert.deepEqual(verifyChain(rows.slice(0, 3), head), { ok: false, entries: 3, firstBadSeq: 4, problem: 'entries 4–5 are missing (deleted)' });
  assert.deepEqual(verifyChain(rows.slice(1), head), { ok: false, entries: 1, firstBadSeq: 1, problem: 'entry 1 is missing (deleted)' });
  // the newest entry changed and re-hashed: only the head can tell
  const last = { ...rows[4]!, target: 'elsewhere' };
  const rehashed = [...rows.slice(0, 4), { ...last, hash: entryHash(last.prevHash, last) }];
  assert.deepEqual(verifyChain(rehashed, head), { ok: false, entries: 5, firstBadSeq: 5, problem: "entry 5 was changed after it was written (the head's hash differs)" });
});

test('an entry appended outside svc is named', () => {
  const rows = chain(4);
  assert.deepEqual(verifyChain(rows, { seq: 3, hash: rows[2]!.hash }), {
    ok: false,
    entries: 4,
    firstBadSeq: 4,
    problem: 'entry 4 was added outside svc (the head names entry 3)',
  });
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
