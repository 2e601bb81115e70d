// Stores settings as one JSON document per top-level section.
import type { Db } from '../../store/db.ts';

export class SettingsRepo {
  constructor(private readonly db: Db) {}

  readAll(): Record<string, unknown> {
    const rows = this.db.prepare('SELECT section, value FROM settings').all() as { section: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.section, JSON.parse(r.value) as unknown]));
  }

  writeSections(sections: Record<string, unknown>, now = Date.now()): void {
    const upsert = this.db.prepare(
      `INSERT INTO settings (section, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(section) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.db.transaction(() => {
      for (const [section, value] of Object.entries(sections)) upsert.run(section, JSON.stringify(value), now);
    })();
  }
}
