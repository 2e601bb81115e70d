// Which chat session a channel's chat (or thread) is bound to.
import type { Db } from '../../store/db.ts';
import type { ChannelName, SendTarget } from './adapter.ts';

/** A chat's key: its id, and its topic or thread after a colon (each has its own session). */
export const chatKeyOf = (chat: SendTarget) => (chat.threadId ? `${chat.chatId}:${chat.threadId}` : chat.chatId);

/** The chat a key names. */
export function targetOf(chatKey: string): SendTarget {
  const [chatId, threadId] = chatKey.split(':') as [string, string | undefined];
  return threadId ? { chatId, threadId } : { chatId };
}

export class ChannelSessionRepo {
  constructor(private readonly db: Db) {}

  get(channel: ChannelName, chatKey: string): string | undefined {
    const row = this.db.prepare('SELECT session_id FROM channel_sessions WHERE channel = ? AND chat_key = ?').get(channel, chatKey) as { session_id: string } | undefined;
    return row?.session_id;
  }

  bind(channel: ChannelName, chatKey: string, sessionId: string): void {
    this.db
      .prepare('INSERT INTO channel_sessions (channel, chat_key, session_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(channel, chat_key) DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at')
      .run(channel, chatKey, sessionId, Date.now());
  }

  /** The chat a session is bound to, if any (for forwarding and the agent's default target). */
  chatOf(sessionId: string): { channel: ChannelName; chatKey: string } | undefined {
    const row = this.db.prepare('SELECT channel, chat_key FROM channel_sessions WHERE session_id = ? ORDER BY updated_at DESC LIMIT 1').get(sessionId) as
      | { channel: ChannelName; chat_key: string }
      | undefined;
    return row && { channel: row.channel, chatKey: row.chat_key };
  }
}
