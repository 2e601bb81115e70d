// The goals module: one goal per chat session in SQLite with checkpoints and a budget, the pause gate,
// the turn after each turn as a persisted job, goal-runs with preflight gates, wakeups, /goal.
export { GoalRepo } from './goals.repo.ts';
export { GoalService, type AgentTurns, type GoalServiceDeps, type GoalAction, type Caller } from './goals.service.ts';
export type { GoalRouteDeps } from './goals.routes.ts';
export { goalCommand } from './goals.commands.ts';
export type { OrchestrationView } from './continuation.ts';
export { scheduleWakeupCall } from './wakeup.ts';
export { goalSettings, type GoalSettings } from './settings.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadGoalRoutes = () => import('./goals.routes.ts').then((m) => m.goalRoutes);
