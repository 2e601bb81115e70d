// The security audit log: what other parts call to record a security-relevant action, and the reads
// and chain check behind the routes. Recording never throws into the caller's path: a failed write is
// reported on stderr and the action goes on.
import type { Db } from '../../store/db.ts';
import type { AuditEntry, AuditOutcome, AuditPage } from '../../protocol/security-audit.ts';
import { AuditRepo, type AuditQuery } from './audit.repo.ts';
import { verifyChain, type ChainVerdict } from './chain.ts';
import { FloodLimiter } from './limiter.ts';

export interface AuditInput {
  actor: string;
  action: string;
  target?: string;
  outcome: AuditOutcome;
  /** Names, counts and ids; never a secret value. */
  details?: Record<string, unknown>;
}

/** The narrow door other modules get: record one action. */
export interface AuditSink {
  record(input: AuditInput): void;
  /** For actions anyone can cause over and over (auth failures): flood-limited per `key`. */
  recordLimited(key: string, input: AuditInput): void;
}

export class SecurityAudit implements AuditSink {
  private readonly repo: AuditRepo;
  private readonly limiter: FloodLimiter;
  private readonly now: () => number;

  constructor(db: Db, options: { now?: () => number; perKey?: number; total?: number } = {}) {
    this.repo = new AuditRepo(db);
    this.now = options.now ?? Date.now;
    this.limiter = new FloodLimiter({ windowMs: 60_000, perKey: options.perKey ?? 10, total: options.total ?? 100, now: this.now });
  }

  record(input: AuditInput): AuditEntry | undefined {
    try {
      return this.repo.append({
        ts: this.now(),
        actor: input.actor,
        action: input.action,
        target: input.target ?? '',
        outcome: input.outcome,
        details: input.details ?? {},
      });
    } catch (err) {
      console.error(`svc: security audit entry '${input.action}' not written: ${(err as Error).message}`);
      return undefined;
    }
  }

  recordLimited(key: string, input: AuditInput): void {
    const dropped = this.limiter.admit(key);
    if (dropped === undefined) return;
    this.record(dropped ? { ...input, details: { ...input.details, suppressedBefore: dropped } } : input);
  }

  page(query: AuditQuery): AuditPage {
    const { entries, hasMore } = this.repo.page(query);
    const last = entries.at(-1)?.seq ?? query.since ?? this.repo.head()?.seq ?? 0;
    return { entries, hasMore, nextSince: last };
  }

  verify(): ChainVerdict {
    return verifyChain(this.repo.all(), this.repo.head());
  }
}
