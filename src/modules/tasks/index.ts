// The tasks module: the one task list of goals and orchestration (GET/POST /api/task, /task).
export { TaskRepo, type TaskFilter } from './tasks.repo.ts';
export { TaskService, type TaskAction } from './tasks.service.ts';
export { taskCommand } from './tasks.commands.ts';
