// Pure rules about who is calling: the peer's address class, the Host header, the Origin header.
import { isIP } from 'node:net';

export type PeerKind = 'loopback' | 'private' | 'remote';
/** Decides how much a peer address is trusted; injectable so tests can mark 127.0.0.2 as remote. */
export type PeerClassifier = (address: string | undefined) => PeerKind;

/** Who made a request, as the audit logs name it: `local` on this machine, else `remote:<address>`. */
export const actorOf = (classify: PeerClassifier, address: string | undefined): string => (classify(address) === 'loopback' ? 'local' : `remote:${address ?? '?'}`);

const unmapped = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);

function ipv4Octets(address: string): number[] | null {
  if (isIP(address) !== 4) return null;
  return address.split('.').map(Number);
}

export const classifyPeer: PeerClassifier = (raw) => {
  if (!raw) return 'remote';
  const address = unmapped(raw.toLowerCase());
  if (address === '::1') return 'loopback';
  const v4 = ipv4Octets(address);
  if (v4) {
    const [a, b] = v4 as [number, number];
    if (a === 127) return 'loopback';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
    if (a === 169 && b === 254) return 'private'; // link-local
    if (a === 100 && b >= 64 && b <= 127) return 'private'; // carrier-grade NAT, used by tailnets
    return 'remote';
  }
  if (/^f[cd][0-9a-f]{2}:/.test(address) || /^fe[89ab][0-9a-f]:/.test(address)) return 'private';
  return 'remote';
};

/** Splits a Host header into its host name (brackets removed) and port. */
export function parseHostHeader(host: string | undefined): { hostname: string; port: string } | null {
  if (!host) return null;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(host.trim());
  if (!match) return null;
  return { hostname: (match[1] ?? match[2]!).toLowerCase(), port: match[3] ?? '' };
}

/**
 * DNS rebinding defence: a page on evil.example whose name was re-pointed at 127.0.0.1 still sends
 * `Host: evil.example`. We answer only to IP literals, localhost, and names the user allowed.
 */
export function isAllowedHost(host: string | undefined, allowedHosts: readonly string[]): boolean {
  const parsed = parseHostHeader(host);
  if (!parsed) return false;
  const { hostname } = parsed;
  if (isIP(hostname)) return true;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  return allowedHosts.some((h) => h.toLowerCase() === hostname);
}

/** Same origin: the Origin's host:port is the Host this request was sent to, or explicitly allowed. */
export function isAllowedOrigin(origin: string, host: string | undefined, allowedOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (host && url.host.toLowerCase() === host.trim().toLowerCase()) return true;
  return allowedOrigins.some((o) => {
    try {
      return new URL(o).origin === url.origin;
    } catch {
      return false;
    }
  });
}

/** Reads a bearer token from an Authorization header value. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
