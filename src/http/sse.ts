// Server-sent events on the wire: the response headers, the `retry:` hint, and a sink that writes
// frames of an EventStream to one response. Shared by every server that serves an event stream in
// the core's format (the core's /api/events, the manager's).
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Sink } from '../events/stream.ts';

/** A client that stops reading is cut off once this much is queued for it; it can reconnect with its cursor. */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Sent at the start of the stream: EventSource reconnects after 1 s instead of its default ~3 s. */
const RETRY_MS = 1000;

export function sseSink(res: ServerResponse): Sink {
  const write = (chunk: string) => {
    res.write(chunk);
    if (res.writableLength > MAX_QUEUED_BYTES) res.destroy();
  };
  return { send: (frame) => write(frame.sse), ping: () => write(': ping\n\n'), position: (id) => write(`id: ${id}\n\n`) };
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
