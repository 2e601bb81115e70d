// Pinned traces: kept by trace retention whatever their age or the traces' total size.
import type { Db } from '../../store/db.ts';

export class TracePinRepo {
  constructor(private readonly db: Db) {}

  all(): string[] {
    return (this.db.prepare('SELECT trace_id AS id FROM trace_pins').all() as { id: string }[]).map((r) => r.id);
  }

  pin(traceId: string): void {
    this.db.prepare('INSERT INTO trace_pins (trace_id, pinned_at) VALUES (?, ?) ON CONFLICT(trace_id) DO NOTHING').run(traceId, Date.now());
  }

  unpin(traceId: string): void {
    this.db.prepare('DELETE FROM trace_pins WHERE trace_id = ?').run(traceId);
  }
}
