// /api/dashboard/board/*: the Kanban's items: list, create, create from a message, update or move, delete.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { BOARD_LANES, BoardItemSchema } from '../../protocol/dashboard.ts';
import type { BoardService } from './board.service.ts';

const itemFields = {
  title: z.string().trim().min(1).max(500),
  detail: z.string().max(20_000).optional(),
  lane: z.enum(BOARD_LANES).optional(),
  instanceId: z.string().max(64).nullable().optional(),
  sessionId: z.string().max(64).nullable().optional(),
  messageId: z.number().int().positive().nullable().optional(),
};
const idParams = z.strictObject({ id: z.string().min(1).max(64) });

export const boardRoutes: FastifyPluginAsync<{ board: BoardService }> = async (app, { board }) => {
  defineRoutes(app, 'dashboard-board', [
    route({
      method: 'GET',
      url: '/api/dashboard/board/items',
      summary: 'Every board item, by lane (backlog, ready, active, review, done) and position.',
      response: z.object({ items: z.array(BoardItemSchema) }),
      handler: () => ({ items: board.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/board/items',
      errors: [404],
      summary: 'Creates a board item (lane default backlog, at the end of its lane).',
      body: z.strictObject(itemFields),
      status: 201,
      response: BoardItemSchema,
      handler: ({ body }) => board.create(body),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/board/items/from-message',
      errors: [404, 502],
      summary: 'Creates a board item from an instance\'s message: its first line is the title, its text the detail, linked to the message.',
      body: z.strictObject({
        instanceId: z.string().min(1).max(64),
        messageId: z.number().int().positive(),
        sessionId: z.string().max(64).optional(),
        lane: z.enum(BOARD_LANES).optional(),
        title: z.string().trim().min(1).max(500).optional(),
      }),
      status: 201,
      response: BoardItemSchema,
      handler: ({ body }) => board.fromMessage(body),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/board/items/:id',
      summary: 'One board item.',
      params: idParams,
      response: BoardItemSchema,
      handler: ({ params }) => board.get(params.id),
    }),
    route({
      method: 'PATCH',
      url: '/api/dashboard/board/items/:id',
      summary: 'Updates a board item; a new lane moves it (to the end of that lane unless a position is given).',
      params: idParams,
      body: z.strictObject({ ...itemFields, title: itemFields.title.optional(), position: z.number().optional() }),
      response: BoardItemSchema,
      handler: ({ params, body }) => board.update(params.id, body),
    }),
    route({
      method: 'DELETE',
      url: '/api/dashboard/board/items/:id',
      summary: 'Deletes a board item.',
      params: idParams,
      response: z.object({ deleted: z.string() }),
      handler: ({ params }) => {
        board.remove(params.id);
        return { deleted: params.id };
      },
    }),
  ]);
};
