// The wire form of a public event, shared by SSE and the WebSocket fallback:
// {"eventId": "<stream>-<seq>", "topic": ..., "event": ..., "ts": ..., ...payload}
// (`eventId`, not `id`: the `message` event has a field `id` of its own, the message id.)
import type { BusEvent } from './bus.ts';

export interface WireFrame {
  seq: number;
  id: string;
  /** JSON text of the event: the WebSocket frame and the SSE `data:` line. */
  json: string;
  /** The complete SSE message (`id:` and `data:` lines and the blank line). */
  sse: string;
  /**
   * `json` as UTF-8 bytes, made by the first WebSocket client that sends the frame and shared by all
   * the others: a string would be encoded again for every client.
   */
  bytes?: Buffer;
}

export function encodeFrame(streamId: string, seq: number, body: Record<string, unknown>): WireFrame {
  const id = `${streamId}-${seq}`;
  const json = JSON.stringify({ eventId: id, ...body });
  return { seq, id, json, sse: `id: ${id}\ndata: ${json}\n\n` };
}

export const eventBody = (event: BusEvent): Record<string, unknown> => ({
  topic: event.topic,
  event: event.name,
  ts: event.ts,
  ...event.payload,
});

/** Parses an event id `<stream>-<seq>`; anything else is null. */
export function parseEventId(raw: string | undefined): { streamId: string; seq: number } | null {
  if (!raw) return null;
  const match = /^([A-Za-z0-9]+)-(\d{1,15})$/.exec(raw.trim());
  if (!match) return null;
  return { streamId: match[1]!, seq: Number(match[2]) };
}
