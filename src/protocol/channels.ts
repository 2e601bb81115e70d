// The wire shapes of the chat channels (GET /api/channels, POST /api/channel/send, pairing), shared by
// the server, `svc channel` and the web UI.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const CHANNELS = ['telegram', 'discord'] as const;
export const SEND_TYPES = ['text', 'photo', 'document', 'voice'] as const;
/**
 * What a channel's connection is doing. off: not enabled. connecting: an attempt is under way (at most
 * the connect bound, 10 s). connected. retrying: the last attempt failed (`lastError` says why) and the
 * next one is at `retryAt`. failed: no attempt is planned until the settings change or a restart (no
 * token, or the token was refused: `lastError` says what to fix).
 */
export const CHANNEL_STATUSES = ['off', 'connecting', 'connected', 'retrying', 'failed'] as const;

export const ChannelStateSchema = lazySchema(() => z.object({
  name: z.enum(CHANNELS),
  enabled: z.boolean(),
  /** A bot token is set (never the token itself). */
  configured: z.boolean(),
  connected: z.boolean(),
  status: z.enum(CHANNEL_STATUSES),
  botName: z.string().optional(),
  /** Why the channel is not connected (with when it tries again), or the last thing that went wrong. */
  lastError: z.string().optional(),
  /** When the next automatic connect attempt is due (status `retrying`). */
  retryAt: z.number().optional(),
  /**
   * A pairing code can be used now: only a connected bot receives the code sent from the chat, so
   * POST /api/channels/:name/pair refuses otherwise (503 CHANNEL_NOT_CONNECTED, saying why and what to do).
   */
  pairable: z.boolean(),
  allowlist: z.array(z.string()),
  /** A pairing code is waiting to be sent to the bot until this time. */
  pairingUntil: z.number().optional(),
  counts: z.object({
    /** Messages from allowed chats. */
    received: z.number().int(),
    /** Messages from chats not on the allowlist: never answered. */
    ignored: z.number().int(),
    /** Messages this server sent (answers and sends). */
    sent: z.number().int(),
    failed: z.number().int(),
  }),
}));
export type ChannelState = z.infer<typeof ChannelStateSchema>;

export const ChannelSendBodySchema = lazySchema(() => z.strictObject({
  channel: z.enum([...CHANNELS, 'active']).default('active'),
  type: z.enum(SEND_TYPES).default('text'),
  text: z.string().max(40_000).optional(),
  /** A file in the media directory or the working directory (relative paths from the working directory). */
  file: z.string().min(1).max(4096).optional(),
  caption: z.string().max(1024).optional(),
  /** A chat id on the channel's allowlist (`<chat>:<thread>` for a topic or thread); default the last chat that wrote. */
  target: z.string().trim().regex(/^-?\d{1,20}(:\d{1,20})?$/, 'a chat id, or <chat id>:<thread id>').optional(),
}));
export type ChannelSendBody = z.input<typeof ChannelSendBodySchema>;

export const ChannelSendResultSchema = lazySchema(() => z.object({
  ok: z.literal(true),
  channel: z.enum(CHANNELS),
  target: z.string(),
  type: z.enum(SEND_TYPES),
  /** The id of the (first) message sent; long texts go as several, all in messageIds. */
  messageId: z.string(),
  messageIds: z.array(z.string()),
}));
export type ChannelSendResult = z.infer<typeof ChannelSendResultSchema>;

export const PairingCodeSchema = lazySchema(() => z.object({
  channel: z.enum(CHANNELS),
  code: z.string(),
  expiresAt: z.number(),
  /** What to tell the user. */
  instructions: z.string(),
}));
