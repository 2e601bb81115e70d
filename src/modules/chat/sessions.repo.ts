// Repository of chat sessions. Exactly one session is active; the schema enforces "at most one"
// and `ensureActive` restores "at least one" (a fresh database gets a first session).
import type { Db } from '../../store/db.ts';
import { newId } from '../../core/ids.ts';

/** The title of a session nobody has named yet (its first message names it: session-title.ts). */
export const DEFAULT_SESSION_TITLE = 'New chat';

import type { ChatSession } from '../../protocol/chat.ts';

interface SessionRow {
  id: string;
  title: string;
  active: number;
  created_at: number;
  updated_at: number;
}

const toSession = (r: SessionRow): ChatSession => ({
  id: r.id,
  title: r.title,
  active: r.active === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class ChatSessionRepo {
  constructor(private readonly db: Db) {}

  list(limit = 200): ChatSession[] {
    const rows = this.db
      .prepare('SELECT * FROM chat_sessions ORDER BY updated_at DESC, id LIMIT ?')
      .all(limit) as SessionRow[];
    return rows.map(toSession);
  }

  get(id: string): ChatSession | undefined {
    const row = this.db.prepare('SELECT * FROM chat_sessions WHERE id = ?').get(id) as SessionRow | undefined;
    return row ? toSession(row) : undefined;
  }

  active(): ChatSession | undefined {
    const row = this.db.prepare('SELECT * FROM chat_sessions WHERE active = 1').get() as SessionRow | undefined;
    return row ? toSession(row) : undefined;
  }

  create(title: string, now = Date.now()): ChatSession {
    const id = newId('ses');
    this.db
      .prepare('INSERT INTO chat_sessions (id, title, active, created_at, updated_at) VALUES (?, ?, 0, ?, ?)')
      .run(id, title, now, now);
    return { id, title, active: false, createdAt: now, updatedAt: now };
  }

  /** Makes `id` the only active session. Returns false when no such session exists. */
  activate(id: string): boolean {
    return this.db.transaction(() => {
      if (!this.get(id)) return false;
      this.db.prepare('UPDATE chat_sessions SET active = 0 WHERE active = 1 AND id <> ?').run(id);
      this.db.prepare('UPDATE chat_sessions SET active = 1 WHERE id = ?').run(id);
      return true;
    })();
  }

  /** Returns false when no such session exists. */
  rename(id: string, title: string): boolean {
    return this.db.prepare('UPDATE chat_sessions SET title = ? WHERE id = ?').run(title, id).changes === 1;
  }

  /** Deletes a session; its messages and provider sessions go with it (foreign keys cascade). */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM chat_sessions WHERE id = ?').run(id).changes === 1;
  }

  touch(id: string, now = Date.now()): void {
    this.db.prepare('UPDATE chat_sessions SET updated_at = ? WHERE id = ?').run(now, id);
  }

  ensureActive(defaultTitle = DEFAULT_SESSION_TITLE): ChatSession {
    const current = this.active();
    if (current) return current;
    const newest = this.list(1)[0] ?? this.create(defaultTitle);
    this.activate(newest.id);
    return { ...newest, active: true };
  }
}
