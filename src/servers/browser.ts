// The browser server (`svc browser serve`): a fastify app on 127.0.0.1 only, exposing the browser
// actions as JSON over HTTP under the same paths and shapes as the core server's /api/browser/* routes,
// so the client can talk to either. It owns one BrowserSession for its lifetime.
import Fastify, { type FastifyInstance } from 'fastify';
import { errorHandler } from '../http/error-handler.ts';
import { ApiError } from '../http/errors.ts';
import { parseInput } from '../http/validate.ts';
import { runAction } from './actions.ts';
import { BrowserSession, type SessionOptions } from './session.ts';
import {
  ActionSchema,
  DEFAULT_BROWSER_PORT,
  FetchBody,
  LogQuery,
  SnapshotQuery,
  StartBody,
  TabOpenBody,
  truthy,
} from './types.ts';

export const BROWSER_SERVICE = 'svc-browser';

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

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Build the app around a session. `port()` gives the bound port, for the Host/Origin guard. */
export function buildBrowserApp(session: BrowserSession, opts: { port: () => number; onShutdown: () => void; logger?: boolean }): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, forceCloseConnections: true, bodyLimit: 2 * 1024 * 1024 });
  // JSON bodies only: text/plain is how cross-site "simple" requests would get in.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (req) => {
    const port = opts.port();
    const host = req.headers.host ?? '';
    if (!LOOPBACK_NAMES.some((h) => host === `${h}:${port}`)) {
      throw new ApiError(403, 'FORBIDDEN_HOST', `Host '${host}' is not this browser server; use http://127.0.0.1:${port}.`);
    }
    const origin = req.headers.origin;
    if (origin && !LOOPBACK_NAMES.some((h) => origin === `http://${h}:${port}`)) {
      throw new ApiError(403, 'FORBIDDEN_ORIGIN', `Requests from ${origin} are not accepted by the browser server.`);
    }
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'NOT_FOUND', message: `No route ${req.method} ${req.url.split('?')[0]}.` }));

  app.get('/api/health', async () => ({ ok: true, service: BROWSER_SERVICE, pid: process.pid, mode: session.mode }));
  app.get('/api/browser/status', async () => session.status());
  app.post('/api/browser/start', async (req) => {
    const body = parseInput(StartBody, req.body, 'body');
    return session.start(body);
  });
  app.post('/api/browser/stop', async () => {
    await session.stopBrowser();
    return session.status();
  });
  app.post('/api/browser/shutdown', async (_req, reply) => {
    reply.raw.once('finish', () => opts.onShutdown());
    return { ok: true };
  });
  app.post('/api/browser/act', async (req) => runAction(session, parseInput(ActionSchema, req.body, 'body')));
  app.get('/api/browser/snapshot', async (req) => {
    const q = parseInput(SnapshotQuery, req.query, 'query');
    return runAction(session, { action: 'snapshot', diff: truthy(q.diff), tab: q.tab, maxNodes: q.maxNodes });
  });
  app.post('/api/browser/fetch', async (req) => runAction(session, { action: 'fetch', ...parseInput(FetchBody, req.body, 'body') }));
  app.get('/api/browser/tabs', async () => runAction(session, { action: 'tabs' }));
  app.post('/api/browser/tabs', async (req, reply) => {
    const result = await runAction(session, { action: 'tab_open', ...parseInput(TabOpenBody, req.body, 'body') });
    reply.code(201);
    return result;
  });
  app.post<{ Params: { id: string } }>('/api/browser/tabs/:id/switch', async (req) => runAction(session, { action: 'tab_switch', tab: req.params.id }));
  app.delete<{ Params: { id: string } }>('/api/browser/tabs/:id', async (req) => runAction(session, { action: 'tab_close', tab: req.params.id }));
  app.get('/api/browser/console', async (req) => {
    const q = parseInput(LogQuery, req.query, 'query');
    return runAction(session, { action: 'console', tab: q.tab, limit: q.limit, clear: truthy(q.clear) });
  });
  app.get('/api/browser/network', async (req) => {
    const q = parseInput(LogQuery, req.query, 'query');
    return runAction(session, { action: 'network', tab: q.tab, limit: q.limit, clear: truthy(q.clear) });
  });
  return app;
}

/** Start the browser server. The browser itself is launched (or attached) on first use. */
export async function startBrowserServer(opts: BrowserServerOptions): Promise<BrowserServer> {
  const session = new BrowserSession(opts);
  let bound = 0;
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await session.close().catch(() => undefined);
      await app.close().catch(() => undefined);
      resolveClosed();
    })();
    return closing;
  };
  const app = buildBrowserApp(session, { port: () => bound, onShutdown: () => void close(), logger: opts.logger });
  const port = opts.port ?? DEFAULT_BROWSER_PORT;
  try {
    await app.listen({ host: '127.0.0.1', port });
  } catch (err) {
    await session.close().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ApiError(503, 'PORT_IN_USE', `Port ${port} on 127.0.0.1 is already in use. Is another browser server running? Pick another with --port.`);
    }
    throw err;
  }
  const addr = app.server.address();
  bound = typeof addr === 'object' && addr ? addr.port : port;
  return { url: `http://127.0.0.1:${bound}`, port: bound, app, session, close, closed };
}
