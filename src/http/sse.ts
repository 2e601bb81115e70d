// Server-sent events on the wire: the response headers, the `retry:` hint, and a sink that writes
// frames of an EventStream to one response. Shared by every server that serves an event stream in
// the core's format (the core's /api/events, the manager's).
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Sink } from '../events/stream.ts';

/**
 * A client that stops reading is cut off once this much of the live stream waits for it; it can
 * reconnect with its cursor (and is replayed, or told of the gap).
 */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Sent at the start of the stream: EventSource reconnects after 1 s instead of its default ~3 s. */
const RETRY_MS = 1000;

/**
 * Writes an event stream to one response at the pace its client reads: when the socket's buffer is
 * full, later chunks wait (in order) for it to drain. A replay, which may be the whole buffer of 1000
 * events and far more than MAX_QUEUED_BYTES, is sent the same way and does not count against the
 * limit: its frames are the stream's own, held anyway. Only live events that pile up count.
 */
export function sseSink(res: ServerResponse): Sink {
  const waiting: { chunk: string; live: boolean }[] = [];
  let liveBytes = 0;
  let blocked = false;
  const flush = () => {
    blocked = false;
    while (!blocked && waiting.length) {
      const next = waiting.shift()!;
      if (next.live) liveBytes -= next.chunk.length;
      blocked = !res.write(next.chunk);
    }
  };
  res.on('drain', flush);
  const write = (chunk: string, live = true) => {
    if (res.destroyed) return;
    if (!blocked && waiting.length === 0) {
      blocked = !res.write(chunk);
      return;
    }
    waiting.push({ chunk, live });
    if (!live) return;
    liveBytes += chunk.length;
    if (liveBytes > MAX_QUEUED_BYTES) {
      waiting.length = 0;
      res.destroy();
    }
  };
  return {
    send: (frame) => write(frame.sse),
    replay: (frames) => {
      for (const frame of frames) write(frame.sse, false);
    },
    ping: () => write(': ping\n\n'),
    position: (id) => write(`id: ${id}\n\n`),
  };
}

/** Takes the response over from Fastify and opens the event stream. */
export function openSse(reply: FastifyReply): ServerResponse {
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
  return res;
}

/** The replay cursor of a request: the `Last-Event-ID` header, else the `lastEventId` query parameter. */
export function cursorOf(headers: Record<string, unknown>, query: unknown): string | undefined {
  const header = headers['last-event-id'];
  if (typeof header === 'string' && header) return header;
  const fromQuery = (query as Record<string, unknown> | undefined)?.lastEventId;
  return typeof fromQuery === 'string' ? fromQuery : undefined;
}
