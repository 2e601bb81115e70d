// How the core server and the `svc browser` client commands start the browser server on demand.
import { join } from 'node:path';
import { TLS_PIN_ENV } from '../../../core/tls-pin-env.ts';
import { SVC_BIN } from '../../../core/version.ts';
import { createBrowserClient, type BrowserClient } from './client.ts';
import { DEFAULT_BROWSER_PORT } from './limits.ts';

export interface BrowserClientSetup {
  home: string;
  port?: number;
  /** The started server exits with this process. */
  parentPid?: number;
  /** The core server's URL, from which the browser server fetches the web-routing rules. */
  coreUrl?: () => string | undefined;
  /** The fingerprint of its certificate when it serves HTTPS (src/core/tls.ts). */
  corePin?: () => string | undefined;
}

export function browserClientFor(options: BrowserClientSetup): BrowserClient {
  const port = options.port ?? (Number(process.env.SVC_BROWSER_PORT) || DEFAULT_BROWSER_PORT);
  // `svc browser …` run by an agent's CLI starts the server on behalf of the core server (SVC_SERVER_PID):
  // it goes when that server goes, not when the short-lived CLI command ends.
  const parentPid = options.parentPid ?? (Number(process.env.SVC_SERVER_PID) || undefined);
  return createBrowserClient({
    port,
    // built when the server is started, so it carries the core's URL known by then
    spawn: () => {
      const coreUrl = options.coreUrl?.() ?? process.env.SVC_URL;
      // the pin goes with the URL it belongs to: the server's own, or the one this CLI was given
      const corePin = options.coreUrl?.() ? options.corePin?.() : process.env[TLS_PIN_ENV];
      return {
        command: process.execPath,
        args: [SVC_BIN, 'browser', 'serve', '--port', String(port), '--home', options.home, ...(parentPid ? ['--parent-pid', String(parentPid)] : [])],
        env: { ...process.env, ...(coreUrl ? { SVC_URL: coreUrl } : {}), ...(corePin ? { [TLS_PIN_ENV]: corePin } : {}) },
        logFile: join(options.home, 'browser-server.log'),
      };
    },
  });
}
