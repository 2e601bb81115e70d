// Stand-alone entry of the browser server: `node --import tsx src/browser/serve-entry.ts --port 3459
// --home ~/.svc [--cdp-url URL] [--headed] [--browser-path PATH] [--parent-pid PID]`. The `svc browser
// serve` command does the same through the CLI; this file lets tests and ensureServer() start it directly.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError } from '../http/errors.ts';
import { isPidAlive } from './launcher.ts';
import { startBrowserServer, type BrowserServer } from './server.ts';
import { DEFAULT_BROWSER_PORT } from './types.ts';
import { RemoteRuleSource } from '../skills/web-routing/remote-rules.ts';

export interface ServeOptions {
  port: number;
  home: string;
  cdpUrl?: string;
  headless: boolean;
  executablePath?: string;
  /** Exit when this process is gone (a server spawned for a core server dies with it). */
  parentPid?: number;
  /** The core server (env SVC_URL): its web-routing rules apply to the browser's traffic. */
  coreUrl?: string;
}

/** Run the browser server until SIGINT/SIGTERM, shutdown request, or the parent's exit. */
export async function serveBrowser(o: ServeOptions): Promise<BrowserServer> {
  // The core server owns the web-routing rules; with its URL known, the browser applies them too.
  const rules = o.coreUrl ? new RemoteRuleSource(o.coreUrl) : undefined;
  const server = await startBrowserServer({ port: o.port, home: o.home, cdpUrl: o.cdpUrl, headless: o.headless, executablePath: o.executablePath, rules });
  void server.closed.then(() => rules?.close());
  process.stdout.write(`${JSON.stringify({ event: 'listening', service: 'svc-browser', url: server.url, pid: process.pid, mode: server.session.mode })}\n`);
  const stop = () => void server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (o.parentPid) {
    const timer = setInterval(() => {
      if (!isPidAlive(o.parentPid!)) stop();
    }, 2000);
    timer.unref();
  }
  void server.closed.then(() => {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  });
  return server;
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      home: { type: 'string' },
      'cdp-url': { type: 'string' },
      headed: { type: 'boolean' },
      headless: { type: 'boolean' },
      'browser-path': { type: 'string' },
      'parent-pid': { type: 'string' },
    },
    strict: true,
  });
  const port = values.port !== undefined ? Number(values.port) : DEFAULT_BROWSER_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not '${values.port}'`);
  const parentPid = values['parent-pid'] !== undefined ? Number(values['parent-pid']) : undefined;
  return {
    port,
    home: values.home ?? env.SVC_HOME ?? join(homedir(), '.svc'),
    cdpUrl: values['cdp-url'],
    headless: !values.headed,
    executablePath: values['browser-path'],
    ...(parentPid ? { parentPid } : {}),
    ...(env.SVC_URL ? { coreUrl: env.SVC_URL } : {}),
  };
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('serve-entry.ts');
if (isMain) {
  try {
    const server = await serveBrowser(parseServeArgs(process.argv.slice(2)));
    await server.closed;
    process.exit(0);
  } catch (err) {
    process.stderr.write(`svc browser serve: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
