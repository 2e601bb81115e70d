// A server-side reader of an instance's event stream (GET /api/events): one HTTP request, frames
// parsed as they arrive. Reconnecting and cursors are the bridge's business (bridge.ts).
import http from 'node:http';
import https from 'node:https';
import { authHeaders, connectionFor, type Frame, type Reader, type ReaderHandlers, type Target } from './instance-client.ts';

/** Splits SSE text into messages; comments (pings) and `retry:` lines are dropped. Pure. */
export function parseSseBlock(block: string): Frame | null {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  try {
    const parsed = JSON.parse(data.join('\n')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? { id, data: parsed as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}

export function openReader(target: Target, cursor: string | null, handlers: ReaderHandlers): Reader {
  let ended = false;
  const end = (reason: string, status?: number) => {
    if (ended) return;
    ended = true;
    handlers.onEnd(reason, status);
  };
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders(target.token) };
  if (cursor) headers['last-event-id'] = cursor;
  const url = new URL('/api/events', target.url);
  const client = url.protocol === 'https:' ? https : http;
  const request = client.get(url, { headers, ...connectionFor(target, url) }, (response) => {
    if (response.statusCode !== 200) {
      response.resume();
      end(`HTTP ${response.statusCode}`, response.statusCode);
      return;
    }
    handlers.onOpen();
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame = parseSseBlock(block);
        if (frame && !ended) handlers.onFrame(frame);
      }
    });
    response.on('end', () => end('stream ended'));
    response.on('error', (err) => end(err.message));
    response.on('close', () => end('stream closed'));
  });
  request.on('error', (err) => end(err.message));
  // The instance pings every 15 s: a silent minute means the connection is dead.
  request.setTimeout(60_000, () => request.destroy(new Error('no data for 60 s')));
  return {
    close() {
      ended = true;
      request.destroy();
    },
  };
}
