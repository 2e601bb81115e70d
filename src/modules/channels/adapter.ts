// What a chat channel is to the rest of svc: one interface that the Telegram (grammY) and Discord
// (discord.js) adapters implement, and the shape of a message they receive. Adapters only translate;
// the allowlist, sessions, runs and retries live in the channel service.

import type { CHANNELS } from '../../protocol/channels.ts';

export type ChannelName = (typeof CHANNELS)[number];
export type FileKind = 'photo' | 'document' | 'voice';

export interface InboundFile {
  kind: FileKind;
  name: string;
  mime: string;
  size?: number;
  download(): Promise<Buffer>;
}

export interface InboundMessage {
  chatId: string;
  /** A forum topic (Telegram) or a thread (Discord, whose `chatId` is then the parent channel): its own session. */
  threadId?: string;
  group: boolean;
  /** The bot was mentioned or replied to (the mention is stripped from `text`). */
  addressed: boolean;
  senderId: string;
  senderName: string;
  chatTitle: string;
  text: string;
  files: InboundFile[];
}

export interface ChannelConfig {
  token: string;
  apiBaseUrl: string;
}

export interface SendTarget {
  chatId: string;
  threadId?: string;
}

/** A send the channel refused for flooding: try again after this long. */
export class RateLimited extends Error {
  constructor(readonly retryAfterMs: number, message: string) {
    super(message);
  }
}

export interface ChannelAdapter {
  readonly name: ChannelName;
  /** The longest message the channel takes. */
  readonly maxLength: number;
  /**
   * Connects and starts receiving; resolves with the bot's name once connected. `onError` hears what went
   * wrong later; `fatal` when the connection is gone for good (polling ended, the session was invalidated).
   */
  start(config: ChannelConfig, onMessage: (message: InboundMessage) => void, onError: (err: Error, fatal: boolean) => void): Promise<{ botName: string }>;
  stop(): Promise<void>;
  /** Markdown as the channel shows it, cut under its limit. */
  render(markdown: string): { text: string; html: boolean }[];
  sendText(target: SendTarget, piece: { text: string; html: boolean }): Promise<string>;
  sendFile(target: SendTarget, kind: FileKind, path: string, caption?: string): Promise<string>;
  /** Replaces the text of a message the bot sent (plain text). */
  editText(target: SendTarget, messageId: string, text: string): Promise<void>;
  deleteMessage(target: SendTarget, messageId: string): Promise<void>;
  typing(target: SendTarget): Promise<void>;
}
