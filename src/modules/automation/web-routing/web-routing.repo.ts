// Storage of web-routing rules: the `web_routing_rules` table (migration 003). One module per table; no caching
// here (RuleService caches the compiled set).
import type Database from 'better-sqlite3';
import type { Rule, RuleSpec } from './rules.ts';

interface Row {
  id: number;
  type: string;
  pattern: string;
  spec: string;
  created_at: number;
}

function toRule(row: Row): Rule {
  const spec = JSON.parse(row.spec) as RuleSpec;
  return { ...spec, type: spec.type, pattern: row.pattern, id: row.id, createdAt: new Date(row.created_at).toISOString() } as Rule;
}

export class RulesRepo {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      list: db.prepare<[], Row>('SELECT id, type, pattern, spec, created_at FROM web_routing_rules ORDER BY id'),
      get: db.prepare<[number], Row>('SELECT id, type, pattern, spec, created_at FROM web_routing_rules WHERE id = ?'),
      byPattern: db.prepare<[string], Row>(
        'SELECT id, type, pattern, spec, created_at FROM web_routing_rules WHERE pattern = ? ORDER BY id',
      ),
      insert: db.prepare<[string, string, string, number]>(
        'INSERT INTO web_routing_rules (type, pattern, spec, created_at) VALUES (?, ?, ?, ?)',
      ),
      delete: db.prepare<[number]>('DELETE FROM web_routing_rules WHERE id = ?'),
      deleteByPattern: db.prepare<[string]>('DELETE FROM web_routing_rules WHERE pattern = ?'),
      clear: db.prepare('DELETE FROM web_routing_rules'),
    };
  }

  list(): Rule[] {
    return this.stmts.list.all().map(toRule);
  }

  get(id: number): Rule | undefined {
    const row = this.stmts.get.get(id);
    return row ? toRule(row) : undefined;
  }

  /** Stores a normalized spec (see normalizeRuleSpec) and returns the rule with its id. */
  insert(spec: RuleSpec, now = Date.now()): Rule {
    const { lastInsertRowid } = this.stmts.insert.run(spec.type, spec.pattern, JSON.stringify(spec), now);
    return this.get(Number(lastInsertRowid))!;
  }

  delete(id: number): Rule | undefined {
    const rule = this.get(id);
    if (rule) this.stmts.delete.run(id);
    return rule;
  }

  /** Deletes every rule whose canonical pattern equals `pattern`; returns them. */
  deleteByPattern(pattern: string): Rule[] {
    return this.db.transaction(() => {
      const rules = this.stmts.byPattern.all(pattern).map(toRule);
      this.stmts.deleteByPattern.run(pattern);
      return rules;
    })();
  }

  clear(): number {
    return this.stmts.clear.run().changes;
  }
}
