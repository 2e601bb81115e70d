// Repository of saved chat messages. Reads are always bounded (paged or limited).
import type { Db } from '../../store/db.ts';
import type { Message, MessageRole, SearchHit } from '../../protocol/chat.ts';

export interface MessagePage {
  messages: Message[];
  /** True when more messages exist beyond this page in the direction of travel. */
  hasMore: boolean;
}

interface MessageRow {
  id: number;
  session_id: string;
  role: MessageRole;
  content: string;
  meta: string | null;
  created_at: number;
}

const toMessage = (row: MessageRow): Message => ({
  id: row.id,
  sessionId: row.session_id,
  role: row.role,
  content: row.content,
  createdAt: row.created_at,
  ...(row.meta ? { meta: JSON.parse(row.meta) as Record<string, unknown> } : {}),
});

// Snippet markers that cannot occur in escaped HTML, swapped for <mark> after escaping.
const MARK_OPEN = '\u0002';
const MARK_CLOSE = '\u0003';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Turns free text into a safe FTS5 query: every whitespace-separated term is quoted (so FTS
 * operators and punctuation in user input are literal), terms are AND-ed, and a trailing `*` on a
 * term keeps its prefix-search meaning.
 */
export function toFtsQuery(text: string): string | null {
  const terms = text
    .split(/\s+/)
    .map((t) => t.trim())
    .filter(Boolean)
    .slice(0, 32)
    .map((term) => {
      const prefix = term.length > 1 && term.endsWith('*');
      const bare = (prefix ? term.slice(0, -1) : term).replace(/"/g, '""');
      return `"${bare}"${prefix ? '*' : ''}`;
    });
  return terms.length ? terms.join(' ') : null;
}

/**
 * Ranking reads every match, so on a long history a common word would cost tens of milliseconds.
 * Results are ranked by bm25 among the most recent SEARCH_WINDOW matches: what a chat user looks for,
 * at a bounded cost (finding the window's edge walks rowids newest-first and stops).
 */
export const SEARCH_WINDOW = 1000;

export class MessageRepo {
  private readonly insertStmt;
  private readonly latestStmt;
  private readonly beforeStmt;
  private readonly afterStmt;
  private readonly countStmt;
  private readonly countAllStmt;
  private readonly searchStmt;
  private readonly searchSessionStmt;
  private readonly windowStmt;
  private readonly windowSessionStmt;
  private readonly getStmt;
  private readonly deleteSessionStmt;
  private readonly deleteStmt;
  private readonly newerStmt;
  private readonly newestAfterStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO messages (session_id, role, content, meta, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    // Pages are selected newest-first (index order) and reversed, so every page reads chronologically.
    this.latestStmt = db.prepare(
      'SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?',
    );
    this.beforeStmt = db.prepare(
      'SELECT * FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.afterStmt = db.prepare(
      'SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id ASC LIMIT ?',
    );
    this.countStmt = db.prepare('SELECT count(*) AS n FROM messages WHERE session_id = ?');
    this.countAllStmt = db.prepare('SELECT count(*) AS n FROM messages');
    const searchSql = (sessionFilter: string) => `
      SELECT m.id, m.session_id, m.role, m.created_at,
             snippet(messages_fts, 0, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 16) AS snippet,
             bm25(messages_fts) AS rank
      FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
      WHERE messages_fts MATCH ? AND messages_fts.rowid >= ? ${sessionFilter}
      ORDER BY rank LIMIT ?`;
    this.searchStmt = db.prepare(searchSql(''));
    this.searchSessionStmt = db.prepare(searchSql('AND m.session_id = ?'));
    const windowSql = (join: string) => `
      SELECT messages_fts.rowid FROM messages_fts ${join}
      WHERE messages_fts MATCH ? ORDER BY messages_fts.rowid DESC LIMIT 1 OFFSET ${SEARCH_WINDOW - 1}`;
    this.windowStmt = db.prepare(windowSql('')).pluck();
    this.windowSessionStmt = db.prepare(windowSql('JOIN messages m ON m.id = messages_fts.rowid AND m.session_id = ?')).pluck();
    this.getStmt = db.prepare('SELECT * FROM messages WHERE id = ?');
    this.deleteSessionStmt = db.prepare('DELETE FROM messages WHERE session_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM messages WHERE id = ?');
    this.newerStmt = db.prepare('SELECT 1 FROM messages WHERE session_id = ? AND id > ? LIMIT 1').pluck();
    this.newestAfterStmt = db.prepare('SELECT * FROM messages WHERE id > ? ORDER BY id DESC LIMIT ?');
  }

  insert(input: {
    sessionId: string;
    role: MessageRole;
    content: string;
    meta?: Record<string, unknown>;
    createdAt?: number;
  }): Message {
    const createdAt = input.createdAt ?? Date.now();
    const meta = input.meta && Object.keys(input.meta).length ? input.meta : undefined;
    const result = this.insertStmt.run(
      input.sessionId,
      input.role,
      input.content,
      meta ? JSON.stringify(meta) : null,
      createdAt,
    );
    return {
      id: Number(result.lastInsertRowid),
      sessionId: input.sessionId,
      role: input.role,
      content: input.content,
      createdAt,
      ...(meta ? { meta } : {}),
    };
  }

  /** Whether a session has no message (an index probe, unlike count()). */
  isEmpty(sessionId: string): boolean {
    return !this.newerStmt.get(sessionId, 0); // ids start at 1
  }

  /**
   * Gives a message a new id after every other message of its session (same content, meta and
   * time), so id order is turn order: a queued user message moves behind the answer it waited for.
   * Undefined when it is already the newest (nothing changes) or does not exist.
   */
  moveToEnd(id: number): Message | undefined {
    return this.db.transaction(() => {
      const message = this.get(id);
      if (!message || !this.newerStmt.get(message.sessionId, id)) return undefined;
      this.deleteStmt.run(id);
      return this.insert(message);
    })();
  }

  get(id: number): Message | undefined {
    const row = this.getStmt.get(id) as MessageRow | undefined;
    return row ? toMessage(row) : undefined;
  }

  /** `before`: the page just older than that id; `after`: just newer; neither: the latest page. */
  page(sessionId: string, opts: { limit: number; before?: number; after?: number }): MessagePage {
    const probe = opts.limit + 1; // one extra row tells whether more exist
    let rows: MessageRow[];
    if (opts.after !== undefined) {
      rows = this.afterStmt.all(sessionId, opts.after, probe) as MessageRow[];
      const hasMore = rows.length > opts.limit;
      return { messages: rows.slice(0, opts.limit).map(toMessage), hasMore };
    }
    rows = (
      opts.before !== undefined
        ? this.beforeStmt.all(sessionId, opts.before, probe)
        : this.latestStmt.all(sessionId, probe)
    ) as MessageRow[];
    const hasMore = rows.length > opts.limit;
    return { messages: rows.slice(0, opts.limit).reverse().map(toMessage), hasMore };
  }

  /** The newest `limit` messages of every session with an id above `afterId`, oldest first (memory summaries). */
  newestAfter(afterId: number, limit: number): Message[] {
    return (this.newestAfterStmt.all(afterId, limit) as MessageRow[]).reverse().map(toMessage);
  }

  count(sessionId?: string): number {
    const row = (sessionId === undefined
      ? this.countAllStmt.get()
      : this.countStmt.get(sessionId)) as { n: number };
    return row.n;
  }

  search(text: string, opts: { limit: number; sessionId?: string }): SearchHit[] {
    const query = toFtsQuery(text);
    if (!query) return [];
    const oldest = ((opts.sessionId === undefined
      ? this.windowStmt.get(query)
      : this.windowSessionStmt.get(opts.sessionId, query)) as number | undefined) ?? 0;
    const rows = (
      opts.sessionId === undefined
        ? this.searchStmt.all(query, oldest, opts.limit)
        : this.searchSessionStmt.all(query, oldest, opts.sessionId, opts.limit)
    ) as { id: number; session_id: string; role: MessageRole; created_at: number; snippet: string; rank: number }[];
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      role: r.role,
      createdAt: r.created_at,
      snippet: escapeHtml(r.snippet).replaceAll(MARK_OPEN, '<mark>').replaceAll(MARK_CLOSE, '</mark>'),
      rank: r.rank,
    }));
  }

  deleteSession(sessionId: string): number {
    return this.deleteSessionStmt.run(sessionId).changes;
  }
}
