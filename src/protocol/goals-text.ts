// Goals, goal-runs and tasks as plain text: what /goal, /task and `svc goal|task` print.
import type { Goal, GoalRunView, GoalView, Task } from './goals.ts';

/**
 * A goal's state in one phrase, the same in the UI, /goal and `svc goal`: how its run goes only while
 * the goal is open (an ended goal has no run to speak of).
 */
export function goalStateText(goal: Pick<Goal, 'status' | 'mode' | 'runStatus'>): string {
  if (goal.status === 'complete' || goal.status === 'cancelled') return goal.status;
  if (goal.status === 'paused') return 'paused';
  if (goal.runStatus === 'awaiting_approval') return `active, ${goal.mode}: waiting for your approval of the next turn`;
  if (goal.runStatus === 'stopped') return `active, ${goal.mode}: its run is stopped`;
  return `active, ${goal.mode}`;
}

export function describeGoal(view: GoalView): string {
  const { goal, checkpoints, pauseGate } = view;
  if (!goal) return 'no goal: set one with /goal set <objective>';
  const budget = [
    goal.budget.maxTurns !== undefined ? `${goal.usage.turns}/${goal.budget.maxTurns} turns` : `${goal.usage.turns} turns`,
    goal.budget.maxMinutes !== undefined ? `${goal.usage.minutes.toFixed(1)}/${goal.budget.maxMinutes} min` : `${goal.usage.minutes.toFixed(1)} min`,
    goal.budget.maxDispatches !== undefined ? `${goal.usage.dispatches}/${goal.budget.maxDispatches} dispatches` : `${goal.usage.dispatches} dispatches`,
  ].join(', ');
  const lines = [`${goal.id} [${goalStateText(goal)}] ${goal.objective}`, `used: ${budget}`];
  if (pauseGate.state !== 'open') lines.push(`pause gate: ${pauseGate.state}: ${pauseGate.reason ?? ''}`);
  if (goal.note) lines.push(`note: ${goal.note}`);
  const last = checkpoints[0];
  if (last) {
    lines.push(`last checkpoint: ${last.summary}${last.nextAction ? ` → next: ${last.nextAction}` : ''}`);
    const evidence = [...last.evidence.map((e) => `${e.path}${e.exists ? '' : ' (missing)'}`), ...(last.check ? [`\`${last.check.command}\` exit ${last.check.exitCode ?? '-'}`] : [])];
    if (evidence.length) lines.push(`evidence: ${evidence.join(', ')}`);
  }
  return lines.join('\n');
}

export const describeHistory = (goals: Goal[]) =>
  goals.length ? goals.map((g) => `${g.id} [${g.status}] ${g.objective.slice(0, 120)}`).join('\n') : 'no goals yet';

export function describeRun(run: GoalRunView): string {
  const lines = [`goal-run ${run.goalId ?? '(no goal)'}: ${run.mode}${run.status ? `, ${run.status.replace('_', ' ')}` : ''}${run.outcome ? `: ${run.outcome}` : ''}`];
  for (const g of run.gates) lines.push(`  ${g.passed ? 'pass' : 'FAIL'} ${g.gate}: ${g.reason}`);
  if (run.nextPrompt && run.mode === 'dry-run') lines.push('next prompt:', run.nextPrompt);
  return lines.join('\n');
}

export const describeTask = (t: Task) => `${t.id} [${t.status}] ${t.content}${t.owner !== 'main' ? ` (${t.owner})` : ''}${t.after.length ? ` after ${t.after.join(', ')}` : ''}`;
