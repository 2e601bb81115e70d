// The words of a review: the follow-up run's task (the first task, then the reviewer's comments, last
// so they read as the latest word) and the message of the commit that lands a worktree. Pure.
import type { ReviewComment } from '../../../protocol/orchestration.ts';

const firstLine = (text: string, max: number) => {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Where a comment points: `path:line`, or the file. */
const place = (c: ReviewComment) => (c.line ? `${c.path}:${c.line}` : c.path);

export function followUpTask(run: { runId: string; task: string }, comments: readonly ReviewComment[]): string {
  return [
    `A reviewer read the changes of your earlier run ${run.runId} in this worktree and asked for changes. Your changes so far are already here (committed on this branch); change them as the comments say.`,
    `The original task:\n${run.task.trim()}`,
    `The reviewer's comments:\n${comments.map((c) => `- ${place(c)}: ${c.body.trim()}`).join('\n')}`,
  ].join('\n\n');
}

/** One commit on the user's branch names the run, its employee and its task. */
export function mergeMessage(run: { runId: string; employee: { id: string }; task: string; reviewOf?: string }): string {
  return `svc: worker run ${run.runId} (${run.employee.id}): ${firstLine(run.task, 60)}\n\nMerged from branch svc/${run.runId} of svc's worker worktree${run.reviewOf ? ` (a follow-up of ${run.reviewOf})` : ''}.`;
}
