// The push subscriptions and the permission notifications' decision tokens, in SQLite (migration 014).
// A token is kept as its SHA-256 only; using one is a single conditional UPDATE, so it decides once.
import { createHash } from 'node:crypto';
import type { Db } from '../../store/db.ts';
import type { PermissionDecision } from '../../protocol/permissions.ts';
import type { PushSubscriptionInfo } from '../../protocol/push.ts';

/** A subscription with what sending needs (its keys stay in the server). */
export interface StoredSubscription extends PushSubscriptionInfo {
  keys: { p256dh: string; auth: string };
}

interface SubscriptionRow {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  label: string;
  created_at: number;
  last_sent_at: number | null;
  last_error: string | null;
}

export interface TokenRow {
  request_id: string;
  decision: PermissionDecision;
  subscription_id: string;
  expires_at: number;
  used_at: number | null;
}

const toSubscription = (r: SubscriptionRow): StoredSubscription => ({
  id: r.id,
  endpoint: r.endpoint,
  service: new URL(r.endpoint).origin,
  label: r.label,
  createdAt: r.created_at,
  ...(r.last_sent_at !== null ? { lastSentAt: r.last_sent_at } : {}),
  ...(r.last_error !== null ? { lastError: r.last_error } : {}),
  keys: { p256dh: r.p256dh, auth: r.auth },
});

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');

export class PushRepo {
  constructor(private readonly db: Db) {}

  /** Adds a subscription, or renews the keys of the one with the same endpoint (keeping its id). */
  upsert(id: string, endpoint: string, keys: { p256dh: string; auth: string }, label: string, at: number): StoredSubscription {
    const existing = this.db.prepare('SELECT id FROM push_subscriptions WHERE endpoint = ?').get(endpoint) as { id: string } | undefined;
    if (existing) {
      this.db.prepare('UPDATE push_subscriptions SET p256dh = ?, auth = ?, label = ?, last_error = NULL WHERE id = ?').run(keys.p256dh, keys.auth, label, existing.id);
      return this.get(existing.id)!;
    }
    this.db.prepare('INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, label, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, endpoint, keys.p256dh, keys.auth, label, at);
    return this.get(id)!;
  }

  get(id: string): StoredSubscription | undefined {
    const row = this.db.prepare('SELECT * FROM push_subscriptions WHERE id = ?').get(id) as SubscriptionRow | undefined;
    return row && toSubscription(row);
  }

  list(): StoredSubscription[] {
    return (this.db.prepare('SELECT * FROM push_subscriptions ORDER BY created_at, id').all() as SubscriptionRow[]).map(toSubscription);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;
  }

  /** Removes a subscription and, with it, the decision tokens its device was given. */
  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  sent(id: string, at: number): void {
    this.db.prepare('UPDATE push_subscriptions SET last_sent_at = ?, last_error = NULL WHERE id = ?').run(at, id);
  }

  failed(id: string, error: string): void {
    this.db.prepare('UPDATE push_subscriptions SET last_error = ? WHERE id = ?').run(error.slice(0, 500), id);
  }

  addToken(token: string, requestId: string, decision: PermissionDecision, subscriptionId: string, expiresAt: number): void {
    this.db.prepare('INSERT INTO push_decision_tokens (token_hash, request_id, decision, subscription_id, expires_at) VALUES (?, ?, ?, ?, ?)').run(tokenHash(token), requestId, decision, subscriptionId, expiresAt);
  }

  token(token: string): TokenRow | undefined {
    return this.db.prepare('SELECT request_id, decision, subscription_id, expires_at, used_at FROM push_decision_tokens WHERE token_hash = ?').get(tokenHash(token)) as TokenRow | undefined;
  }

  /** Marks the token used; false when it was used already (the first use wins). */
  use(token: string, at: number): boolean {
    return this.db.prepare('UPDATE push_decision_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL').run(at, tokenHash(token)).changes > 0;
  }

  /** Forgets tokens that expired before `before`: they are refused either way. */
  dropExpired(before: number): void {
    this.db.prepare('DELETE FROM push_decision_tokens WHERE expires_at < ?').run(before);
  }
}
