import type { Migration } from './migration.ts';

// Messages, chat sessions, settings, and the FTS5 index over message content.
// Message ids are INTEGER AUTOINCREMENT: never reused, strictly increasing, so they double as the
// paging cursor of GET /api/messages. Roles are constrained in the schema itself.
export const m001Core: Migration = {
  version: 1,
  name: 'core: chat sessions, messages (+FTS5), settings',
  up(db) {
    db.exec(`
      CREATE TABLE chat_sessions (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        active      INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      -- at most one active session, enforced by the database rather than by convention
      CREATE UNIQUE INDEX chat_sessions_one_active ON chat_sessions(active) WHERE active = 1;

      CREATE TABLE messages (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
        content     TEXT NOT NULL,
        meta        TEXT,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX messages_session_id ON messages(session_id, id);

      CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
      END;

      CREATE TABLE settings (
        section     TEXT PRIMARY KEY,
        value       TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
    `);
  },
};
