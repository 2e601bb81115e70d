// The one task list (goals and orchestration alike) in SQLite.
import type { Db } from '../../store/db.ts';
import type { Task } from '../../protocol/goals.ts';

interface Row {
  id: string;
  goal_id: string | null;
  content: string;
  status: Task['status'];
  owner: string;
  after: string;
  created_at: number;
  updated_at: number;
}

const toTask = (r: Row): Task => ({
  id: r.id,
  content: r.content,
  status: r.status,
  owner: r.owner,
  after: JSON.parse(r.after) as string[],
  goalId: r.goal_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface TaskFilter {
  status?: Task['status'];
  owner?: string;
  goalId?: string;
}

export class TaskRepo {
  constructor(private readonly db: Db) {}

  list(filter: TaskFilter, limit = 500): Task[] {
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.status) (where.push('status = ?'), values.push(filter.status));
    if (filter.owner) (where.push('owner = ?'), values.push(filter.owner));
    if (filter.goalId) (where.push('goal_id = ?'), values.push(filter.goalId));
    const sql = `SELECT * FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid LIMIT ?`;
    return (this.db.prepare(sql).all(...values, limit) as Row[]).map(toTask);
  }

  get(id: string): Task | undefined {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as Row | undefined;
    return row ? toTask(row) : undefined;
  }

  insert(task: Task): Task {
    this.db
      .prepare('INSERT INTO tasks (id, goal_id, content, status, owner, after, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(task.id, task.goalId, task.content, task.status, task.owner, JSON.stringify(task.after), task.createdAt, task.updatedAt);
    return task;
  }

  save(task: Task): Task {
    this.db
      .prepare('UPDATE tasks SET goal_id = ?, content = ?, status = ?, owner = ?, after = ?, updated_at = ? WHERE id = ?')
      .run(task.goalId, task.content, task.status, task.owner, JSON.stringify(task.after), task.updatedAt, task.id);
    return task;
  }

  /** Removes finished tasks (done, cancelled); returns how many. */
  clearFinished(): number {
    return this.db.prepare("DELETE FROM tasks WHERE status IN ('done', 'cancelled')").run().changes;
  }
}
