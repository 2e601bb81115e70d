// WebAiApi over HTTP: the core server reaches the driver on the browser server this way (through the
// browser client, which starts that server on first use), and `svc web-ai …` reaches the core server.
// Answers keep their status and error code from one hop to the next.
import { AppError, isErrorCode } from '../../../core/errors.ts';
import { DEFAULT_ANSWER_TIMEOUT_MS } from './limits.ts';
import type { WebAiApi } from './types.ts';

/** One JSON request to a server; an error answer rejects with its AppError. */
export type Transport = <T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number) => Promise<T>;

const BASE = '/api/browser/web-ai';
/** On top of any wait the request asks for: opening the site, the page getting ready, sending. */
const MARGIN_MS = 600_000;

export function webAiClient(request: Transport): WebAiApi {
  const qs = (o: Record<string, string | number | undefined>) =>
    new URLSearchParams(Object.entries(o).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString();
  return {
    send: (body) => request('POST', `${BASE}/send`, body, MARGIN_MS),
    poll: (q) => request('GET', `${BASE}/poll?${qs(q)}`, undefined, (q.timeout ?? 0) + MARGIN_MS),
    query: (body) => request('POST', `${BASE}/query`, body, (body.timeout ?? DEFAULT_ANSWER_TIMEOUT_MS) + MARGIN_MS),
    code: (body) => request('POST', `${BASE}/code`, body, (body.timeout ?? DEFAULT_ANSWER_TIMEOUT_MS) + MARGIN_MS),
    extract: (body) => request('POST', `${BASE}/code-extract`, body, MARGIN_MS),
    stop: (body) => request('POST', `${BASE}/stop`, body, MARGIN_MS),
    status: (vendor) => request('GET', `${BASE}/status?${qs({ vendor })}`, undefined, MARGIN_MS),
    sessions: () => request('GET', `${BASE}/sessions`),
    profiles: () => request('GET', `${BASE}/profiles`),
  };
}

/**
 * A transport to a running svc server at `baseUrl` with an optional bearer token. node:http rather than
 * fetch: fetch gives up on an answer that takes more than five minutes, and answers here may.
 */
export function httpTransport(baseUrl: string, token?: string): Transport {
  const base = new URL(baseUrl);
  return async <T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = 60_000) => {
    const url = new URL(path, base);
    // node:https (and with it node:tls) loads for an https server, on its first request
    const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    return new Promise<T>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        url,
        {
          method,
          headers: {
            accept: 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: ({ error?: unknown; message?: string } & Record<string, unknown>) | null = null;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              // not JSON: reported below by status
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300 && parsed !== null) return resolve(parsed as T);
            const { error, message, ...details } = parsed ?? {};
            reject(new AppError(status || 502, isErrorCode(error) ? error : 'BAD_REQUEST', message ?? `${baseUrl} answered ${status} to ${method} ${path}.`, details));
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${baseUrl} did not answer ${method} ${path} within ${timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ECONNREFUSED' ? new Error(`cannot reach ${baseUrl} (is the server running? start it with \`svc serve\`)`) : err),
      );
      req.end(payload);
    });
  };
}
