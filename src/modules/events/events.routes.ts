// The public event channel: SSE at /api/events, and the WebSocket fallback at /ws. Both carry the
// same frames from the same stream (src/events/stream.ts); only the transport differs.
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { unavailable } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { cursorOf, MAX_QUEUED_BYTES, openSse, sseSink } from '../../http/sse.ts';
import type { EventStream, Sink } from '../../events/stream.ts';
import type { Slots } from '../../events/slots.ts';
import { WireEventSchema } from '../../protocol/events.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export interface EventRouteDeps {
  stream: EventStream;
  listeners: { sse: Slots; ws: Slots };
}

// Query parameters of both streams; other parameters are ignored (EventSource URLs carry what they like).
const streamQuery = lazySchema(() => z.looseObject({
  lastEventId: z.string().optional().describe('Replay cursor, for clients that cannot send Last-Event-ID.'),
  token: z.string().optional().describe('The bearer token, for browsers that cannot send an Authorization header.'),
}));

export const eventRoutes: FastifyPluginAsync<EventRouteDeps> = async (app, { stream, listeners }) => {
  const openResponses = new Set<ServerResponse>();

  defineRoutes(app, 'events', [
    route({
      method: 'GET',
      url: '/api/events',
      access: 'token-or-query',
      summary: 'Every public event, live (SSE, data-only JSON frames with ids); replays from Last-Event-ID within the last 1000 events.',
      query: streamQuery,
      produces: 'sse',
      item: WireEventSchema,
      handler: ({ request, reply }) => {
        const release = listeners.sse.acquire();
        if (!release) {
          void reply.header('Retry-After', '5');
          throw unavailable('SSE_CAPACITY', `At most ${listeners.sse.capacity} event listeners may be connected; close another one and retry.`);
        }
        const res = openSse(reply);
        const sink = sseSink(res);
        openResponses.add(res);
        res.on('close', () => {
          stream.detach(sink);
          openResponses.delete(res);
          release();
        });
        stream.attach(sink, cursorOf(request.headers, request.query));
      },
    }),
    route({
      method: 'GET',
      url: '/ws',
      access: 'token-or-query',
      summary: 'WebSocket fallback for clients where /api/events never opens: the same JSON events, one per message.',
      query: streamQuery,
      websocket: (socket, request) => {
        const release = listeners.ws.acquire();
        if (!release) {
          socket.close(1013, 'WS_CAPACITY');
          return;
        }
        const sink: Sink = {
          send: (frame) => {
            socket.send((frame.bytes ??= Buffer.from(frame.json)), { binary: false });
            if (socket.bufferedAmount > MAX_QUEUED_BYTES) socket.terminate();
          },
          ping: () => socket.ping(),
        };
        socket.on('close', () => {
          stream.detach(sink);
          release();
        });
        // The channel is one-way; anything a client sends is ignored.
        stream.attach(sink, cursorOf(request.headers, request.query));
      },
    }),
  ]);

  // Long-lived streams would keep close() waiting: end them first.
  app.addHook('preClose', async () => {
    for (const res of openResponses) res.end();
  });
};
