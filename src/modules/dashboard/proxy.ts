// The /i/:instanceId/* reverse proxy: the dashboard page reaches an instance's API (and its event
// stream) through the manager's origin. The manager presents the instance's token; the caller's own
// credentials (the manager's token, cookies) never reach the instance.
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../core/errors.ts';
import { authHeaders, type Target } from './instance-client.ts';

export const PROXY_PREFIX = '/i/';

/**
 * The path and query to request on the instance, from the manager's raw request URL, or a 400:
 * dot segments, backslashes and encoded separators or dots are refused rather than normalized, so
 * what the instance sees is exactly what was checked. Pure.
 */
export function proxiedPath(rawUrl: string, instanceId: string): string {
  const prefix = `${PROXY_PREFIX}${instanceId}`;
  if (!rawUrl.startsWith(prefix)) throw badRequest('PROXY_PATH_REFUSED', 'Proxied paths look like /i/<instanceId>/<path>.');
  const rest = rawUrl.slice(prefix.length) || '/';
  if (!rest.startsWith('/')) throw badRequest('PROXY_PATH_REFUSED', 'Proxied paths look like /i/<instanceId>/<path>.');
  const q = rest.indexOf('?');
  const path = q === -1 ? rest : rest.slice(0, q);
  if (path.includes('\\') || /%(2f|5c|2e|00)/i.test(path) || path.split('/').some((seg) => seg === '..' || seg === '.')) {
    throw badRequest('PROXY_PATH_REFUSED', 'The proxied path has a dot segment, a backslash or an encoded separator; give the plain path.');
  }
  return rest;
}

/** Headers that describe this hop, or carry the caller's credentials: never forwarded. */
const DROPPED = new Set(['host', 'authorization', 'cookie', 'origin', 'referer', 'connection', 'keep-alive', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Forwards one request (streaming both ways, SSE included) to the instance. */
export function forward(target: Target, path: string, req: IncomingMessage, res: ServerResponse, onError: (err: Error) => void): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
  Object.assign(headers, authHeaders(target.token));
  const upstream = http.request(new URL(path, target.url), { method: req.method, headers, agent: false }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', onError);
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}
