// The board's work items (table board_items of dashboard.db).
import type { Db } from '../../store/db.ts';
import type { BoardItem } from '../../protocol/dashboard.ts';

interface Row {
  id: string;
  title: string;
  detail: string;
  lane: BoardItem['lane'];
  position: number;
  instance_id: string | null;
  session_id: string | null;
  message_id: number | null;
  source: BoardItem['source'];
  created_at: number;
  updated_at: number;
}

const toItem = (r: Row): BoardItem => ({
  id: r.id,
  title: r.title,
  detail: r.detail,
  lane: r.lane,
  position: r.position,
  instanceId: r.instance_id,
  sessionId: r.session_id,
  messageId: r.message_id,
  source: r.source,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class BoardRepo {
  constructor(private readonly db: Db) {}

  list(): BoardItem[] {
    return (this.db.prepare('SELECT * FROM board_items ORDER BY lane, position, created_at').all() as Row[]).map(toItem);
  }

  get(id: string): BoardItem | undefined {
    const row = this.db.prepare('SELECT * FROM board_items WHERE id = ?').get(id) as Row | undefined;
    return row && toItem(row);
  }

  /** The position after the last item of a lane. */
  endOf(lane: BoardItem['lane']): number {
    const row = this.db.prepare('SELECT MAX(position) AS p FROM board_items WHERE lane = ?').get(lane) as { p: number | null };
    return (row.p ?? 0) + 1;
  }

  save(i: BoardItem): void {
    this.db
      .prepare(
        `INSERT INTO board_items (id, title, detail, lane, position, instance_id, session_id, message_id, source, created_at, updated_at)
         VALUES (@id, @title, @detail, @lane, @position, @instanceId, @sessionId, @messageId, @source, @createdAt, @updatedAt)
         ON CONFLICT(id) DO UPDATE SET title = excluded.title, detail = excluded.detail, lane = excluded.lane, position = excluded.position,
           instance_id = excluded.instance_id, session_id = excluded.session_id, message_id = excluded.message_id, updated_at = excluded.updated_at`,
      )
      .run(i);
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM board_items WHERE id = ?').run(id).changes > 0;
  }
}
