// A small SSE client over node:http that keeps every field it reads, so tests can check the wire
// format itself (id lines, no `event:` field, comment pings) and not only the parsed data.
import http from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data: any;
  raw: string;
  /** When it was read (Date.now()), for latencies. */
  receivedAt: number;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  comments: string[];
  /** Body text, for non-200 answers. */
  body: string;
  /** Everything received on a 200 stream, as sent. */
  raw: string;
  /** Resolves once `count` messages (in total) have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  waitForComment(timeoutMs?: number): Promise<string>;
  close(): void;
  closed: Promise<void>;
}

export interface SseOptions {
  lastEventId?: string;
  headers?: Record<string, string>;
  localAddress?: string;
  agent?: http.Agent;
}

export function openSse(url: string, options: SseOptions = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    const request = http.get(url, { headers, localAddress: options.localAddress, agent: options.agent ?? false }, (response) => {
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let body = '';
      let raw = '';
      const notify = () => waiters.forEach((w) => w());
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (response.statusCode !== 200) {
          body += chunk;
          return;
        }
        buffer += chunk;
        raw += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: Partial<SseMessage> & { dataLines: string[] } = { dataLines: [], raw: block };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) message.id = line.slice(4);
            else if (line.startsWith('event:')) message.event = line.slice(6).trim();
            else if (line.startsWith('data: ')) message.dataLines.push(line.slice(6));
          }
          if (message.dataLines.length) {
            messages.push({ id: message.id, event: message.event, raw: block, data: JSON.parse(message.dataLines.join('\n')), receivedAt: Date.now() });
          }
        }
        notify();
      });
      const closed = new Promise<void>((done) => response.on('close', () => done()));
      const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
        new Promise<T>((ok, fail) => {
          const attempt = () => {
            const value = check();
            if (value !== undefined) {
              waiters.delete(attempt);
              clearTimeout(timer);
              ok(value);
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(attempt);
            fail(new Error(`timed out waiting for ${what}; got ${messages.length} messages`));
          }, timeoutMs);
          waiters.add(attempt);
          attempt();
        });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        messages,
        comments,
        get body() {
          return body;
        },
        get raw() {
          return raw;
        },
        waitFor: (count, timeoutMs = 5000) =>
          waitUntil(() => (messages.length >= count ? messages.slice(0, count) : undefined), timeoutMs, `${count} messages`),
        waitForComment: (timeoutMs = 5000) => waitUntil(() => comments[0], timeoutMs, 'a comment'),
        close: () => request.destroy(),
        closed,
      });
    });
    request.on('error', reject);
  });
}

/** Resolves when the body of a non-200 answer is complete. */
export async function readBody(connection: SseConnection): Promise<string> {
  await connection.closed;
  return connection.body;
}
