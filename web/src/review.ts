// The review of an isolated worker run's changes: its side of the API (diff, merge, discard, review
// with comments) and which run's review is open. The review opens from the workers panel, or from a
// link: `#review=<runId>` (the dashboard links each instance's open worktrees that way).
import { useEffect, useState } from 'preact/hooks';
import { del, get, post } from './api.ts';
import type { ReviewComment, WorkerRun, WorktreeDiffFile } from '../../src/protocol/orchestration.ts';

export type { ReviewComment, WorktreeDiffFile };

export interface WorktreeDiff {
  runId: string;
  branch: string;
  base: string;
  files: WorktreeDiffFile[];
  patch: string;
  truncated: boolean;
  note?: string;
}

export interface MergeResult {
  runId: string;
  commit: string;
  branch: string;
  files: WorktreeDiffFile[];
}

const run = (runId: string) => `/api/orchestrate/worker-runs/${encodeURIComponent(runId)}`;

export const reviewApi = {
  run: (runId: string) => get<WorkerRun>(run(runId)),
  diff: (runId: string) => get<WorktreeDiff>(`${run(runId)}/diff`),
  merge: (runId: string) => post<MergeResult>(`${run(runId)}/merge`, {}),
  discard: (runId: string) => del<{ runId: string; discarded: true }>(`${run(runId)}/worktree`),
  requestChanges: (runId: string, comments: ReviewComment[]) => post<{ runId: string; reviewOf: string }>(`${run(runId)}/review`, { decision: 'changes_requested', comments }),
  followUps: (sessionId: string) => get<{ runs: WorkerRun[] }>(`/api/orchestrate/worker-runs?sessionId=${encodeURIComponent(sessionId)}&limit=200`),
};

const HASH = /^#review=(tr_[A-Za-z0-9_-]{4,40})$/;

let openRunId: string | null = HASH.exec(location.hash)?.[1] ?? null;
const listeners = new Set<() => void>();
const set = (runId: string | null) => {
  openRunId = runId;
  listeners.forEach((l) => l());
};

export const openReview = (runId: string) => set(runId);

/** Closes the review, and takes its link out of the address bar (a reload does not reopen it). */
export function closeReview(): void {
  if (HASH.test(location.hash)) history.replaceState(null, '', location.pathname + location.search);
  set(null);
}

export function useReviewRunId(): string | null {
  const [value, setValue] = useState(openRunId);
  useEffect(() => {
    const listener = () => setValue(openRunId);
    listeners.add(listener);
    const onHash = () => {
      const linked = HASH.exec(location.hash)?.[1];
      if (linked) set(linked);
    };
    addEventListener('hashchange', onHash);
    return () => {
      listeners.delete(listener);
      removeEventListener('hashchange', onHash);
    };
  }, []);
  return value;
}

/** The runs of a review thread: the first run and every follow-up asked of it (reviewOf, transitively), oldest first. */
export function thread(first: string, runs: readonly WorkerRun[]): WorkerRun[] {
  const ids = new Set([first]);
  const sorted = [...runs].sort((a, b) => a.createdAt - b.createdAt);
  for (const r of sorted) if (r.reviewOf && ids.has(r.reviewOf)) ids.add(r.runId);
  return sorted.filter((r) => ids.has(r.runId));
}
