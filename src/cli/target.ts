// How every client command names the server it talks to, in one place:
//   --url <url>       that server;
//   SVC_URL           the same, from the environment (an empty value counts as unset);
//   --home <dir>      the server running on that data directory (its lock file says where);
//   SVC_HOME / ~/.svc the same for the default data directory;
//   otherwise         http://127.0.0.1:$SVC_PORT (3457).
// A remote server needs its token: --token, or SVC_TOKEN.
// An https server named by its lock file (or by SVC_URL with SVC_TLS_FINGERPRINT, as a server gives the
// processes it starts) is reached with its certificate's fingerprint pinned (src/core/tls.ts); one named
// by --url is verified the usual way (the system's CAs, NODE_EXTRA_CA_CERTS).
import { defaultHome, homePaths } from '../core/home.ts';
import { readServerLock } from '../core/server-lock.ts';
import { TLS_PIN_ENV } from '../core/tls-pin-env.ts';
import { RUN_TOKEN_ENV, RUN_TOKEN_HEADER } from '../protocol/caller.ts';
import { DEFAULT_PORT } from './defaults.ts';

export interface ServerTarget {
  url: string;
  token?: string;
  /** The credential of the agent run this CLI was started by (SVC_RUN_TOKEN), when it was. */
  runToken?: string;
  /** The SHA-256 fingerprint the https server's certificate must have. */
  pin?: string;
}

export interface TargetOptions {
  url?: string;
  token?: string;
  home?: string;
}

const nonEmpty = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

export function resolveTarget(options: TargetOptions, env: NodeJS.ProcessEnv = process.env): ServerTarget {
  const token = nonEmpty(options.token) ?? nonEmpty(env.SVC_TOKEN);
  const runToken = nonEmpty(env[RUN_TOKEN_ENV]);
  const secrets = { ...(token ? { token } : {}), ...(runToken ? { runToken } : {}) };
  const given = nonEmpty(options.url);
  if (given) return { url: checkedUrl(given), ...secrets };
  const fromEnv = options.home ? undefined : nonEmpty(env.SVC_URL);
  if (fromEnv) return { url: checkedUrl(fromEnv), ...secrets, ...pinOf(nonEmpty(env[TLS_PIN_ENV])) };
  const running = readServerLock(homePaths(options.home ?? defaultHome(env)).lock);
  if (running?.url) return { url: running.url, ...secrets, ...pinOf(running.certFingerprint) };
  const port = nonEmpty(env.SVC_PORT) ?? String(DEFAULT_PORT);
  return { url: `http://127.0.0.1:${port}`, ...secrets };
}

const pinOf = (pin: string | undefined) => (pin ? { pin } : {});

export class TargetError extends Error {}

function checkedUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetError(`'${raw}' is not a server address; give one like http://127.0.0.1:3457 (--url or SVC_URL)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetError(`'${raw}' is not an http(s) address`);
  return raw.replace(/\/+$/, '');
}

/** The headers of a request to the target: its token, and the agent run's credential, when there are. */
export const authHeaders = (target: ServerTarget): Record<string, string> => ({
  ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
  ...(target.runToken ? { [RUN_TOKEN_HEADER]: target.runToken } : {}),
});
