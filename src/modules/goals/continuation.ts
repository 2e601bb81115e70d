// Whether a goal gets another turn, and the short structured prompt of that turn. Pure: the goal,
// its last checkpoint and what the orchestration reports go in; the decision comes out. The long
// policy (how to work toward a goal, how to report) lives in the system prompt (GOAL_POLICY).
import type { Budget, Checkpoint, Goal, Usage } from '../../protocol/goals.ts';

/** What goals need to know of the orchestration (servers/core.ts builds it from the orchestration module). */
export interface OrchestrationView {
  /** The orchestration phase of a chat session, e.g. IDLE. */
  phaseOf(sessionId: string): string;
  /** Workers that are running now. */
  busyWorkers(): number;
  /** Worker results not yet delivered to this session's agent. */
  undeliveredResults(sessionId: string): number;
}

export type TurnKind = 'continue' | 'audit';

export type Decision =
  | { next: 'schedule'; kind: TurnKind }
  | { next: 'await_approval' }
  | { next: 'limit'; reason: string }
  | { next: 'none'; reason: string };

/** The first budget limit reached, or null. */
export function budgetExceeded(budget: Budget, usage: Usage): string | null {
  if (budget.maxTurns !== undefined && usage.turns >= budget.maxTurns) return `turn budget used: ${usage.turns}/${budget.maxTurns} turns`;
  if (budget.maxMinutes !== undefined && usage.minutes >= budget.maxMinutes) return `time budget used: ${usage.minutes.toFixed(1)}/${budget.maxMinutes} minutes`;
  if (budget.maxDispatches !== undefined && usage.dispatches > budget.maxDispatches) return `dispatch budget used: ${usage.dispatches}/${budget.maxDispatches} dispatches`;
  return null;
}

export function budgetLeft(budget: Budget, usage: Usage): string {
  const parts: string[] = [];
  if (budget.maxTurns !== undefined) parts.push(`${Math.max(0, budget.maxTurns - usage.turns)} turns`);
  if (budget.maxMinutes !== undefined) parts.push(`${Math.max(0, budget.maxMinutes - usage.minutes).toFixed(1)} minutes`);
  if (budget.maxDispatches !== undefined) parts.push(`${Math.max(0, budget.maxDispatches - usage.dispatches)} dispatches`);
  return parts.length ? parts.join(', ') : 'unlimited';
}

export interface DecisionInput {
  goal: Goal | null;
  now: number;
  staleMs: number;
  /** How the turn that just ended ended. */
  lastTurn: 'ok' | 'error' | 'stopped';
  busyWorkers: number;
}

export function decide({ goal, now, staleMs, lastTurn, busyWorkers }: DecisionInput): Decision {
  if (!goal || goal.status !== 'active') return { next: 'none', reason: 'no active goal' };
  if (goal.runStatus === 'stopped') return { next: 'none', reason: 'the goal-run is stopped' };
  if (goal.gate.state === 'audit_running' || goal.gate.state === 'audit_done') return { next: 'none', reason: 'pause_gate_pending' };
  const over = budgetExceeded(goal.budget, goal.usage);
  if (over) return { next: 'limit', reason: over };
  if (goal.gate.state === 'audit_scheduled') return { next: 'schedule', kind: 'audit' };
  if (lastTurn === 'stopped') return { next: 'none', reason: 'the last turn was stopped by a person' };
  if (lastTurn === 'error') return { next: 'none', reason: 'the last turn failed; resume the goal once the agent works again' };
  if (now - goal.updatedAt > staleMs) return { next: 'none', reason: 'goal_stale: no change for too long; resume it to go on' };
  if (busyWorkers > 0) return { next: 'none', reason: 'workers are busy; their results start the next turn' };
  if (goal.mode === 'dry-run') return { next: 'none', reason: 'dry-run: the next prompt is shown, not run' };
  if (goal.mode === 'supervised') return { next: 'await_approval' };
  return { next: 'schedule', kind: 'continue' };
}

export interface PromptInput {
  goal: Goal;
  checkpoint: Checkpoint | null;
  phase: string;
  undeliveredResults: number;
  kind: TurnKind;
}

/** The continuation message: state only, one fact a line. */
export function continuationPrompt({ goal, checkpoint, phase, undeliveredResults, kind }: PromptInput): string {
  const lines = [
    `[goal ${goal.id}] ${kind === 'audit' ? 'Pause audit turn' : 'Continue toward the goal'}.`,
    `Objective: ${goal.objective}`,
    `Project root: ${goal.projectRoot ?? '(not set: evidence paths are relative to the working directory)'}`,
    `Last checkpoint: ${checkpoint ? checkpoint.summary : '(none yet)'}`,
    `Next action: ${checkpoint?.nextAction || '(decide it)'}`,
    `Budget left: ${budgetLeft(goal.budget, goal.usage)} (used ${goal.usage.turns} turns, ${goal.usage.minutes.toFixed(1)} minutes, ${goal.usage.dispatches} dispatches)`,
    `Orchestration: ${phase}${undeliveredResults ? `, ${undeliveredResults} worker result(s) waiting` : ''}`,
  ];
  if (goal.lastDoneRejection) lines.push(`Your last \`svc goal done\` was rejected: ${goal.lastDoneRejection}. Record checkable evidence with \`svc goal update "<summary>" --evidence <file> | --check "<command>"\` first.`);
  if (kind === 'audit') lines.push(`You asked to pause: ${goal.gate.reason ?? ''}. ${goal.gate.nextAction ?? ''}`);
  return lines.join('\n');
}

/** How the agent works on a goal: added to the system prompt while the session has an active goal. */
export const GOAL_POLICY = `## Working on a goal
This chat has an active goal. You act on it only with these commands in your shell (prose changes nothing):
- \`svc goal update "<what you did>" --next "<next action>" [--evidence <file>]... [--check "<command>"]\` records a checkpoint;
- \`svc goal done [--note "<…>"]\` completes it; the server accepts it only when the latest checkpoint names evidence it can check (files under the project root, or a check command that exits 0);
- \`svc goal pause --reason "<why>"\` asks to pause (one audit turn follows), \`svc goal pause --audit "<why>"\` in that turn pauses, \`svc goal resume\` withdraws the request;
- \`svc task add|done …\` keeps the task list; \`svc wakeup --in 10m "<prompt>"\` resumes you later.
Each continuation message gives the objective, the last checkpoint, the next action and the budget left. Work in small verified steps.`;
