// The request guard, run before any body is read: the canonical path (canonical-path.ts), the Host
// check (DNS rebinding), cross-origin refusal, and bearer-token auth for peers that are not trusted.
// Whether a request needs the token is read from the route the router matched (its declared
// `access`, routes.ts; for a lazy group, the route its own router matched, lazy-routes.ts), never from
// the URL's spelling. See the README's "Trust model".
import type { FastifyRequest } from 'fastify';
import { tokensEqual } from '../core/token.ts';
import { bearerToken, isAllowedHost, isAllowedOrigin, type PeerClassifier, type PeerKind } from './peers.ts';
import { AppError, badRequest, forbidden, unauthorized } from '../core/errors.ts';
import type { Access } from './routes.ts';
import { lazyRouteOf, resolveLazyRoute } from './lazy-routes.ts';

export interface GuardOptions {
  /** The bearer token of callers that are not trusted; a server without one answers only on loopback. */
  token?: string;
  classifyPeer: PeerClassifier;
  network: () => { trustedLanBypass: boolean; allowedHosts: string[]; allowedOrigins: string[] };
  /** Told of every request the guard refuses (for the security audit log). */
  onRefused?: (refusal: Refusal) => void;
}

export interface Refusal {
  method: string;
  path: string;
  peer: string;
  code: string;
}

/** Why the target of a request was refused before routing (create-server.ts sets it). */
const refusedTargets = new WeakMap<object, string>();

/** Marks a raw request whose target has no canonical form; the guard answers it with a 400. */
export function markRefusedTarget(raw: object, message: string): void {
  refusedTargets.set(raw, message);
}

/** A matched route's declared access; a request no route matched (the not-found answer) needs the token. */
export function accessOf(request: FastifyRequest): Access {
  const lazy = lazyRouteOf(request);
  if (lazy) return lazy.entry?.doc.access ?? 'token';
  return request.routeOptions.config?.access ?? 'token';
}

export function peerKind(request: FastifyRequest, classify: PeerClassifier): PeerKind {
  return classify(request.socket.remoteAddress);
}

export function createGuard(options: GuardOptions) {
  const check = checker(options);
  return async function guard(request: FastifyRequest): Promise<void> {
    // the route of a lazy group is matched first: its errors (a malformed path) are the router's, not refusals
    await resolveLazyRoute(request);
    try {
      check(request);
    } catch (err) {
      const target = (request.originalUrl ?? request.url).split('?')[0]!.slice(0, 200);
      options.onRefused?.({ method: request.method, path: target, peer: request.socket.remoteAddress ?? '', code: (err as { code?: string }).code ?? 'UNKNOWN' });
      throw err;
    }
  };
}

function checker(options: GuardOptions) {
  return function check(request: FastifyRequest): void {
    const refusedTarget = refusedTargets.get(request.raw);
    if (refusedTarget !== undefined) {
      throw new AppError(400, 'BAD_URL', `The request path is refused: ${refusedTarget}. Send the plain path, each character as it is unless it must be percent-encoded (e.g. /api/settings).`);
    }
    const network = options.network();
    const host = request.headers.host;
    if (!host) throw badRequest('BAD_REQUEST', 'The request has no Host header (HTTP/1.1 requires one).');
    if (!isAllowedHost(host, network.allowedHosts)) {
      throw forbidden('HOST_NOT_ALLOWED', `Host '${host}' is not served here. Use localhost or an IP address, or add the name to settings network.allowedHosts.`);
    }
    const access = accessOf(request);
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, host, network.allowedOrigins)) {
      throw forbidden('ORIGIN_NOT_ALLOWED', `Cross-origin requests from '${origin}' are refused. Add it to settings network.allowedOrigins to allow it.`);
    }
    // Without an Origin header (simple GETs, <img>/<script> loads) the browser still says where the
    // request comes from; only a top-level navigation to a public page may come from elsewhere.
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      const navigation = request.headers['sec-fetch-mode'] === 'navigate' && access === 'public';
      if (!navigation && origin === undefined) {
        throw forbidden('ORIGIN_NOT_ALLOWED', 'Cross-site requests are refused.');
      }
    }
    // a capability route's handler checks the capability its body carries (routes.ts, Access)
    if (access === 'public' || access === 'capability') return;
    const kind = peerKind(request, options.classifyPeer);
    if (kind === 'loopback') return;
    if (kind === 'private' && network.trustedLanBypass) return;
    const presented = bearerToken(request.headers.authorization) ?? (access === 'token-or-query' ? queryToken(request.query) : undefined);
    if (presented === undefined || options.token === undefined || !tokensEqual(options.token, presented)) throw unauthorized();
  };
}

function queryToken(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.token;
  return typeof value === 'string' ? value : undefined;
}
