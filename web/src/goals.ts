// The goal banner's and the tasks panel's side of the API (GET/POST /api/goal, /api/task). Wire types come
// from src/protocol/goals.ts, like the server's.
import { get, post } from './api.ts';
import type { Goal, GoalView, Task } from '../../src/protocol/goals.ts';

export type { Goal, GoalView, Task };

const q = (sessionId: string) => `sessionId=${encodeURIComponent(sessionId)}`;

export const goalApi = {
  view: (sessionId: string) => get<GoalView>(`/api/goal?${q(sessionId)}`),
  act: (sessionId: string, action: 'pause' | 'resume' | 'cancel') => post<GoalView & { outcome: string }>('/api/goal', { action, sessionId }),
  tasks: () => get<{ tasks: Task[] }>('/api/task'),
  taskDone: (id: string) => post<{ task: Task }>('/api/task', { action: 'done', id }),
};

/** "3/10 turns · 2.5 min · 0 dispatches": what the goal has used, against its budget where it has one. */
export function budgetText(goal: Goal): string {
  const of = (used: string, max: number | undefined, unit: string) => `${used}${max !== undefined ? `/${max}` : ''} ${unit}`;
  return [
    of(String(goal.usage.turns), goal.budget.maxTurns, 'turns'),
    of(goal.usage.minutes.toFixed(1), goal.budget.maxMinutes, 'min'),
    of(String(goal.usage.dispatches), goal.budget.maxDispatches, 'dispatches'),
  ].join(' · ');
}
