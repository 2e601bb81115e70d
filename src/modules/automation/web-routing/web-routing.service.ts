// RuleService: the web-routing rules of this server. Owns the repository and a compiled, indexed RuleSet that is
// rebuilt lazily after every change, so the proxy and attached browser pages always see the current rules
// (they call `current()` per request; that is a field read unless the rules just changed).
import { notFound } from '../../../core/errors.ts';
import { canonicalPattern } from './pattern.ts';
import { compileRuleSet, normalizeRuleSpec, type Rule, type RuleSet, type RuleSource, type RuleSpec } from './rules.ts';
import type { RulesRepo } from './web-routing.repo.ts';

export type RuleChange =
  | { kind: 'added'; rule: Rule }
  | { kind: 'removed'; rules: Rule[] }
  | { kind: 'cleared'; count: number };

export interface RuleServiceOptions {
  /** called when a stored rule no longer compiles (it is skipped) */
  onInvalidRule?: (rule: Rule, error: unknown) => void;
}

export class RuleService implements RuleSource {
  private cache: RuleSet | null = null;
  private readonly listeners = new Set<(change: RuleChange) => void>();
  private invalid: Array<{ rule: Rule; error: string }> = [];

  constructor(
    private readonly repo: RulesRepo,
    private readonly options: RuleServiceOptions = {},
  ) {}

  /** The compiled rule set (cached until the next change). */
  current(): RuleSet {
    if (this.cache === null) {
      const invalid: Array<{ rule: Rule; error: string }> = [];
      this.cache = compileRuleSet(this.repo.list(), (rule, error) => {
        invalid.push({ rule, error: error instanceof Error ? error.message : String(error) });
        this.options.onInvalidRule?.(rule, error);
      });
      this.invalid = invalid;
    }
    return this.cache;
  }

  /** Stored rules that failed to compile at the last rebuild (skipped by matching). */
  invalidRules(): ReadonlyArray<{ rule: Rule; error: string }> {
    this.current();
    return this.invalid;
  }

  list(): Rule[] {
    return this.repo.list();
  }

  get(id: number): Rule {
    const rule = this.repo.get(id);
    if (!rule) throw notFound('web-routing rule', id);
    return rule;
  }

  /** Validates (AppError 400 on a bad rule), stores, and returns the new rule. */
  add(input: RuleSpec | unknown): Rule {
    const spec = normalizeRuleSpec(input);
    const rule = this.repo.insert(spec);
    this.changed({ kind: 'added', rule });
    return rule;
  }

  remove(id: number): Rule {
    const rule = this.repo.delete(id);
    if (!rule) throw notFound('web-routing rule', id);
    this.changed({ kind: 'removed', rules: [rule] });
    return rule;
  }

  /** Removes every rule with this pattern (compared in canonical form); returns them (possibly none). */
  removeByPattern(pattern: string): Rule[] {
    const rules = this.repo.deleteByPattern(canonicalPattern(pattern));
    if (rules.length) this.changed({ kind: 'removed', rules });
    return rules;
  }

  clear(): number {
    const count = this.repo.clear();
    this.changed({ kind: 'cleared', count });
    return count;
  }

  onChange(listener: (change: RuleChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(change: RuleChange): void {
    this.cache = null;
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // a listener's failure must not undo or block the change
      }
    }
  }
}
