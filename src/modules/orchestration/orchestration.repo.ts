// One JSON document per chat session: its orchestration state (phase, records, history).
import type { Db } from '../../store/db.ts';
import { OrcStateSchema, type OrcState } from '../../protocol/orchestration.ts';

export class OrchestrationRepo {
  constructor(private readonly db: Db) {}

  get(sessionId: string): OrcState | undefined {
    const row = this.db.prepare('SELECT state FROM orchestrations WHERE session_id = ?').get(sessionId) as { state: string } | undefined;
    if (!row) return undefined;
    // a document a newer or broken build wrote is not trusted blindly
    const parsed = OrcStateSchema.safeParse(JSON.parse(row.state));
    return parsed.success ? parsed.data : undefined;
  }

  save(state: OrcState): void {
    this.db
      .prepare('INSERT INTO orchestrations (session_id, state, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at')
      .run(state.sessionId, JSON.stringify(state), state.updatedAt);
  }
}
