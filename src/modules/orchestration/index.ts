// The orchestration module: per-session phases with gates on server-held records (machine.ts, the
// service, the routes), employees and worker runs (dispatch, queue, read-only enforcement, delivery),
// and isolated workers' git worktrees (worktrees/: diff, merge, discard, review).
export { OrchestrationService, type Acting } from './orchestration.service.ts';
export { OrchestrationRepo } from './orchestration.repo.ts';
export { orchestrationSettings, type OrchestrationSettings } from './orchestration.settings.ts';
export type { OrchestrationRouteDeps } from './orchestration.routes.ts';
export { EmployeeRepo, PRESETS } from './employees.ts';
export { WorkerRunRepo } from './workers.repo.ts';
export { WorkerService, READ_ONLY_PROVIDERS } from './workers.service.ts';
export type { WorkerRouteDeps } from './workers.routes.ts';
export { WorktreeRepo } from './worktrees/worktrees.repo.ts';
export { WorktreeService } from './worktrees/worktrees.service.ts';
export { orchestrationCommands } from './orchestration.commands.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadOrchestrationRoutes = () => import('./orchestration.routes.ts').then((m) => m.orchestrationRoutes);
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadWorkerRoutes = () => import('./workers.routes.ts').then((m) => m.workerRoutes);
