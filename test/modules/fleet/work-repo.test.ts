// The work repo decides which attempt counts (src/modules/fleet/work.repo.ts), on a real dashboard.db: an item is
// claimed by one attempt at a time (a newer claim abandons the one before), it ends once, and a late end of an
// abandoned attempt changes nothing; a revoked machine's running items go back to the queue, its pinned ones fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { closeDatabase, openDatabase } from '../../../src/store/db.ts';
import { managerMigrations } from '../../../src/store/migrations/manager/index.ts';
import { WorkRepo } from '../../../src/modules/fleet/work.repo.ts';

function withRepo(run: (repo: WorkRepo) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'svc-work-'));
  const db = openDatabase(join(dir, 'dashboard.db'), { migrationList: managerMigrations });
  try {
    run(new WorkRepo(db));
  } finally {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

const item = (id: string, machine = 'any') => ({ id, prompt: 'p', provider: null, model: null, machine, workingDir: null });
const attempt = (id: string, machineId: string) => ({ id, machineId, instanceId: `fleet_${machineId}_x`, runId: `req_${id}` });

test('claims, abandonment, one end, and a late end that changes nothing', () => {
  withRepo((repo) => {
    repo.add(item('w1'), 1);
    assert.deepEqual(repo.claim('w1', attempt('a1', 'm_a'), 2), { ok: true, abandoned: false });
    assert.deepEqual(repo.claim('w1', attempt('a1', 'm_a'), 3), { ok: true, abandoned: false }, 'the same attempt again: no change');
    assert.deepEqual(repo.claim('w1', attempt('a2', 'm_b'), 4), { ok: true, abandoned: true });
    assert.equal(repo.end('w1', 'a1', { status: 'succeeded', answer: 'late', reason: null }, 5), false, 'the abandoned attempt does not count');
    assert.equal(repo.end('w1', 'a2', { status: 'succeeded', answer: 'done', reason: null }, 6), true);
    assert.equal(repo.end('w1', 'a2', { status: 'failed', answer: null, reason: 'again' }, 7), false, 'it ends once');
    const w1 = repo.get('w1')!;
    assert.equal(w1.status, 'succeeded');
    assert.equal(w1.answer, 'done');
    assert.equal(w1.machineId, 'm_b');
    assert.deepEqual(w1.attempts.map((a) => [a.machineId, a.status]), [['m_a', 'abandoned'], ['m_b', 'succeeded']]);
    assert.deepEqual(repo.claim('w1', attempt('a3', 'm_c'), 8), { ok: false, reason: 'the item succeeded already' });
    assert.deepEqual(repo.claim('nope', attempt('a4', 'm_c'), 8), { ok: false, reason: 'no such work item' });
  });
});

test('a revoked machine: what it ran goes back to the queue, what only it could run fails', () => {
  withRepo((repo) => {
    repo.add(item('any1'), 1);
    repo.add(item('pinned', 'm_a'), 1);
    repo.add(item('other'), 1);
    repo.claim('any1', attempt('a1', 'm_a'), 2);
    repo.claim('other', attempt('b1', 'm_b'), 2);
    assert.deepEqual(repo.revokeMachine('m_a', 3).sort(), ['any1', 'pinned']);
    assert.equal(repo.get('any1')!.status, 'queued');
    assert.equal(repo.get('any1')!.attempts[0]!.status, 'abandoned');
    assert.equal(repo.get('pinned')!.status, 'failed');
    assert.equal(repo.get('other')!.status, 'running', 'another machine\'s work is untouched');
  });
});

test('whatever the order of claims and ends, an item ends at most once, with its last claim\'s attempt', () => {
  const step = fc.oneof(
    fc.record({ kind: fc.constant('claim' as const), attempt: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('end' as const), attempt: fc.integer({ min: 0, max: 3 }), ok: fc.boolean() }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
      withRepo((repo) => {
        repo.add(item('w'), 0);
        let current: number | undefined;
        let ends = 0;
        steps.forEach((s, n) => {
          if (s.kind === 'claim') {
            if (repo.claim('w', attempt(`a${s.attempt}`, `m_${s.attempt}`), n).ok) current = s.attempt;
          } else if (repo.end('w', `a${s.attempt}`, { status: s.ok ? 'succeeded' : 'failed', answer: null, reason: null }, n)) {
            ends++;
            assert.equal(s.attempt, current, 'only the current attempt ends the item');
          }
        });
        assert.ok(ends <= 1);
        const w = repo.get('w')!;
        assert.equal(w.attempts.filter((a) => a.status === 'running').length, w.status === 'running' ? 1 : 0);
      });
    }),
    { numRuns: 150 },
  );
});
