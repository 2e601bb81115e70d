// The push module's tables (src/modules/push), the same in an instance's database and in the manager's: see
// 014-push.ts.
import type Database from 'better-sqlite3';

export function createPushTables(db: Database.Database): void {
  db.exec(`
      CREATE TABLE push_subscriptions (
        id            TEXT PRIMARY KEY,
        endpoint      TEXT NOT NULL UNIQUE,
        p256dh        TEXT NOT NULL,
        auth          TEXT NOT NULL,
        label         TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        last_sent_at  INTEGER,
        last_error    TEXT
      );
      CREATE TABLE push_decision_tokens (
        token_hash       TEXT PRIMARY KEY,
        request_id       TEXT NOT NULL,
        decision         TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
        subscription_id  TEXT NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
        expires_at       INTEGER NOT NULL,
        used_at          INTEGER
      );
      CREATE INDEX push_decision_tokens_expiry ON push_decision_tokens (expires_at);
      CREATE INDEX push_decision_tokens_subscription ON push_decision_tokens (subscription_id);
    `);
}
