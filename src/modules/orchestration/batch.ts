// Batch rules, pure: which queued runs may start (a run that writes in place waits for every earlier
// run of its batch that writes in place and whose affected files overlap its own; a run in a worktree of
// its own waits for none and holds none up: its changes reach the tree only through a merge), and the
// batch's aggregate verdict.
import { TERMINAL_STATUSES, type Batch, type WorkerRun } from '../../protocol/orchestration.ts';

const norm = (path: string) => path.replace(/^\.\/+/, '').replace(/\/+$/, '');

/** Two file lists overlap when they share a path or one names a directory holding the other's path. */
export function overlaps(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a?.length || !b?.length) return false;
  return a.some((x) => b.some((y) => {
    const p = norm(x);
    const q = norm(y);
    return p === q || p.startsWith(`${q}/`) || q.startsWith(`${p}/`);
  }));
}

type BatchRun = Pick<WorkerRun, 'runId' | 'batchId' | 'affectedFiles' | 'status'> & { batchIndex?: number; isolation?: WorkerRun['isolation'] };

const inPlace = (run: BatchRun) => run.isolation !== 'worktree';

/** May this queued run start now, given the other runs of its batch? */
export function mayStart(run: BatchRun, batchRuns: readonly BatchRun[]): boolean {
  if (!run.batchId || !inPlace(run)) return true;
  return !batchRuns.some((other) =>
    inPlace(other) &&
    other.runId !== run.runId && (other.batchIndex ?? 0) < (run.batchIndex ?? 0) && !TERMINAL_STATUSES.includes(other.status) && overlaps(other.affectedFiles, run.affectedFiles),
  );
}

export function aggregateVerdict(runs: readonly Pick<WorkerRun, 'status' | 'verdict'>[]): Batch['verdict'] {
  if (runs.some((r) => r.verdict === 'fail' || r.verdict === 'not_done' || r.verdict === 'invalid')) return 'fail';
  if (runs.some((r) => TERMINAL_STATUSES.includes(r.status) && r.status !== 'succeeded')) return 'void';
  if (runs.length && runs.every((r) => r.verdict === 'pass' || r.verdict === 'done')) return 'pass';
  return 'none';
}
