// HTTPS: what a server serves it with, and how svc's own clients recognise an svc server's certificate.
// A certificate made for a phone (mkcert's, for a LAN address or a tailnet name) is seldom one a client on
// this machine can verify by name and CA: the lock file says `https://127.0.0.1:<port>`, and the CA may be
// one only the phone was given. So svc's clients that know which server they talk to (through its lock
// file, or because that server started them) pin the certificate's SHA-256 fingerprint instead: only that
// exact certificate is accepted, checked before a byte of the request (and its token) is sent. Everything
// else is verified the usual way (the system's CAs, plus NODE_EXTRA_CA_CERTS).
import { timingSafeEqual, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { ClientRequestArgs } from 'node:http';

/** A server's certificate and key, read and checked at start (src/cli/tls-files.ts). */
export interface ServerTls {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  /** SHA-256 of the (first, leaf) certificate, as Node prints it: `AB:CD:…`. */
  fingerprint: string;
}


export const fingerprintOf = (pem: Buffer | string): string => new X509Certificate(pem).fingerprint256;

const normal = (fingerprint: string) => Buffer.from(fingerprint.replace(/:/g, '').toUpperCase(), 'utf8');

export function sameFingerprint(a: string, b: string): boolean {
  const x = normal(a);
  const y = normal(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The connection was refused because the server's certificate is not the pinned one. */
export class PinMismatchError extends Error {
  readonly code = 'SVC_CERT_PIN_MISMATCH';
}

/** node:http(s)'s `createConnection`, in its asynchronous form: the socket is handed over through `done`. */
export type Connect = NonNullable<ClientRequestArgs['createConnection']>;

/** How long a TLS handshake of a pinned connection may take before it is given up. */
const HANDSHAKE_MS = 10_000;

/**
 * A `createConnection` for node:http(s) requests and `ws` clients that accepts exactly the certificate
 * with this fingerprint. The chain is not verified (a pinned certificate needs no CA), so the check must
 * come before the request is written: the socket is handed over only after it passed.
 */
export function pinnedConnection(fingerprint: string): Connect {
  return (options, done) => {
    const host = options.host ?? options.hostname ?? 'localhost';
    const socket = tls.connect({ host, port: Number(options.port), rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    // node:http ignores the socket that comes with an error; the type wants one
    const fail = (err: Error) => {
      socket.destroy();
      done(err, socket);
    };
    socket.setTimeout(HANDSHAKE_MS, () => fail(new Error(`no TLS handshake with ${host}:${options.port} within ${HANDSHAKE_MS / 1000} s`)));
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      const seen = socket.getPeerCertificate().fingerprint256 ?? '';
      if (sameFingerprint(seen, fingerprint)) return done(null, socket);
      fail(new PinMismatchError(`the certificate of ${host}:${options.port} is not the one expected (SHA-256 ${seen || 'none'}, expected ${fingerprint}); another server may hold its port`));
    });
    return undefined;
  };
}

/**
 * Options for a node:http(s) request (or a `ws` client) to `url`: for an https (wss) URL with a pin, the
 * pinned connection; otherwise a fresh connection (`agent: false`), a TLS one verified the usual way. (An
 * agent opens its own connections and never calls createConnection, hence one or the other.)
 */
export function connectionOptions(url: URL | string, pin: string | undefined): { agent: false } | { createConnection: Connect } {
  const { protocol } = typeof url === 'string' ? new URL(url) : url;
  return pin && (protocol === 'https:' || protocol === 'wss:') ? { createConnection: pinnedConnection(pin) } : { agent: false };
}

/** The codes of a certificate that failed the usual verification (not trusted, wrong name, out of date). */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether a connection failed because the server's certificate was not accepted (a pin's included). */
export function isCertificateRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof PinMismatchError || (typeof code === 'string' && UNTRUSTED.has(code));
}
