// What a chat channel is to the rest of svc: one interface that the Telegram (grammY) and Discord
// (discord.js) adapters implement, and the shape of a message they receive. Adapters only translate;
// the allowlist, sessions, runs and retries live in the channel service.

import type { CHANNELS } from '../../protocol/channels.ts';

export type ChannelName = (typeof CHANNELS)[number];
/** How a channel is named to people. */
export const CHANNEL_LABELS: Record<ChannelName, string> = { telegram: 'Telegram', discord: 'Discord' };
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

/** A button under a message the bot sends; a press hands `data` back (Telegram's callback_data, Discord's custom_id). */
export interface Button {
  label: string;
  data: string;
  /** Shown as the dangerous choice where the channel can (Discord's red button). */
  danger?: boolean;
}

/** Someone pressed a button under one of the bot's messages. */
export interface ButtonPress {
  data: string;
  /** The chat the message is in (a Discord thread's parent channel, as with messages) and its thread. */
  chatId: string;
  threadId?: string;
  senderId: string;
  /** How people know the presser: @username where there is one. */
  senderName: string;
  /**
   * Every press must be acknowledged (Telegram shows a spinner until then; Discord fails the interaction
   * after 3 s): with a notice only the presser sees, or silently when the message itself is about to change.
   */
  acknowledge(notice?: string): Promise<void>;
}

/** What an adapter hands the service: messages, and presses of the bot's buttons. */
export interface Receiver {
  message(message: InboundMessage): void;
  press(press: ButtonPress): void;
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
  start(config: ChannelConfig, receive: Receiver, onError: (err: Error, fatal: boolean) => void, signal: AbortSignal): Promise<{ botName: string }>;
  /** Disconnects, cutting the requests still under way (a chat service that stopped answering must not hold it up). */
  stop(): Promise<void>;
  /** Markdown as the channel shows it, cut under its limit. */
  render(markdown: string): { text: string; html: boolean }[];
  sendText(target: SendTarget, piece: { text: string; html: boolean }): Promise<string>;
  sendFile(target: SendTarget, kind: FileKind, path: string, caption?: string): Promise<string>;
  /** Sends a message with rows of buttons under it; presses come back through `receive.press`. */
  sendButtons(target: SendTarget, piece: { text: string; html: boolean }, rows: Button[][]): Promise<string>;
  /** Replaces the text of a message sent with buttons and takes the buttons away (what it asked is settled). */
  settle(target: SendTarget, messageId: string, piece: { text: string; html: boolean }): Promise<void>;
  /** Replaces the text of a message the bot sent (plain text). */
  editText(target: SendTarget, messageId: string, text: string): Promise<void>;
  deleteMessage(target: SendTarget, messageId: string): Promise<void>;
  typing(target: SendTarget): Promise<void>;
}
