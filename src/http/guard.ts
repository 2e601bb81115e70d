// The request guard, run before any body is read: Host check (DNS rebinding), cross-origin
// refusal, and bearer-token auth for peers that are not trusted. See README "Trust model".
import type { FastifyRequest } from 'fastify';
import { tokensEqual } from '../core/token.ts';
import { bearerToken, isAllowedHost, isAllowedOrigin, type PeerClassifier, type PeerKind } from './peers.ts';
import { badRequest, forbidden, unauthorized } from '../core/errors.ts';

export interface GuardOptions {
  /** The bearer token of callers that are not trusted; a server without one answers only on loopback. */
  token?: string;
  classifyPeer: PeerClassifier;
  network: () => { trustedLanBypass: boolean; allowedHosts: string[]; allowedOrigins: string[] };
  /** Told of every request the guard refuses (for the security audit log). */
  onRefused?: (refusal: Refusal) => void;
  /**
   * The manager's reverse proxy (`/i/`): a path `<prefix><id>/<rest>` is judged as the instance judges
   * `/<rest>`: its UI's files open, its API and media closed, its event streams taking `?token=`.
   */
  proxyPrefix?: string;
}

export interface Refusal {
  method: string;
  path: string;
  peer: string;
  code: string;
}

/** Streams that browsers open with EventSource/WebSocket, which cannot send an Authorization header. */
const QUERY_TOKEN_PATHS = new Set(['/api/events', '/ws']);

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** Routes anyone who passes the Host/Origin checks may call: liveness and the UI's static files. */
export function isOpenRoute(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path === '/api/health') return true;
  return !path.startsWith('/api/') && path !== '/api' && !path.startsWith('/media/') && path !== '/ws';
}

export function peerKind(request: FastifyRequest, classify: PeerClassifier): PeerKind {
  return classify(request.socket.remoteAddress);
}

export function createGuard(options: GuardOptions) {
  const check = checker(options);
  return async function guard(request: FastifyRequest): Promise<void> {
    try {
      check(request);
    } catch (err) {
      options.onRefused?.({ method: request.method, path: pathOf(request.url), peer: request.socket.remoteAddress ?? '', code: (err as { code?: string }).code ?? 'UNKNOWN' });
      throw err;
    }
  };
}

function checker(options: GuardOptions) {
  return function check(request: FastifyRequest): void {
    const network = options.network();
    const host = request.headers.host;
    if (!host) throw badRequest('BAD_REQUEST', 'The request has no Host header (HTTP/1.1 requires one).');
    if (!isAllowedHost(host, network.allowedHosts)) {
      throw forbidden('HOST_NOT_ALLOWED', `Host '${host}' is not served here. Use localhost or an IP address, or add the name to settings network.allowedHosts.`);
    }
    const path = pathOf(request.url);
    const judged = options.proxyPrefix ? proxiedRest(path, options.proxyPrefix) : path;
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, host, network.allowedOrigins)) {
      throw forbidden('ORIGIN_NOT_ALLOWED', `Cross-origin requests from '${origin}' are refused. Add it to settings network.allowedOrigins to allow it.`);
    }
    // Without an Origin header (simple GETs, <img>/<script> loads) the browser still says where the
    // request comes from; only a top-level navigation to a page may come from elsewhere.
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      const navigation = request.headers['sec-fetch-mode'] === 'navigate' && isOpenRoute(request.method, judged);
      if (!navigation && origin === undefined) {
        throw forbidden('ORIGIN_NOT_ALLOWED', 'Cross-site requests are refused.');
      }
    }
    if (isOpenRoute(request.method, judged)) return;
    const kind = peerKind(request, options.classifyPeer);
    if (kind === 'loopback') return;
    if (kind === 'private' && network.trustedLanBypass) return;
    const presented =
      bearerToken(request.headers.authorization) ??
      (QUERY_TOKEN_PATHS.has(judged) ? queryToken(request.query) : undefined);
    if (presented === undefined || options.token === undefined || !tokensEqual(options.token, presented)) throw unauthorized();
  };
}

/**
 * The instance's path of a proxied one (`/i/<id>/api/events` → `/api/events`); a path outside the
 * proxy as it is. The bare `/i/<id>` counts as the instance's `/`. Pure.
 */
export function proxiedRest(path: string, prefix: string): string {
  if (!path.startsWith(prefix)) return path;
  const slash = path.indexOf('/', prefix.length);
  return slash === -1 ? '/' : path.slice(slash);
}

function queryToken(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.token;
  return typeof value === 'string' ? value : undefined;
}
