// Run credentials: how the server tells the main agent from a human. Each main-agent run gets a
// random credential in its CLI's environment (SVC_RUN_TOKEN); the `svc` CLI sends it back as a
// header. The server keeps the mapping in memory only while the run lives: a restart or the run's
// end forgets it, so a credential never outlives its run. Worker runs and one-shot runs get none.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { RunIdentity } from '../protocol/caller.ts';

export { RUN_TOKEN_ENV, RUN_TOKEN_HEADER, type RunIdentity } from '../protocol/caller.ts';

interface Entry extends RunIdentity {
  token: string;
  expiresAt: number;
}

export class RunCredentials {
  private readonly byToken = new Map<string, Entry>();
  private readonly byRun = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A new credential for this run (a run asking again gets a fresh one; the old one stops working).
   * `ttlMs` bounds its life even if the run's end is never reported.
   */
  issue(identity: RunIdentity, ttlMs: number): string {
    this.revoke(identity.runId);
    const token = `svcrun_${randomBytes(24).toString('base64url')}`;
    const entry: Entry = { ...identity, token, expiresAt: this.now() + ttlMs };
    this.byToken.set(token, entry);
    this.byRun.set(identity.runId, entry);
    return token;
  }

  /** The run a credential belongs to, while that run lives; undefined for anything else. */
  resolve(token: string | undefined): RunIdentity | undefined {
    if (!token) return undefined;
    const entry = this.byToken.get(token);
    // the map lookup found it by value; the constant-time compare keeps the check honest anyway
    if (!entry || !sameText(entry.token, token)) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.revoke(entry.runId);
      return undefined;
    }
    return { runId: entry.runId, sessionId: entry.sessionId };
  }

  /** Forgets the run's credential (its run ended). */
  revoke(runId: string): void {
    const entry = this.byRun.get(runId);
    if (!entry) return;
    this.byRun.delete(runId);
    this.byToken.delete(entry.token);
  }

  get size(): number {
    return this.byRun.size;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
