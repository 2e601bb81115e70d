import type { Migration } from './migration.ts';

// web-routing rules (src/modules/automation/web-routing/web-routing.repo.ts). `spec` is the rule's normalized JSON (RuleSpec without
// id/createdAt); `type` and `pattern` are copied out of it so the table can be read and filtered without parsing.
// Ids are AUTOINCREMENT: never reused and strictly increasing, so "most recently added" (the last precedence
// tie-break) is simply the higher id.
export const m003WebRouting: Migration = {
  version: 3,
  name: 'web-routing: interception rules',
  up(db) {
    db.exec(`
      CREATE TABLE web_routing_rules (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        type        TEXT NOT NULL CHECK (type IN ('redirect', 'rewrite', 'block', 'mock', 'transform')),
        pattern     TEXT NOT NULL,
        spec        TEXT NOT NULL CHECK (json_valid(spec)),
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX web_routing_rules_pattern ON web_routing_rules(pattern);
    `);
  },
};
