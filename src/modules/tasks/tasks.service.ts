// Tasks: add, update, done, clear, with dependencies that must exist and never form a cycle. Every
// change goes out as `task_update`.
import { badRequest, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { EventBus } from '../../events/bus.ts';
import type { Task } from '../../protocol/goals.ts';
import type { TaskFilter, TaskRepo } from './tasks.repo.ts';

export type TaskAction =
  | { action: 'add'; content: string; owner?: string; after?: string[]; goalId?: string }
  | { action: 'update'; id: string; content?: string; status?: Task['status']; owner?: string; after?: string[]; goalId?: string | null }
  | { action: 'done'; id: string }
  | { action: 'clear' };

export type TaskResult = { task: Task } | { removed: number };

/** True when following `after` links from `start` reaches `target`. */
export function reaches(start: readonly string[], target: string, afterOf: (id: string) => readonly string[] | undefined): boolean {
  const seen = new Set<string>();
  const stack = [...start];
  while (stack.length) {
    const id = stack.pop()!;
    if (id === target) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(afterOf(id) ?? []));
  }
  return false;
}

export class TaskService {
  constructor(
    private readonly repo: TaskRepo,
    private readonly bus: EventBus,
    private readonly now: () => number = Date.now,
  ) {}

  list(filter: TaskFilter): { tasks: Task[] } {
    return { tasks: this.repo.list(filter) };
  }

  act(input: TaskAction): TaskResult {
    switch (input.action) {
      case 'add': {
        const now = this.now();
        const task: Task = { id: newId('task', 6), content: input.content.trim(), status: 'pending', owner: input.owner?.trim() || 'main', after: this.checkAfter(input.after ?? []), goalId: input.goalId ?? null, createdAt: now, updatedAt: now };
        if (!task.content) throw badRequest('VALIDATION_FAILED', 'A task needs its content: what is to be done.');
        this.repo.insert(task);
        this.bus.publish('task_update', { action: 'add', task });
        return { task };
      }
      case 'update': {
        const task = this.find(input.id);
        const after = input.after === undefined ? task.after : this.checkAfter(input.after, task.id);
        const content = input.content === undefined ? task.content : input.content.trim();
        if (!content) throw badRequest('VALIDATION_FAILED', 'A task needs its content: what is to be done.');
        const next: Task = { ...task, content, after, status: input.status ?? task.status, owner: input.owner?.trim() || task.owner, goalId: input.goalId === undefined ? task.goalId : input.goalId, updatedAt: this.now() };
        this.repo.save(next);
        this.bus.publish('task_update', { action: 'update', task: next });
        return { task: next };
      }
      case 'done': {
        const next: Task = { ...this.find(input.id), status: 'done', updatedAt: this.now() };
        this.repo.save(next);
        this.bus.publish('task_update', { action: 'done', task: next });
        return { task: next };
      }
      case 'clear': {
        const removed = this.repo.clearFinished();
        this.bus.publish('task_update', { action: 'clear', removed });
        return { removed };
      }
    }
  }

  private find(id: string): Task {
    const task = this.repo.get(id);
    if (!task) throw notFound('Task', id);
    return task;
  }

  private checkAfter(after: string[], self?: string): string[] {
    const ids = [...new Set(after)];
    for (const id of ids) if (!this.repo.get(id)) throw badRequest('VALIDATION_FAILED', `after: no task '${id}'; list them with \`svc task list\`.`);
    if (self && reaches(ids, self, (id) => this.repo.get(id)?.after)) throw badRequest('TASK_CYCLE', `Task ${self} cannot wait for a task that waits for it.`);
    return ids;
  }
}
