// Tool calls held for a person. A CLI's permission request (agent/attempt.ts hands it here through
// the runtime) becomes a pending request: saved, published as `permission_request`, answered by a
// person through the API (the chat, the dashboard), a chat app or a notification, by a remembered
// rule, or denied when nobody answers in agent.approvalTimeoutSec. The first decision wins; each is
// published (`permission_resolved`) and audited. Nothing is lost: pending requests are listed and
// replayed, a run that ends denies what it left pending, and a restart denies what the last process
// left, so no request stays pending without a run behind it.
import { conflict, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { EventBus } from '../../events/bus.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { Decider, DecisionBody, PermissionRequest, PermissionRule } from '../../protocol/permissions.ts';
import { matchingRule, ruleFor } from './rules.ts';
import { boundedInput, summarize } from './summary.ts';
import type { PermissionsRepo } from './permissions.repo.ts';

/** The run a request comes from. */
export interface AskContext {
  sessionId: string;
  runId: string;
  provider: string;
}

/** The call the CLI asks about. */
export interface AskedCall {
  tool: string;
  input: Record<string, unknown>;
  description?: string;
}

/** What goes back to the CLI (agent/providers/types.ts PermissionAnswer). */
export type Answer = { allow: true } | { allow: false; reason: string };

export interface PermissionsDeps {
  repo: PermissionsRepo;
  bus: EventBus;
  audit: AuditSink;
  /** How long a request waits for a person (agent.approvalTimeoutSec), read when a request is made. */
  timeoutMs(): number;
  now?(): number;
}

/** How svc's own decisions read to the agent (a person's deny says what the person wrote). */
const REASONS: Record<'timeout' | 'run-ended' | 'restart', (sec: number) => string> = {
  timeout: (sec) => `Nobody answered this permission request within ${sec} s, so it was denied.`,
  'run-ended': () => 'The run ended before anyone answered this permission request.',
  restart: () => 'svc restarted before anyone answered this permission request.',
};
const PERSON_DENIED = 'The user denied this tool call.';

export class PermissionsService {
  /** The CLI waiting on each pending request of this process. */
  private readonly waiting = new Map<string, { resolve: (answer: Answer) => void; timer: NodeJS.Timeout }>();

  constructor(private readonly deps: PermissionsDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /**
   * What the last process left pending has no CLI waiting any more: denied as `restart`, published,
   * so open pages and chat apps close their prompts.
   */
  start(): void {
    for (const request of this.deps.repo.pending()) this.resolve(request.id, 'deny', 'restart', REASONS.restart(0));
  }

  close(): void {
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  /** A CLI's request: answered by a rule at once, or held until a person (or the timeout) answers. */
  ask(context: AskContext, call: AskedCall): Promise<Answer> {
    const rule = matchingRule(this.deps.repo.rules(), call.tool, call.input, context.sessionId);
    if (rule) return Promise.resolve(rule.decision === 'allow' ? { allow: true } : { allow: false, reason: `${PERSON_DENIED} (a remembered rule: ${rule.label})` });
    const now = this.now();
    const timeoutMs = this.deps.timeoutMs();
    const input = boundedInput(call.input);
    const request: PermissionRequest = {
      id: newId('perm'),
      sessionId: context.sessionId,
      runId: context.runId,
      provider: context.provider,
      tool: call.tool,
      input,
      summary: summarize(call.tool, input, call.description),
      createdAt: now,
      expiresAt: now + timeoutMs,
      status: 'pending',
    };
    this.deps.repo.insert(request);
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => this.resolve(request.id, 'deny', 'timeout', REASONS.timeout(timeoutMs / 1000)), timeoutMs);
      this.waiting.set(request.id, { resolve, timer });
      this.deps.bus.publish('permission_request', request);
    });
  }

  /** A person's decision. Unknown: 404; decided already: 409 (the first decision stands). */
  decide(id: string, body: DecisionBody, by: Decider, actor: string): PermissionRequest {
    const request = this.deps.repo.get(id);
    if (!request) throw notFound('Permission request', id);
    if (request.status !== 'pending') throw this.decidedAlready(request);
    const reason = body.decision === 'deny' ? body.reason || PERSON_DENIED : undefined;
    const decided = this.resolve(id, body.decision, by, reason);
    if (!decided) throw this.decidedAlready(this.deps.repo.get(id)!);
    let rule: PermissionRule | undefined;
    if (body.remember) rule = this.deps.repo.addRule(newId('rule'), ruleFor(request.tool, request.input, body.decision, body.remember, request.sessionId), this.now());
    this.deps.audit.record({
      actor,
      action: 'permission.decide',
      target: id,
      outcome: 'ok',
      details: { decision: body.decision, tool: request.tool, by, ...(rule ? { remember: rule.scope, rule: rule.label } : {}) },
    });
    return decided;
  }

  /** The pending requests a run left when it ended: nobody can run those calls any more. */
  endRun(runId: string): void {
    for (const request of this.deps.repo.pending()) if (request.runId === runId) this.resolve(request.id, 'deny', 'run-ended', REASONS['run-ended'](0));
  }

  pending(sessionId?: string): PermissionRequest[] {
    return this.deps.repo.pending(sessionId);
  }

  get(id: string): PermissionRequest | undefined {
    return this.deps.repo.get(id);
  }

  rules(): PermissionRule[] {
    return this.deps.repo.rules();
  }

  removeRule(id: string, actor: string): void {
    if (!this.deps.repo.removeRule(id)) throw notFound('Permission rule', id);
    this.deps.audit.record({ actor, action: 'permission.rule.remove', target: id, outcome: 'ok' });
  }

  private decidedAlready(request: PermissionRequest) {
    return conflict('ALREADY_DECIDED', `This request was already ${request.status} (by ${request.decidedBy ?? 'svc'}); a decision cannot be changed.`, {
      status: request.status,
      ...(request.decidedBy ? { decidedBy: request.decidedBy } : {}),
    });
  }

  /** Saves the first decision, answers the CLI, publishes it. Undefined when it was decided before. */
  private resolve(id: string, decision: 'allow' | 'deny', by: Decider, reason?: string): PermissionRequest | undefined {
    const decided = this.deps.repo.decide(id, decision === 'allow' ? 'allowed' : 'denied', by, this.now(), reason);
    if (!decided) return undefined;
    const waiter = this.waiting.get(id);
    this.waiting.delete(id);
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(decision === 'allow' ? { allow: true } : { allow: false, reason: reason ?? PERSON_DENIED });
    }
    this.deps.bus.publish('permission_resolved', { id, sessionId: decided.sessionId, runId: decided.runId, decision, by, ...(reason ? { reason } : {}) });
    return decided;
  }
}
