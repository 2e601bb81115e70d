// Why a channel did not connect, in words a user can act on. Node's network errors carry a code
// (ECONNREFUSED, ENOTFOUND, …) somewhere down their cause chain: grammY wraps node-fetch's error in
// `error`, undici puts it in `cause` (or `errors`, one per address tried), discord.js rethrows it as is.
// The libraries' own messages say "Network request for 'getMe' failed!" or hold the bot token in a URL.
import { AttemptTimeout } from './abort.ts';

const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'the host name could not be looked up (DNS)',
  EAI_FAIL: 'the host name could not be looked up (DNS)',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate is signed by an unknown authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate is signed by an unknown authority',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

/** The first network error code in `err`'s cause chain, if any (a system errno such as EPROTO counts too). */
export function networkCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 6) return undefined;
  const e = err as { code?: unknown; error?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (e.code in WORDS || /^E[A-Z]+$/.test(e.code))) return e.code;
  for (const inner of [e.error, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const code = networkCode(inner, depth + 1);
    if (code) return code;
  }
  return undefined;
}

/**
 * What to tell the user about a failed attempt: the API that did not answer and its bound, the network
 * error in words, else the error's own message. `api` names the service (`the Bot API`), `url` its address.
 */
export function failureReason(err: unknown, api: string, url: string): string {
  if (err instanceof AttemptTimeout) return `${api} (${url}) did not answer in ${err.ms / 1000} s`;
  const code = networkCode(err);
  if (code) return `cannot reach ${url}: ${WORDS[code] ?? code}`;
  return err instanceof Error ? err.message : String(err);
}
