// `svc token`: the token remote clients need. With --home, that data directory's token (created
// on first use); otherwise the running server's (asked over loopback, which needs no token), so the
// answer is right whichever --home the server was started with; with no server running, the
// default data directory's.
import { defaultHome, ensureHome } from '../core/home.ts';
import { loadOrCreateToken } from '../core/token.ts';
import { jsonOf, requestText } from './http-client.ts';
import { resolveTarget } from './target.ts';

export async function printToken(options: { home?: string; url?: string }): Promise<number> {
  if (!options.home) {
    const { url } = resolveTarget({ url: options.url });
    const running = await requestText(`${url}/api/auth/token`, { timeoutMs: 2000 }).catch(() => undefined);
    const token = running?.ok ? jsonOf(running).token : undefined;
    if (typeof token === 'string' && token) {
      console.log(token);
      return 0;
    }
    if (options.url) {
      console.error(`svc: no server on this machine answers at ${url}; start it with \`svc serve\`, or give --home`);
      return 1;
    }
  }
  console.log(loadOrCreateToken(ensureHome(options.home ?? defaultHome()).token));
  return 0;
}
