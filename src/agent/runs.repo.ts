// Repositories of the agent runtime: provider sessions to resume, and run summaries.
import type { Db } from '../store/db.ts';
import type { RunRecord } from '../protocol/runs.ts';

export class ProviderSessionRepo {
  constructor(private readonly db: Db) {}

  get(chatSessionId: string, provider: string): string | undefined {
    const row = this.db
      .prepare('SELECT provider_session_id AS id FROM provider_sessions WHERE chat_session_id = ? AND provider = ?')
      .get(chatSessionId, provider) as { id: string } | undefined;
    return row?.id;
  }

  set(chatSessionId: string, provider: string, providerSessionId: string): void {
    this.db
      .prepare(
        `INSERT INTO provider_sessions (chat_session_id, provider, provider_session_id, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(chat_session_id, provider) DO UPDATE SET provider_session_id = excluded.provider_session_id, updated_at = excluded.updated_at`,
      )
      .run(chatSessionId, provider, providerSessionId, Date.now());
  }

  forget(chatSessionId: string, provider?: string): void {
    if (provider === undefined) this.db.prepare('DELETE FROM provider_sessions WHERE chat_session_id = ?').run(chatSessionId);
    else this.db.prepare('DELETE FROM provider_sessions WHERE chat_session_id = ? AND provider = ?').run(chatSessionId, provider);
  }

  list(chatSessionId: string): Record<string, string> {
    const rows = this.db
      .prepare('SELECT provider, provider_session_id AS id FROM provider_sessions WHERE chat_session_id = ?')
      .all(chatSessionId) as { provider: string; id: string }[];
    return Object.fromEntries(rows.map((r) => [r.provider, r.id]));
  }
}

export type RunStatus = RunRecord['status'];

interface RunRow {
  id: string;
  chat_session_id: string;
  request_id: string;
  provider: string;
  model: string;
  status: RunStatus;
  error: string | null;
  message_id: number | null;
  usage: string | null;
  event_count: number;
  started_at: number;
  finished_at: number | null;
}

export class RunRepo {
  constructor(private readonly db: Db) {}

  start(run: Pick<RunRecord, 'id' | 'chatSessionId' | 'requestId' | 'provider' | 'model' | 'startedAt'>): void {
    this.db
      .prepare(`INSERT INTO runs (id, chat_session_id, request_id, provider, model, status, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?)`)
      .run(run.id, run.chatSessionId, run.requestId, run.provider, run.model, run.startedAt);
  }

  /** The provider that finally answered (after fallback) is recorded with the outcome. */
  finish(id: string, outcome: { status: RunStatus; provider: string; error?: string; messageId?: number; usage?: Record<string, number>; eventCount: number }): void {
    this.db
      .prepare('UPDATE runs SET status = ?, provider = ?, error = ?, message_id = ?, usage = ?, event_count = ?, finished_at = ? WHERE id = ?')
      .run(outcome.status, outcome.provider, outcome.error ?? null, outcome.messageId ?? null, outcome.usage ? JSON.stringify(outcome.usage) : null, outcome.eventCount, Date.now(), id);
  }

  get(id: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      chatSessionId: row.chat_session_id,
      requestId: row.request_id,
      provider: row.provider,
      model: row.model,
      status: row.status,
      ...(row.error !== null ? { error: row.error } : {}),
      ...(row.message_id !== null ? { messageId: row.message_id } : {}),
      ...(row.usage !== null ? { usage: JSON.parse(row.usage) as Record<string, number> } : {}),
      eventCount: row.event_count,
      startedAt: row.started_at,
      ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    };
  }

  /** Runs left `running` by a crash are marked interrupted on start-up. */
  markAbandoned(): number {
    return this.db.prepare("UPDATE runs SET status = 'interrupted', finished_at = ? WHERE status = 'running'").run(Date.now()).changes;
  }
}
