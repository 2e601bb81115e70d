// The executive agent's tables (src/modules/executive), the same in the manager's database and in an
// instance's: its transcript, the watches on dispatched requests, the completions they found, the
// confirmations a human gave for lifecycle actions, and its own audit of every tool call and decision.
import type Database from 'better-sqlite3';

export function createExecutiveTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE ceo_transcript (
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      at          INTEGER NOT NULL,
      role        TEXT NOT NULL CHECK (role IN ('user', 'executive', 'instance', 'system')),
      text        TEXT NOT NULL,
      instance_id TEXT,
      untrusted   INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE ceo_watches (
      id          TEXT PRIMARY KEY,
      instance_id TEXT NOT NULL,
      request_id  TEXT UNIQUE,
      reason      TEXT NOT NULL,
      status      TEXT NOT NULL CHECK (status IN ('active', 'completed', 'removed')),
      created_at  INTEGER NOT NULL,
      ended_at    INTEGER
    );
    CREATE INDEX ceo_watches_active ON ceo_watches(status, instance_id, created_at);
    CREATE TABLE ceo_completions (
      key         TEXT PRIMARY KEY,
      watch_id    TEXT NOT NULL UNIQUE REFERENCES ceo_watches(id),
      instance_id TEXT NOT NULL,
      request_id  TEXT,
      run_status  TEXT NOT NULL,
      text        TEXT NOT NULL,
      message_id  INTEGER,
      status      TEXT NOT NULL CHECK (status IN ('pending', 'acknowledged', 'dismissed', 'continued')),
      detected_at INTEGER NOT NULL
    );
    CREATE INDEX ceo_completions_status ON ceo_completions(status, detected_at);
    CREATE TABLE ceo_confirmations (
      id          TEXT PRIMARY KEY,
      action      TEXT NOT NULL,
      args_hash   TEXT NOT NULL,
      args        TEXT NOT NULL CHECK (json_valid(args)),
      status      TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'consumed', 'cancelled')),
      created_at  INTEGER NOT NULL,
      expires_at  INTEGER NOT NULL
    );
    CREATE TABLE ceo_audit (
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      at          INTEGER NOT NULL,
      kind        TEXT NOT NULL,
      action      TEXT NOT NULL,
      ok          INTEGER NOT NULL,
      instance_id TEXT,
      message     TEXT NOT NULL,
      meta        TEXT CHECK (meta IS NULL OR json_valid(meta))
    );
    CREATE INDEX ceo_audit_kind ON ceo_audit(kind, id);
    CREATE TABLE ceo_kv (
      key         TEXT PRIMARY KEY,
      value       TEXT NOT NULL CHECK (json_valid(value))
    );
  `);
}
