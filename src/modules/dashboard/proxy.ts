// The /i/:instanceId/* reverse proxy: the dashboard page reaches an instance's UI, API, event stream
// and WebSocket through the manager's origin. The manager presents the instance's token; the
// caller's own credentials (the manager's token, cookies) never reach the instance, and the
// instance's token never reaches the caller.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { WebSocket } from 'ws';
import { AppError, badRequest, forbidden } from '../../core/errors.ts';
import { authHeaders, connectionFor, reachError, type Target } from './instance-client.ts';

export const PROXY_PREFIX = '/i/';

/**
 * Instance paths never served through the proxy: the instance hands its token to loopback callers,
 * and the manager is one, so the proxy would hand it to anyone who may use the proxy.
 */
const WITHHELD = new Set(['/api/auth/token']);

/**
 * The path and query to request on the instance, from the manager's request URL, which is already
 * canonical (src/http/canonical-path.ts: no dot or empty segments, no encoded separators or letters,
 * so `/api/auth/token` has no other spelling): `/i/<id>/<rest>?<query>` → `/<rest>?<query>`. The
 * manager's `?token=` (an event stream's) is dropped; the rest of the query goes as it came. Pure.
 */
export function proxiedPath(canonicalUrl: string): string {
  const q = canonicalUrl.indexOf('?');
  const path = q === -1 ? canonicalUrl : canonicalUrl.slice(0, q);
  if (!path.startsWith(PROXY_PREFIX)) throw badRequest('PROXY_PATH_REFUSED', 'Proxied paths look like /i/<instanceId>/<path>.');
  const slash = path.indexOf('/', PROXY_PREFIX.length);
  const rest = slash === -1 ? '/' : path.slice(slash);
  if (WITHHELD.has(rest)) throw forbidden('PROXY_PATH_REFUSED', `${rest} is not served through the proxy: the instance's token stays with the manager.`);
  if (q === -1) return rest;
  const search = canonicalUrl.slice(q + 1).split('&').filter((pair) => keyOf(pair) !== 'token').join('&');
  return search ? `${rest}?${search}` : rest;
}

const keyOf = (pair: string): string => {
  const key = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
};

/**
 * Every answer an instance gives through the proxy is inert if a browser opens it as a page (an
 * instance's media, or a misbehaving instance's HTML): it never runs as the manager's origin.
 */
const INERT = { 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' };

/** Headers that describe this hop, or carry the caller's credentials: never forwarded. */
const DROPPED = new Set(['host', 'authorization', 'cookie', 'origin', 'referer', 'connection', 'keep-alive', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** What a WebSocket handshake adds on top (the ws client makes its own). */
const DROPPED_WS = new Set([...DROPPED, 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol']);

function forwardedHeaders(incoming: IncomingHttpHeaders, dropped: ReadonlySet<string>, token: string | null): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) if (value !== undefined && !dropped.has(name)) headers[name] = value;
  return Object.assign(headers, authHeaders(token));
}

/**
 * Where a request goes: the instance's host and port, with the checked path as it is (never
 * resolved as a URL, which would read `//host/…` as another host).
 */
function upstreamOf(target: Target): { client: typeof http | typeof https; host: string; port: string; protocol: string } {
  const u = new URL(target.url);
  return { client: u.protocol === 'https:' ? https : http, host: u.hostname, port: u.port, protocol: u.protocol };
}

/**
 * Forwards one request (streaming both ways, SSE included) to the instance. Whatever the instance
 * answers passes through with its status, even when it answered before taking the whole body (a
 * 413) and the rest of the body could not be written; `onError` is called only when no answer came.
 */
export function forward(target: Target, path: string, req: IncomingMessage, res: ServerResponse, onError: (err: Error) => void): void {
  const { client, host, port } = upstreamOf(target);
  let answered = false;
  const upstream = client.request({ host, port, path, method: req.method, headers: forwardedHeaders(req.headers, DROPPED, target.token), ...connectionFor(target) }, (answer) => {
    answered = true;
    // an instance's HSTS is about the instance's host: the caller gets the manager's own, if any
    const { 'strict-transport-security': _hsts, ...headers } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...headers, ...INERT });
    // an answer cut off half-way is cut off for the caller too, never passed on as complete
    pipeline(answer, res, () => undefined);
  });
  upstream.on('error', (err) => {
    // the rest of the caller's body goes nowhere now: read it, so the caller gets the answer
    req.unpipe(upstream);
    req.resume();
    if (!answered) onError(err);
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

/**
 * Opens the instance's side of a proxied WebSocket before the caller's handshake is answered, so a
 * refusal (the instance's status, or no answer) reaches the caller as an HTTP error, not a close.
 */
export function openUpstreamSocket(target: Target, path: string, req: IncomingMessage, timeoutMs = 10_000): Promise<WebSocket> {
  const { host, port, protocol } = upstreamOf(target);
  const url = `${protocol === 'https:' ? 'wss' : 'ws'}://${host.includes(':') ? `[${host}]` : host}${port ? `:${port}` : ''}${path}`;
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  return new Promise((resolve, reject) => {
    // ws passes the connection options on to node:http(s).request as they are
    const options = Object.assign({ headers: forwardedHeaders(req.headers, DROPPED_WS, target.token), handshakeTimeout: timeoutMs, followRedirects: false, perMessageDeflate: false }, connectionFor(target, url));
    const socket = new WebSocket(url, offered, options);
    // paused until the caller's side is there to relay to: nothing the instance says is lost
    socket.once('open', () => (socket.pause(), resolve(socket)));
    socket.once('unexpected-response', (_request, answer) => {
      answer.resume();
      const status = answer.statusCode ?? 502;
      socket.terminate();
      reject(new AppError(status >= 400 && status < 500 ? status : 502, status === 404 ? 'NOT_FOUND' : 'INSTANCE_UNREACHABLE', `The instance at ${target.url} refused the WebSocket on ${path.split('?')[0]} (${status}).`));
    });
    socket.once('error', (err) => reject(new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${reachError(err)}).`)));
  });
}

/** Close codes that may not be sent in a close frame: what the other side is told instead. */
const sendable = (code: number) => (code === 1005 || code === 1006 || code === 1015 ? 1011 : code);

/** Relays messages both ways (text stays text, binary stays binary) until one side closes. */
export function relaySockets(caller: WebSocket, instance: WebSocket): void {
  caller.on('message', (data, isBinary) => instance.readyState === WebSocket.OPEN && instance.send(data, { binary: isBinary }));
  instance.on('message', (data, isBinary) => caller.readyState === WebSocket.OPEN && caller.send(data, { binary: isBinary }));
  const closeOther = (other: WebSocket) => (code: number, reason: Buffer) => {
    if (other.readyState === WebSocket.OPEN) other.close(code === 1005 ? 1000 : sendable(code), reason.subarray(0, 123));
    else if (other.readyState === WebSocket.CONNECTING) other.terminate();
  };
  caller.on('close', closeOther(instance));
  instance.on('close', closeOther(caller));
  caller.on('error', () => instance.terminate());
  instance.on('error', () => caller.terminate());
  instance.resume();
}
