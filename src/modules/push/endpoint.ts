// What svc accepts as a browser's push subscription: an https endpoint (every browser's push service
// is one), or plain http on a loopback address only (a push relay on this machine, and the tests), and
// the keys RFC 8291 encrypts to: a P-256 point the curve accepts and a 16-byte secret. Pure.
import { createECDH } from 'node:crypto';
import { isIP } from 'node:net';
import { badRequest } from '../../core/errors.ts';
import type { PushSubscriptionBody } from '../../protocol/push.ts';

const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
};

/** The endpoint's URL when svc may send to it; a 400 that says why otherwise. */
export function checkEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw badRequest('INVALID_URL', 'The subscription endpoint is not a URL.', { field: 'endpoint' });
  }
  if (url.username || url.password) throw badRequest('INVALID_URL', 'The subscription endpoint may not carry a user name or password.', { field: 'endpoint' });
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw badRequest('INVALID_URL', 'A push endpoint must be https:// (plain http only on a loopback address, for a push relay on this machine).', { field: 'endpoint' });
}

/** The subscription's keys decode to what RFC 8291 needs; a 400 naming the key otherwise. */
export function checkKeys(keys: PushSubscriptionBody['keys']): void {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  try {
    if (p256dh.length !== 65 || p256dh[0] !== 0x04) throw new Error('not an uncompressed point');
    // throws for a point that is not on the curve
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(p256dh);
  } catch {
    throw badRequest('VALIDATION_FAILED', 'keys.p256dh must be the browser\'s P-256 public key (65 bytes, URL-safe base64).', { field: 'keys.p256dh' });
  }
  if (Buffer.from(keys.auth, 'base64url').length !== 16) throw badRequest('VALIDATION_FAILED', 'keys.auth must be the browser\'s 16-byte authentication secret (URL-safe base64).', { field: 'keys.auth' });
}
