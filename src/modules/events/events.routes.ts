// The public event channel: SSE at /api/events, and the WebSocket fallback at /ws. Both carry the
// same frames from the same stream (src/events/stream.ts); only the transport differs.
import type { ServerResponse } from 'node:http';
import type { RouteModule } from './index.ts';
import type { Sink } from '../../events/stream.ts';
import { unavailable } from '../errors.ts';

/** A client that stops reading is cut off once this much is queued for it; it can reconnect with its cursor. */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Sent at the start of the stream: EventSource reconnects after 1 s instead of its default ~3 s. */
const RETRY_MS = 1000;

function sseSink(res: ServerResponse): Sink {
  const write = (chunk: string) => {
    res.write(chunk);
    if (res.writableLength > MAX_QUEUED_BYTES) res.destroy();
  };
  return { send: (frame) => write(frame.sse), ping: () => write(': ping\n\n'), position: (id) => write(`id: ${id}\n\n`) };
}

function cursorOf(headers: Record<string, unknown>, query: unknown): string | undefined {
  const header = headers['last-event-id'];
  if (typeof header === 'string' && header) return header;
  const fromQuery = (query as Record<string, unknown> | undefined)?.lastEventId;
  return typeof fromQuery === 'string' ? fromQuery : undefined;
}

export const eventRoutes: RouteModule = (app, ctx) => {
  const openResponses = new Set<ServerResponse>();

  app.get('/api/events', async (request, reply) => {
    const release = ctx.listeners.sse.acquire();
    if (!release) {
      void reply.header('Retry-After', '5');
      throw unavailable('SSE_CAPACITY', `At most ${ctx.listeners.sse.capacity} event listeners may be connected; close another one and retry.`);
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
    });
    res.socket?.setNoDelay(true);
    res.write(`retry: ${RETRY_MS}\n\n`);
    const sink = sseSink(res);
    openResponses.add(res);
    res.on('close', () => {
      ctx.stream.detach(sink);
      openResponses.delete(res);
      release();
    });
    ctx.stream.attach(sink, cursorOf(request.headers, request.query));
  });

  app.get('/ws', { websocket: true }, (socket, request) => {
    const release = ctx.listeners.ws.acquire();
    if (!release) {
      socket.close(1013, 'WS_CAPACITY');
      return;
    }
    const sink: Sink = {
      send: (frame) => {
        socket.send(frame.json);
        if (socket.bufferedAmount > MAX_QUEUED_BYTES) socket.terminate();
      },
      ping: () => socket.ping(),
    };
    socket.on('close', () => {
      ctx.stream.detach(sink);
      release();
    });
    // The channel is one-way; anything a client sends is ignored.
    ctx.stream.attach(sink, cursorOf(request.headers, request.query));
  });

  // Long-lived streams would keep close() waiting: end them first.
  app.addHook('preClose', async () => {
    for (const res of openResponses) res.end();
  });
};
