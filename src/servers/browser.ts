// The browser server (`svc browser serve`): a composition root on the server kit, on 127.0.0.1 only.
// It owns one BrowserSession for its lifetime and serves the browser skill's routes over it, under
// the same paths and shapes as the core server's /api/browser/* routes, so the client can talk to
// either. `svc browser serve --port 3459 --home ~/.svc [--cdp-url URL] [--headed] [--browser-path PATH]
// [--parent-pid PID]` runs it (src/cli/browser.ts); the browser client spawns it on first use.
import '../core/zod-setup.ts';
import type { FastifyInstance } from 'fastify';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AppError } from '../core/errors.ts';
import { homePaths } from '../core/home.ts';
import { TLS_PIN_ENV } from '../core/tls-pin-env.ts';
import { VERSION } from '../core/version.ts';
import { classifyPeer } from '../http/peers.ts';
import { createServer } from '../http/create-server.ts';
import { DEFAULT_BROWSER_PORT, isPidAlive, loadBrowserDriver, loadBrowserRoutes, type BrowserSession, type SessionOptions } from '../modules/automation/browser/index.ts';
import { RemoteRuleSource } from '../modules/automation/web-routing/index.ts';
import { loadWebAiDriver, loadWebAiRoutes } from '../modules/automation/web-ai/index.ts';

export interface BrowserServerOptions extends SessionOptions {
  /** Port on 127.0.0.1 (default 3459; 0 picks a free one). */
  port?: number;
  /** Log requests with fastify's logger. */
  logger?: boolean;
}

export interface BrowserServer {
  url: string;
  port: number;
  app: FastifyInstance;
  session: BrowserSession;
  /** Stop serving; close a browser this server launched, only disconnect from an attached one. */
  close(): Promise<void>;
  /** Resolves once the server has closed (by close() or POST /api/browser/shutdown). */
  closed: Promise<void>;
}

/** Start the browser server. The browser itself is launched (or attached) on first use. */
export async function startBrowserServer(opts: BrowserServerOptions): Promise<BrowserServer> {
  const { BrowserSession, browserServerRoutes, sessionApi } = await loadBrowserDriver();
  const { WebAiDriver } = await loadWebAiDriver();
  const session = new BrowserSession(opts);
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  // It listens on loopback only and has no token: every caller is on this machine, and the guard
  // keeps out pages of other origins and rebinding host names like on the core server.
  const app = await createServer({
    info: { title: 'svc browser server', version: VERSION, description: 'The browser skill\'s server: one controlled Chromium over CDP.' },
    logLevel: opts.logger ? 'info' : 'silent',
    bodyLimit: 2 * 1024 * 1024,
    guard: { classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) },
  });
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await session.close().catch(() => undefined);
      await app.close().catch(() => undefined);
      resolveClosed();
    })();
    return closing;
  };
  await app.register(browserServerRoutes, { session, onShutdown: () => void close() });
  await app.register(await loadBrowserRoutes(), { api: sessionApi(session) });
  await app.register(await loadWebAiRoutes(), { api: new WebAiDriver(session, { profilesFile: homePaths(opts.home).webAiProfiles }) });
  const port = opts.port ?? DEFAULT_BROWSER_PORT;
  try {
    await app.listen({ host: '127.0.0.1', port });
  } catch (err) {
    await session.close().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new AppError(503, 'PORT_IN_USE', `Port ${port} on 127.0.0.1 is already in use. Is another browser server running? Pick another with --port.`);
    }
    throw err;
  }
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return { url: `http://127.0.0.1:${bound}`, port: bound, app, session, close, closed };
}

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
  /** Its certificate's fingerprint when it serves HTTPS (env SVC_TLS_FINGERPRINT, src/core/tls.ts). */
  corePin?: string;
}

/** Run the browser server until SIGINT/SIGTERM, shutdown request, or the parent's exit. */
export async function serveBrowser(o: ServeOptions): Promise<BrowserServer> {
  // The core server owns the web-routing rules; with its URL known, the browser applies them too.
  const rules = o.coreUrl ? new RemoteRuleSource(o.coreUrl, undefined, o.corePin) : undefined;
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
    ...(env.SVC_URL && env[TLS_PIN_ENV] ? { corePin: env[TLS_PIN_ENV] } : {}),
  };
}
