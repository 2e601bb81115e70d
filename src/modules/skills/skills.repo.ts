// Skills added by reference (a local path or an npm package directory) and the enabled flags the
// user set; a skill with no flag has its source's default.
import type { Db } from '../../store/db.ts';

export interface AddedSkill {
  id: string;
  kind: 'path' | 'npm';
  location: string;
}

export class SkillsRepo {
  constructor(private readonly db: Db) {}

  added(): AddedSkill[] {
    return this.db.prepare('SELECT id, kind, location FROM skill_sources ORDER BY added_at, id').all() as AddedSkill[];
  }

  add(skill: AddedSkill): void {
    this.db.prepare('INSERT INTO skill_sources (id, kind, location, added_at) VALUES (?, ?, ?, ?)').run(skill.id, skill.kind, skill.location, Date.now());
  }

  flags(): Map<string, boolean> {
    const rows = this.db.prepare('SELECT id, enabled FROM skill_state').all() as { id: string; enabled: number }[];
    return new Map(rows.map((r) => [r.id, r.enabled === 1]));
  }

  setEnabled(id: string, enabled: boolean): void {
    this.db.prepare('INSERT INTO skill_state (id, enabled) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled').run(id, enabled ? 1 : 0);
  }
}
