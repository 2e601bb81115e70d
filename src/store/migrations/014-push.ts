import type { Migration } from './migration.ts';

// Web Push (src/modules/push): the devices that turned notifications on, and the single-use decision
// tokens their permission notifications carried (only their SHA-256: a copy of the database decides
// nothing). A token belongs to one request, one decision and one device, and goes with the device.
export const m014Push: Migration = {
  version: 14,
  name: 'push: subscriptions and decision tokens',
  up(db) {
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
  },
};
