// "Remember": a decision that answers the same call from now on. A rule names a tool and what of its
// input it covers: the exact command of a shell tool, the exact file of a file tool, or any input of
// any other tool; in one chat session or in all. Reads as Claude Code's own rules do: `Bash(npm test)`,
// `Write(notes.md)`, `mcp__files__read`. Pure.
import type { PermissionDecision, PermissionRule, RememberScope } from '../../protocol/permissions.ts';
import { commandOf, pathOf } from './summary.ts';

export const ANY_INPUT = '*';

/** What of this call a rule made from it covers. */
export function patternOf(input: Record<string, unknown>): string {
  return commandOf(input) ?? pathOf(input) ?? ANY_INPUT;
}

export const ruleLabel = (tool: string, pattern: string) => (pattern === ANY_INPUT ? tool : `${tool}(${pattern})`);

export interface RuleDraft {
  tool: string;
  pattern: string;
  decision: PermissionDecision;
  scope: RememberScope;
  sessionId?: string;
}

export function ruleFor(tool: string, input: Record<string, unknown>, decision: PermissionDecision, scope: RememberScope, sessionId: string): RuleDraft {
  return { tool, pattern: patternOf(input), decision, scope, ...(scope === 'session' ? { sessionId } : {}) };
}

/** The rule that answers this call in this session, if any. */
export function matchingRule(rules: readonly PermissionRule[], tool: string, input: Record<string, unknown>, sessionId: string): PermissionRule | undefined {
  const pattern = patternOf(input);
  return rules.find((r) => r.tool === tool && (r.pattern === ANY_INPUT || r.pattern === pattern) && (r.scope === 'always' || r.sessionId === sessionId));
}
