// Messages and sessions: paged history, counts, full-text search, chat sessions.
import { z } from 'zod';
import { routeGroup, noBody, route } from '../../http/routes.ts';
import { ChatSessionSchema, MessagePageSchema, SearchHitSchema } from '../../protocol/chat.ts';
import type { ChatService } from './chat.service.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;
const messageId = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const sessionRef = z.string().min(1).max(100);
const sessionParams = z.strictObject({ id: sessionRef });

const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
  before: messageId.optional(),
  after: messageId.optional(),
  sessionId: sessionRef.optional().describe('default: the active session'),
}).refine((q) => q.before === undefined || q.after === undefined, {
  message: 'use either before or after, not both',
  path: ['before'],
});

const searchQuery = z.strictObject({
  q: z.string().trim().min(1, 'a search text is required').max(500),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  sessionId: z.union([sessionRef, z.literal('all')]).optional().describe('one session, or all (the default)'),
});

const sessionBody = z.strictObject({
  title: z.string().max(200).optional(),
  activate: z.boolean().default(true),
});

const sessionAnswer = z.object({ session: ChatSessionSchema });

export interface ChatRouteDeps {
  chat: ChatService;
}

export const chatRoutes = routeGroup('chat', ({ chat }: ChatRouteDeps) => {
  const sessionIdOrActive = (id: string | undefined) => (id === undefined ? chat.activeSession().id : chat.requireSession(id).id);

  return [
    route({
      method: 'GET',
      url: '/api/messages',
      errors: [404],
      summary: 'A page of a session\'s messages, oldest first: the newest page, or the page before/after a message id.',
      query: pageQuery,
      response: MessagePageSchema,
      handler: ({ query }) => {
        const sessionId = sessionIdOrActive(query.sessionId);
        const page = chat.messages.page(sessionId, query);
        const first = page.messages[0];
        const last = page.messages.at(-1);
        return {
          sessionId,
          messages: page.messages,
          hasMore: page.hasMore,
          // cursors for the next request in each direction
          before: first?.id ?? query.before ?? null,
          after: last?.id ?? query.after ?? null,
        };
      },
    }),
    route({
      method: 'GET',
      url: '/api/messages/count',
      errors: [404],
      summary: 'How many messages a session (or all sessions) holds.',
      query: z.strictObject({ sessionId: z.union([sessionRef, z.literal('all')]).optional() }),
      response: z.object({ sessionId: z.string(), count: z.number().int() }),
      handler: ({ query }) => {
        if (query.sessionId === 'all') return { sessionId: 'all', count: chat.messages.count() };
        const sessionId = sessionIdOrActive(query.sessionId);
        return { sessionId, count: chat.messages.count(sessionId) };
      },
    }),
    route({
      method: 'GET',
      url: '/api/messages/search',
      errors: [404],
      summary: 'Full-text search over messages (FTS5, bm25 among the most recent matches), with highlighted snippets.',
      query: searchQuery,
      response: z.object({ query: z.string(), results: z.array(SearchHitSchema) }),
      handler: ({ query }) => {
        const sessionId = query.sessionId === 'all' || query.sessionId === undefined ? undefined : chat.requireSession(query.sessionId).id;
        return { query: query.q, results: chat.messages.search(query.q, { limit: query.limit, sessionId }) };
      },
    }),
    route({
      method: 'GET',
      url: '/api/chat-sessions',
      summary: 'The chat sessions, most recently used first, and which one is active.',
      response: z.object({ activeId: z.string(), sessions: z.array(ChatSessionSchema) }),
      handler: () => ({ activeId: chat.activeSession().id, sessions: chat.sessions.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/chat-sessions',
      summary: 'Creates a chat session (and makes it active unless `activate` is false).',
      body: sessionBody,
      status: 201,
      response: sessionAnswer,
      handler: ({ body }) => ({ session: chat.createSession(body.title, body.activate) }),
    }),
    route({
      method: 'PATCH',
      url: '/api/chat-sessions/:id',
      summary: 'Renames a chat session.',
      params: sessionParams,
      body: z.strictObject({ title: z.string().trim().min(1, 'the title is empty').max(200) }),
      response: sessionAnswer,
      handler: ({ params, body }) => ({ session: chat.renameSession(params.id, body.title) }),
    }),
    route({
      method: 'DELETE',
      url: '/api/chat-sessions/:id',
      summary: 'Deletes a chat session with its messages (its run is stopped; its traces are kept).',
      params: sessionParams,
      response: z.object({ deleted: z.string(), activeId: z.string() }),
      handler: ({ params }) => ({ deleted: params.id, activeId: chat.deleteSession(params.id).id }),
    }),
    route({
      method: 'POST',
      url: '/api/chat-sessions/:id/switch',
      summary: 'Makes a chat session the active one.',
      params: sessionParams,
      body: noBody,
      response: sessionAnswer,
      handler: ({ params }) => ({ session: chat.switchSession(params.id) }),
    }),
  ];
});
