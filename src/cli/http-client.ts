// The CLI's HTTP client. Node's fetch loads undici on first use, which costs a client command about
// 40 ms (half again a bare `node -e ''`); node:http loads in a few, so the commands that ask a
// running server (`svc status`, `svc token`, `svc chat` …) use it instead, and those that want one whole
// answer from a plain-http server a smaller client still (src/cli/http1-exchange.ts).
import type { IncomingMessage } from 'node:http';
import type { RequestOptions, TextResponse } from './http-types.ts';

export type { RequestOptions, TextResponse };

/** Sends one request; resolves with the response once its head arrived (the body still streams). */
export async function request(url: string, options: RequestOptions = {}): Promise<IncomingMessage> {
  const target = new URL(url);
  const { request: send } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  // TLS code loads only for a pinned https server
  const pinned = options.pin ? (await import('../core/tls.ts')).connectionOptions(target, options.pin) : {};
  return new Promise((resolve, reject) => {
    const req = send(target, { method: options.method ?? 'GET', headers: options.headers, ...pinned }, resolve);
    req.on('error', reject);
    const { timeoutMs } = options;
    if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.end(options.body);
  });
}

/** Sends one request and reads the whole answer as text: over node:net to a plain-http server, which starts sooner. */
export async function requestText(url: string, options: RequestOptions = {}): Promise<TextResponse> {
  const target = new URL(url);
  if (target.protocol === 'http:') return (await import('./http1-exchange.ts')).exchange(target, options);
  return textOf(await request(url, options));
}

/** Reads the rest of a response as text. */
export async function textOf(response: IncomingMessage): Promise<TextResponse> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const status = response.statusCode ?? 0;
  return { status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8') };
}

/** The answer's JSON body, or {} when it has none (an error page, an empty body). */
export function jsonOf(response: TextResponse): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(response.text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
