// Notes left by instances' agents (table connector_notes of dashboard.db).
import type { Db } from '../../store/db.ts';
import type { Note } from '../../protocol/dashboard.ts';

interface Row {
  id: number;
  instance_id: string;
  title: string;
  body: string;
  board_item_id: string | null;
  created_at: number;
}

const toNote = (r: Row): Note => ({ id: r.id, instanceId: r.instance_id, author: 'agent', title: r.title, body: r.body, boardItemId: r.board_item_id, createdAt: r.created_at });

export class NotesRepo {
  constructor(private readonly db: Db) {}

  add(input: { instanceId: string; title: string; body: string; boardItemId: string | null }): Note {
    const createdAt = Date.now();
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO connector_notes (instance_id, title, body, board_item_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(input.instanceId, input.title, input.body, input.boardItemId, createdAt);
    return { id: Number(lastInsertRowid), instanceId: input.instanceId, author: 'agent', title: input.title, body: input.body, boardItemId: input.boardItemId, createdAt };
  }

  /** Newest first; of one instance when given. */
  list(opts: { instanceId?: string; limit: number }): Note[] {
    const rows = opts.instanceId
      ? this.db.prepare('SELECT * FROM connector_notes WHERE instance_id = ? ORDER BY id DESC LIMIT ?').all(opts.instanceId, opts.limit)
      : this.db.prepare('SELECT * FROM connector_notes ORDER BY id DESC LIMIT ?').all(opts.limit);
    return (rows as Row[]).map(toNote);
  }
}
