// The chat resources on the wire: messages, chat sessions, pages and search hits. Shared by the
// server's routes (answer schemas), the event catalogue and the web UI (types).
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const MessageSchema = lazySchema(() => z.object({
  id: z.number().int(),
  sessionId: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  createdAt: z.number(),
  /** What the server knows about the message: the run that wrote it (traceId, provider, usage, …). */
  meta: z.record(z.string(), z.unknown()).optional(),
}));
export type Message = z.infer<typeof MessageSchema>;

export const ChatSessionSchema = lazySchema(() => z.object({
  id: z.string(),
  title: z.string(),
  active: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
}));
export type ChatSession = z.infer<typeof ChatSessionSchema>;

export const MessagePageSchema = lazySchema(() => z.object({
  sessionId: z.string(),
  messages: z.array(MessageSchema),
  /** More messages exist beyond this page in the direction of travel. */
  hasMore: z.boolean(),
  /** Cursors for the next request in each direction. */
  before: z.number().int().nullable(),
  after: z.number().int().nullable(),
}));
export type MessagePage = z.infer<typeof MessagePageSchema>;

export const SearchHitSchema = lazySchema(() => z.object({
  id: z.number().int(),
  sessionId: z.string(),
  role: z.enum(MESSAGE_ROLES),
  createdAt: z.number(),
  /** Matching excerpt, HTML-escaped, with matches wrapped in <mark>…</mark>. */
  snippet: z.string(),
  /** bm25 score (lower is better); results are ordered by it. */
  rank: z.number(),
}));
export type SearchHit = z.infer<typeof SearchHitSchema>;
