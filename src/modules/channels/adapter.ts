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

/**
 * The chat service refused the bot's credentials (a wrong or revoked token): trying again will not help
 * until the token changes, so the service does not retry on its own. The message says what to do.
 */
export class ChannelRefused extends Error {}

export interface ChannelAdapter {
  readonly name: ChannelName;
  /** The longest message the channel takes. */
  readonly maxLength: number;
  /**
   * Connects and starts receiving; resolves with the bot's name once connected. `onError` hears what went
   * wrong later; `fatal` when the connection is gone for good (polling ended, the session was invalidated).
   * Fails at the first error rather than retrying by itself (the service retries, with the reason shown),
   * with ChannelRefused when the token was refused. When `signal` aborts (too slow, cancelled), the
   * requests under way are cut and the attempt fails.
   */
  start(config: ChannelConfig, onMessage: (message: InboundMessage) => void, onError: (err: Error, fatal: boolean) => void, signal: AbortSignal): Promise<{ botName: string }>;
  /** Disconnects, cutting the requests still under way (a chat service that stopped answering must not hold it up). */
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
