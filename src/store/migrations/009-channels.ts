import type { Migration } from './migration.ts';

// Chat channels (src/modules/channels): which chat session each chat (or thread) of a channel talks in.
// `chat_key` is the chat id, or `<chat id>:<thread id>` for a topic or thread.
export const m009Channels: Migration = {
  version: 9,
  name: 'channels: a chat session per chat',
  up(db) {
    db.exec(`
      CREATE TABLE channel_sessions (
        channel     TEXT NOT NULL,
        chat_key    TEXT NOT NULL,
        session_id  TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
        updated_at  INTEGER NOT NULL,
        PRIMARY KEY (channel, chat_key)
      );
    `);
  },
};
