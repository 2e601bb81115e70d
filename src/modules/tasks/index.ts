// The tasks module: the one task list of goals and orchestration (GET/POST /api/task, /task).
export { TaskRepo, type TaskFilter } from './tasks.repo.ts';
export { TaskService, type TaskAction } from './tasks.service.ts';
export { taskCommand } from './tasks.commands.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadTaskRoutes = () => import('./tasks.routes.ts').then((m) => m.taskRoutes);
