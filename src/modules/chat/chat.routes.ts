// Messages and sessions: paged history, counts, full-text search, chat sessions.
import { z } from 'zod';
import type { RouteModule } from './index.ts';
import { parseInput } from '../validate.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;
const messageId = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const sessionRef = z.string().min(1).max(100);

const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE),
  before: messageId.optional(),
  after: messageId.optional(),
  sessionId: sessionRef.optional(),
}).refine((q) => q.before === undefined || q.after === undefined, {
  message: 'use either before or after, not both',
  path: ['before'],
});

const searchQuery = z.strictObject({
  q: z.string().trim().min(1, 'a search text is required').max(500),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  sessionId: z.union([sessionRef, z.literal('all')]).optional(),
});

const sessionBody = z.strictObject({
  title: z.string().max(200).optional(),
  activate: z.boolean().default(true),
});

export const messageRoutes: RouteModule = (app, ctx) => {
  const sessionIdOrActive = (id: string | undefined) =>
    id === undefined ? ctx.chat.activeSession().id : ctx.chat.requireSession(id).id;

  app.get('/api/messages', async (request) => {
    const query = parseInput(pageQuery, request.query, 'query');
    const sessionId = sessionIdOrActive(query.sessionId);
    const page = ctx.chat.messages.page(sessionId, query);
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
  });

  app.get('/api/messages/count', async (request) => {
    const query = parseInput(z.strictObject({ sessionId: z.union([sessionRef, z.literal('all')]).optional() }), request.query, 'query');
    if (query.sessionId === 'all') return { sessionId: 'all', count: ctx.chat.messages.count() };
    const sessionId = sessionIdOrActive(query.sessionId);
    return { sessionId, count: ctx.chat.messages.count(sessionId) };
  });

  app.get('/api/messages/search', async (request) => {
    const query = parseInput(searchQuery, request.query, 'query');
    const sessionId = query.sessionId === 'all' || query.sessionId === undefined ? undefined : ctx.chat.requireSession(query.sessionId).id;
    return { query: query.q, results: ctx.chat.messages.search(query.q, { limit: query.limit, sessionId }) };
  });

  app.get('/api/chat-sessions', async () => {
    const sessions = ctx.chat.sessions.list();
    return { activeId: ctx.chat.activeSession().id, sessions };
  });

  app.post('/api/chat-sessions', async (request, reply) => {
    const body = parseInput(sessionBody, request.body, 'body');
    const session = ctx.chat.createSession(body.title, body.activate);
    void reply.status(201);
    return { session };
  });

  app.patch('/api/chat-sessions/:id', async (request) => {
    const { id } = parseInput(z.strictObject({ id: sessionRef }), request.params, 'params');
    const { title } = parseInput(z.strictObject({ title: z.string().trim().min(1, 'the title is empty').max(200) }), request.body, 'body');
    return { session: ctx.chat.renameSession(id, title) };
  });

  app.delete('/api/chat-sessions/:id', async (request) => {
    const { id } = parseInput(z.strictObject({ id: sessionRef }), request.params, 'params');
    const active = ctx.agent.deleteSession(id);
    return { deleted: id, activeId: active.id };
  });

  app.post('/api/chat-sessions/:id/switch', async (request) => {
    const { id } = parseInput(z.strictObject({ id: sessionRef }), request.params, 'params');
    return { session: ctx.chat.switchSession(id) };
  });
};
