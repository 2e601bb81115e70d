// `svc token`: the token remote clients need. The running server's, asked over loopback (which needs no
// token), so the answer is right whichever --home it was started with: the one at --url, the one running
// on --home (its lock file says where), else the one the other client commands would talk to. With no
// server answering, the data directory's own token file, read and never created: a client does not make
// a home, and a token printed before any server made it would be one no server knows. Where it came
// from is then said on stderr, so `$(svc token)` still captures the token alone.
import { defaultHome, homePaths } from '../core/home.ts';
import { readServerLock } from '../core/server-lock.ts';
import { readToken } from '../core/token.ts';
import { jsonOf, requestText } from './http-client.ts';
import { resolveTarget, TargetError } from './target.ts';

async function askServer(url: string, pin: string | undefined): Promise<string | undefined> {
  const running = await requestText(`${url}/api/auth/token`, { timeoutMs: 2000, pin }).catch(() => undefined);
  const token = running?.ok ? jsonOf(running).token : undefined;
  return typeof token === 'string' && token ? token : undefined;
}

export async function printToken(options: { home?: string; url?: string }): Promise<number> {
  let server: { url?: string; pin?: string };
  try {
    if (options.home) {
      const lock = readServerLock(homePaths(options.home).lock);
      server = { url: lock?.url, pin: lock?.certFingerprint };
    } else server = resolveTarget({ url: options.url });
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    console.error(`svc: ${err.message}`);
    return 2;
  }
  const url = server.url;
  const answered = url ? await askServer(url, server.pin) : undefined;
  if (answered) {
    console.log(answered);
    return 0;
  }
  if (options.url) {
    console.error(`svc: no server on this machine answers at ${url}; start it with \`svc serve\`, or give --home`);
    return 1;
  }
  const home = options.home ?? defaultHome();
  const path = homePaths(home).token;
  const token = readToken(path);
  if (!token) {
    const serve = options.home ? `svc serve --home ${home}` : 'svc serve';
    console.error(`svc: no svc server has been started with ${home} yet, so there is no token; start one with \`${serve}\` (it creates the data directory and its token), then run \`svc token\` again`);
    return 1;
  }
  console.log(token);
  console.error(`svc: no server answers for ${home}; printed its token file ${path}, which its server uses when it starts`);
  return 0;
}
