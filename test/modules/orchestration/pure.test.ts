import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateVerdict, mayStart, overlaps } from '../../../src/modules/orchestration/batch.ts';
import { parseAudit, parseVerification } from '../../../src/modules/orchestration/verdict.ts';
import { outsideScope } from '../../../src/modules/orchestration/scope.ts';
import { workerPrompt } from '../../../src/modules/orchestration/worker-prompt.ts';

test('verdicts are read from a JSON object only, never from prose', () => {
  assert.deepEqual(parseAudit('Looks good.\n```json\n{"verdict":"pass","findings":["ok"]}\n```'), { ok: true, value: { verdict: 'pass', findings: ['ok'] } });
  assert.deepEqual(parseAudit('{"verdict":"fail","findings":[{"message":"no tests","severity":"high"}]}').ok, true);
  // the last block counts
  assert.equal((parseAudit('```json\n{"verdict":"fail","findings":[]}\n```\nthen\n```json\n{"verdict":"pass","findings":[]}\n```') as { value: { verdict: string } }).value.verdict, 'pass');
  for (const text of ['PASS', 'verdict: pass', 'DONE. All good, PASS.', '{"verdict":"PASS","findings":[]}', '{"verdict":"pass"}', '{"verdict":"pass","findings":[],"extra":1}', '']) {
    assert.equal(parseAudit(text).ok, false, text);
  }
  assert.equal(parseVerification('{"verdict":"done","findings":[]}').ok, true);
  assert.equal(parseVerification('{"verdict":"pass","findings":[]}').ok, false);
  const error = parseAudit('{"verdict":"maybe","findings":[]}');
  assert.ok(!error.ok && /verdict/.test(error.error));
});

test('affected files overlap on the same path or a directory holding it', () => {
  assert.equal(overlaps(['src/a.ts'], ['src']), true);
  assert.equal(overlaps(['./src/a.ts'], ['src/a.ts']), true);
  assert.equal(overlaps(['src/a.ts'], ['src/ab.ts']), false);
  assert.equal(overlaps(['src/a.ts'], undefined), false);
  assert.equal(overlaps([], ['src']), false);
  const runs = [
    { runId: 'a', batchId: 'b', batchIndex: 0, affectedFiles: ['src/a.ts'], status: 'running' as const },
    { runId: 'b', batchId: 'b', batchIndex: 1, affectedFiles: ['docs'], status: 'queued' as const },
    { runId: 'c', batchId: 'b', batchIndex: 2, affectedFiles: ['src'], status: 'queued' as const },
  ];
  assert.deepEqual(runs.map((r) => mayStart(r, runs)), [true, true, false]);
  assert.equal(mayStart(runs[2]!, [{ ...runs[0]!, status: 'succeeded' }, runs[1]!, runs[2]!]), true);
  // a run in a worktree of its own neither waits for an overlapping run nor holds one up
  const isolated = [{ ...runs[0]!, isolation: 'worktree' as const }, runs[1]!, { ...runs[2]!, isolation: 'worktree' as const }];
  assert.deepEqual(isolated.map((r) => mayStart(r, isolated)), [true, true, true]);
  assert.equal(mayStart(runs[2]!, [{ ...runs[0]!, isolation: 'worktree' as const }, runs[1]!, runs[2]!]), true);
});

test('the aggregate verdict: any fail fails, an execution failure voids a pass', () => {
  assert.equal(aggregateVerdict([{ status: 'succeeded', verdict: 'pass' }, { status: 'succeeded', verdict: 'done' }]), 'pass');
  assert.equal(aggregateVerdict([{ status: 'succeeded', verdict: 'pass' }, { status: 'succeeded', verdict: 'fail' }]), 'fail');
  assert.equal(aggregateVerdict([{ status: 'succeeded', verdict: 'pass' }, { status: 'failed', verdict: 'invalid' }]), 'fail');
  assert.equal(aggregateVerdict([{ status: 'succeeded', verdict: 'pass' }, { status: 'timeout' }]), 'void');
  assert.equal(aggregateVerdict([{ status: 'succeeded' }]), 'none');
});

test('the scope check reports only new changes outside the scope', () => {
  assert.deepEqual(outsideScope(new Set(['README.md']), new Set(['README.md', 'docs/a.md', 'src/x.ts', 'docs']), ['docs']), ['src/x.ts']);
  assert.deepEqual(outsideScope(new Set(), new Set(['a']), ['.']), []);
});

test('a worker\'s task carries the plan and the verdict format', () => {
  const prompt = workerPrompt({ task: 'Audit', plan: { version: 3, hash: 'h', content: 'PLAN', submittedAt: 0, by: 'agent' }, verdict: 'audit', readOnly: true });
  assert.match(prompt, /^Audit\n\nThe approved plan \(version 3\):\n<plan>\nPLAN\n<\/plan>\n\nThis run is read-only/);
  assert.match(prompt, /\{"verdict":"pass"\|"fail","findings":\[\.\.\.\]\}/);
});
