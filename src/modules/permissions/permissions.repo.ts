// The permission requests and remembered rules, in SQLite (migration 013).
import type { Db } from '../../store/db.ts';
import type { Decider, PermissionRequest, PermissionRule, PermissionSummary } from '../../protocol/permissions.ts';
import { ruleLabel, type RuleDraft } from './rules.ts';

interface RequestRow {
  id: string;
  session_id: string;
  run_id: string;
  provider: string;
  tool: string;
  input: string;
  summary: string;
  created_at: number;
  expires_at: number;
  status: PermissionRequest['status'];
  decided_at: number | null;
  decided_by: Decider | null;
  reason: string | null;
}

interface RuleRow {
  id: string;
  tool: string;
  pattern: string;
  decision: PermissionRule['decision'];
  scope: PermissionRule['scope'];
  session_id: string | null;
  created_at: number;
}

const toRequest = (r: RequestRow): PermissionRequest => ({
  id: r.id,
  sessionId: r.session_id,
  runId: r.run_id,
  provider: r.provider,
  tool: r.tool,
  input: JSON.parse(r.input) as Record<string, unknown>,
  summary: JSON.parse(r.summary) as PermissionSummary,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  status: r.status,
  ...(r.decided_at !== null ? { decidedAt: r.decided_at } : {}),
  ...(r.decided_by !== null ? { decidedBy: r.decided_by } : {}),
  ...(r.reason !== null ? { reason: r.reason } : {}),
});

const toRule = (r: RuleRow): PermissionRule => ({
  id: r.id,
  tool: r.tool,
  pattern: r.pattern,
  decision: r.decision,
  scope: r.scope,
  ...(r.session_id !== null ? { sessionId: r.session_id } : {}),
  createdAt: r.created_at,
  label: ruleLabel(r.tool, r.pattern),
});

export class PermissionsRepo {
  constructor(private readonly db: Db) {}

  insert(request: PermissionRequest): void {
    this.db
      .prepare('INSERT INTO permission_requests (id, session_id, run_id, provider, tool, input, summary, created_at, expires_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(request.id, request.sessionId, request.runId, request.provider, request.tool, JSON.stringify(request.input), JSON.stringify(request.summary), request.createdAt, request.expiresAt, 'pending');
  }

  get(id: string): PermissionRequest | undefined {
    const row = this.db.prepare('SELECT * FROM permission_requests WHERE id = ?').get(id) as RequestRow | undefined;
    return row && toRequest(row);
  }

  /** The request as decided, or undefined when it was decided already (the first decision wins). */
  decide(id: string, status: 'allowed' | 'denied', by: Decider, at: number, reason?: string): PermissionRequest | undefined {
    const changed = this.db
      .prepare("UPDATE permission_requests SET status = ?, decided_by = ?, decided_at = ?, reason = ? WHERE id = ? AND status = 'pending'")
      .run(status, by, at, reason ?? null, id).changes;
    return changed ? this.get(id) : undefined;
  }

  pending(sessionId?: string): PermissionRequest[] {
    const rows = sessionId
      ? this.db.prepare("SELECT * FROM permission_requests WHERE status = 'pending' AND session_id = ? ORDER BY created_at").all(sessionId)
      : this.db.prepare("SELECT * FROM permission_requests WHERE status = 'pending' ORDER BY created_at").all();
    return (rows as RequestRow[]).map(toRequest);
  }

  rules(): PermissionRule[] {
    return (this.db.prepare('SELECT * FROM permission_rules ORDER BY created_at').all() as RuleRow[]).map(toRule);
  }

  addRule(id: string, draft: RuleDraft, at: number): PermissionRule {
    // the same rule again replaces the old one (its decision may have changed)
    this.db.prepare('DELETE FROM permission_rules WHERE tool = ? AND pattern = ? AND scope = ? AND session_id IS ?').run(draft.tool, draft.pattern, draft.scope, draft.sessionId ?? null);
    this.db.prepare('INSERT INTO permission_rules (id, tool, pattern, decision, scope, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, draft.tool, draft.pattern, draft.decision, draft.scope, draft.sessionId ?? null, at);
    return toRule(this.db.prepare('SELECT * FROM permission_rules WHERE id = ?').get(id) as RuleRow);
  }

  removeRule(id: string): boolean {
    return this.db.prepare('DELETE FROM permission_rules WHERE id = ?').run(id).changes > 0;
  }
}
