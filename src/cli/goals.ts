// `svc goal|task|wakeup …`: goals, the task list and wakeups of a running server over HTTP. People use
// them, and so does the agent from its shell: its run credential (SVC_RUN_TOKEN, sent by authHeaders)
// makes the server treat the call as the agent's, on its own chat's goal. `--json` prints the answer.
import { describeGoal, describeHistory, describeRun, describeTask } from '../protocol/goals-text.ts';
import type { Goal, GoalRunView, GoalView, Task, Wakeup } from '../protocol/goals.ts';
import type { ApiCall } from './api-call.ts';

export { runCall, type ApiCall } from './api-call.ts';

const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined).map(([k, v]) => [k, String(v)])).toString();
  return q ? `?${q}` : '';
};

const acted = (answer: GoalView & { outcome: string }) => `${answer.outcome}\n${describeGoal(answer)}`;

export const goalCall = (action: string, body: Record<string, unknown> = {}): ApiCall => ({ name: `goal ${action}`, method: 'POST', path: '/api/goal', body: { action, ...body }, render: acted });
export const goalStatus = (): ApiCall => ({ name: 'goal', method: 'GET', path: '/api/goal', render: (a: GoalView) => describeGoal(a) });
export const goalHistory = (limit?: number): ApiCall => ({ name: 'goal history', method: 'GET', path: `/api/goal/history${query({ limit })}`, render: (a: { goals: Goal[] }) => describeHistory(a.goals) });
export const goalRun = (action: string, body: Record<string, unknown>): ApiCall =>
  action === 'status'
    ? { name: 'goal run', method: 'GET', path: '/api/goal-run', render: (a: GoalRunView) => describeRun(a) }
    : { name: `goal run ${action}`, method: 'POST', path: '/api/goal-run', body: { action, ...body }, render: (a: GoalRunView) => describeRun(a) };

export const taskList = (filter: { status?: string; owner?: string; goalId?: string }): ApiCall => ({
  name: 'task',
  method: 'GET',
  path: `/api/task${query(filter)}`,
  render: (a: { tasks: Task[] }) => (a.tasks.length ? a.tasks.map(describeTask).join('\n') : 'no tasks'),
});
export const taskCall = (action: string, body: Record<string, unknown> = {}): ApiCall => ({
  name: `task ${action}`,
  method: 'POST',
  path: '/api/task',
  body: { action, ...body },
  render: (a: { task?: Task; removed?: number }) => (a.task ? describeTask(a.task) : `removed ${a.removed ?? 0} finished task(s)`),
});

const when = (at: number) => new Date(at).toLocaleString();
export const wakeupCall = (body: { in: string; prompt: string; reason?: string }): ApiCall => ({
  name: 'wakeup',
  method: 'POST',
  path: '/api/wakeup',
  body,
  render: (w: Wakeup) => `wakeup #${w.id} at ${when(w.dueAt)}: ${w.prompt}`,
});
export const wakeupList = (): ApiCall => ({
  name: 'wakeup list',
  method: 'GET',
  path: '/api/wakeup',
  render: (a: { wakeups: Wakeup[] }) => (a.wakeups.length ? a.wakeups.map((w) => `#${w.id} ${w.state} ${when(w.dueAt)} ${w.prompt}${w.error ? ` (${w.error})` : ''}`).join('\n') : 'no wakeups'),
});
