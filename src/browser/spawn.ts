// How the core server and the `svc browser` client commands start the browser server on demand.
import { join } from 'node:path';
import { SVC_BIN } from '../version.ts';
import { createBrowserClient, type BrowserClient } from './client.ts';
import { DEFAULT_BROWSER_PORT } from './types.ts';

export function browserClientFor(options: { home: string; port?: number; parentPid?: number }): BrowserClient {
  const port = options.port ?? (Number(process.env.SVC_BROWSER_PORT) || DEFAULT_BROWSER_PORT);
  return createBrowserClient({
    port,
    spawn: {
      command: process.execPath,
      args: [SVC_BIN, 'browser', 'serve', '--port', String(port), '--home', options.home, ...(options.parentPid ? ['--parent-pid', String(options.parentPid)] : [])],
      logFile: join(options.home, 'browser-server.log'),
    },
  });
}
