// The task a worker receives: the task itself, the approved plan (every worker works from it), the
// verdict format it must end with, and what it may not do. Pure.
import type { PlanRecord } from '../../protocol/orchestration.ts';

export type VerdictKind = 'audit' | 'verification';

const VERDICT_FORMAT: Record<VerdictKind, string> = {
  audit: 'End your answer with a ```json block holding exactly {"verdict":"pass"|"fail","findings":[...]} (findings: strings or {"severity","message","file"}). Without it the audit counts as failed.',
  verification: 'End your answer with a ```json block holding exactly {"verdict":"done"|"not_done","findings":[...]}. Without it the verification counts as not done.',
};

export function workerPrompt(input: { task: string; plan?: PlanRecord | null; verdict?: VerdictKind; readOnly: boolean; scope?: string[]; worktree?: { branch: string; uncommittedLeftOut: boolean } }): string {
  const parts = [input.task.trim()];
  if (input.plan) parts.push(`The approved plan (version ${input.plan.version}):\n<plan>\n${input.plan.content}\n</plan>`);
  if (input.readOnly) parts.push('This run is read-only: the CLI refuses file changes and commands that write.');
  else if (input.scope?.length) parts.push(`Change files only under: ${input.scope.join(', ')}. Changes elsewhere are recorded as violations.`);
  if (input.worktree) {
    const leftOut = input.worktree.uncommittedLeftOut ? ' It starts from their last commit: their uncommitted changes are not in it.' : '';
    parts.push(`You work in a git worktree of your own, on branch ${input.worktree.branch}; a person reviews your changes before they land in their tree.${leftOut} Leave your changes in the files: svc commits them when you finish.`);
  }
  if (input.verdict) parts.push(VERDICT_FORMAT[input.verdict]);
  return parts.join('\n\n');
}
