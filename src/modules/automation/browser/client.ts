// HTTP client for the browser server, used by the core server's /api/browser/* routes and by
// `svc browser <action>`. It starts the browser server as a child process on first use when given a spawn
// command (ensureServer), reuses a running one afterwards, and turns every failure into an AppError
// (server errors keep their status and code, so the core route passes them on unchanged).
// No playwright import: loading this costs the core server nothing.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import http from 'node:http';
import { dirname } from 'node:path';
import { AppError, isErrorCode } from '../../../core/errors.ts';
import { DEFAULT_BROWSER_PORT, DEFAULT_TIMEOUTS, MAX_TIMEOUT_MS } from './limits.ts';
import type { Action, ActionName, ActionOf, ActionResult, ActionResultMap, BrowserStatus } from './types.ts';

/** How to start the browser server: e.g. { command: process.execPath, args: [cliEntry, 'browser', 'serve', '--port', '3459'] }. */
export interface SpawnCommand {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where the child's stdout/stderr go (appended); default: discarded. */
  logFile?: string;
}

export interface BrowserClientOptions {
  port?: number;
  /** Start the server with this when nothing answers on the port. Without it, a missing server is a 503. */
  spawn?: SpawnCommand | (() => SpawnCommand);
  /** How long a spawned server may take to answer (ms, default 15000). */
  startTimeoutMs?: number;
  /** Default per-request timeout (ms, default 60000); actions get their own timeout plus a margin. */
  requestTimeoutMs?: number;
}

export interface BrowserServerHealth {
  ok: boolean;
  service: string;
  pid: number;
  mode: 'launch' | 'attach';
}

const MARGIN_MS = 15_000;

/** Time the server may take for an action: its own timeout (or the default) plus a margin. */
export function actionBudget(action: Action): number {
  const t = 'timeout' in action && typeof action.timeout === 'number' ? action.timeout : undefined;
  const def =
    action.action === 'open' || action.action === 'tab_open'
      ? DEFAULT_TIMEOUTS.open
      : action.action === 'eval'
        ? DEFAULT_TIMEOUTS.eval
        : action.action === 'wait'
          ? DEFAULT_TIMEOUTS.wait
          : action.action === 'fetch'
            ? DEFAULT_TIMEOUTS.fetch
            : action.action === 'screenshot'
              ? DEFAULT_TIMEOUTS.screenshot
              : DEFAULT_TIMEOUTS.action;
  // Launching the browser on first use can add a few seconds to any action.
  return Math.min(t ?? def, MAX_TIMEOUT_MS) + MARGIN_MS + 20_000;
}

interface RawResponse {
  status: number;
  body: unknown;
}

export class BrowserClient {
  readonly port: number;
  readonly baseUrl: string;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private starting: Promise<BrowserServerHealth> | null = null;
  /** True once this client has started a browser server itself (its owner then shuts it down). */
  spawnedServer = false;
  /** Resolves when the browser server this client started last has exited. */
  private serverExited: Promise<void> | null = null;

  constructor(private readonly opts: BrowserClientOptions = {}) {
    this.port = opts.port ?? DEFAULT_BROWSER_PORT;
    this.baseUrl = `http://127.0.0.1:${this.port}`;
  }

  private raw(method: string, path: string, body: unknown, timeoutMs: number): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              reject(new AppError(502, 'BROWSER_SERVER_BAD_RESPONSE', `The browser server on port ${this.port} sent a response that is not JSON (status ${res.statusCode}).`));
              return;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy(new AppError(504, 'BROWSER_SERVER_TIMEOUT', `The browser server did not answer ${method} ${path} within ${timeoutMs} ms.`));
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The server's health, or null when nothing listens on the port. */
  async health(): Promise<BrowserServerHealth | null> {
    let r: RawResponse;
    try {
      r = await this.raw('GET', '/api/health', undefined, 3000);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED' || code === 'ECONNRESET') return null;
      if (err instanceof AppError && err.code === 'BROWSER_SERVER_TIMEOUT') return null;
      throw err;
    }
    const h = r.body as Partial<BrowserServerHealth> | null;
    if (r.status !== 200 || h?.service !== 'svc-browser') {
      throw new AppError(503, 'PORT_IN_USE', `Port ${this.port} on 127.0.0.1 answers, but not as a svc browser server. Stop that program or use another browser port.`);
    }
    return h as BrowserServerHealth;
  }

  /** Make sure a browser server answers: reuse a running one, else spawn one (single flight). */
  ensureServer(): Promise<BrowserServerHealth> {
    this.starting ??= this.startServer().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async startServer(): Promise<BrowserServerHealth> {
    const running = await this.health();
    if (running) return running;
    const sp = typeof this.opts.spawn === 'function' ? this.opts.spawn() : this.opts.spawn;
    if (!sp) {
      throw new AppError(503, 'BROWSER_SERVER_DOWN', `No browser server is running on 127.0.0.1:${this.port}. Start it with \`svc browser serve --port ${this.port}\`.`);
    }
    let out: number | 'ignore' = 'ignore';
    if (sp.logFile) {
      mkdirSync(dirname(sp.logFile), { recursive: true });
      rotateLog(sp.logFile);
      out = openSync(sp.logFile, 'a');
    }
    let exited: { code: number | null; signal: string | null } | null = null;
    let spawnError: Error | null = null;
    const child = spawn(sp.command, sp.args, { cwd: sp.cwd, env: sp.env ?? process.env, detached: true, stdio: ['ignore', out, out] });
    if (typeof out === 'number') closeSync(out);
    this.serverExited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => (exited = { code, signal }));
    child.once('error', (e) => (spawnError = e));
    child.unref();
    this.spawnedServer = true;
    const deadline = Date.now() + (this.opts.startTimeoutMs ?? 15_000);
    const logHint = sp.logFile ? ` See ${sp.logFile}.` : '';
    for (;;) {
      if (spawnError) throw new AppError(503, 'BROWSER_SERVER_START_FAILED', `Could not start the browser server (${sp.command}): ${(spawnError as Error).message}.`);
      const h = await this.health().catch((e: unknown) => {
        throw e;
      });
      if (h) return h;
      if (exited) {
        const e = exited as { code: number | null; signal: string | null };
        throw new AppError(503, 'BROWSER_SERVER_START_FAILED', `The browser server exited during start-up (code ${e.code ?? 'none'}, signal ${e.signal ?? 'none'}).${logHint}`);
      }
      if (Date.now() > deadline) {
        try {
          if (child.pid) process.kill(child.pid, 'SIGTERM');
        } catch {
          /* gone */
        }
        throw new AppError(503, 'BROWSER_SERVER_START_FAILED', `The browser server did not answer on port ${this.port} within ${this.opts.startTimeoutMs ?? 15_000} ms.${logHint}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One request; a refused connection starts the server (when we can) and retries once. */
  private async call<T>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const t = timeoutMs ?? this.opts.requestTimeoutMs ?? 60_000;
    let r: RawResponse;
    try {
      r = await this.raw(method, path, body, t);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw wrapNetError(err, this.port);
      await this.ensureServer();
      try {
        r = await this.raw(method, path, body, t);
      } catch (err2) {
        throw wrapNetError(err2, this.port);
      }
    }
    if (r.status >= 400) {
      const b = (r.body ?? {}) as { error?: string; message?: string } & Record<string, unknown>;
      const { error, message, ...details } = b;
      throw new AppError(r.status, isErrorCode(error) ? error : 'BROWSER_SERVER_BAD_RESPONSE', message ?? `The browser server answered ${r.status}.`, Object.keys(details).length ? details : undefined);
    }
    return r.body as T;
  }

  /** Any route of the browser server, for the modules that mount their own routes there (web-ai). */
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    return this.call<T>(method, path, body, timeoutMs);
  }

  /** Status without starting anything: `server: false` when no browser server runs. */
  async status(): Promise<BrowserStatus & { server: boolean }> {
    const h = await this.health();
    if (!h) return { server: false, running: false, mode: 'launch', connected: false, headless: true, launches: 0, tabs: 0 };
    return { server: true, ...(await this.call<BrowserStatus>('GET', '/api/browser/status')) };
  }

  async start(body: { headless?: boolean } = {}): Promise<BrowserStatus> {
    await this.ensureServer();
    return this.call('POST', '/api/browser/start', body, 60_000);
  }

  stop(): Promise<BrowserStatus> {
    return this.call('POST', '/api/browser/stop', {}, 30_000);
  }

  /** Ask the server to exit (closing a browser it launched). No-op when none runs. */
  async shutdown(): Promise<void> {
    if (!(await this.health())) return;
    await this.raw('POST', '/api/browser/shutdown', {}, 10_000).catch(() => undefined);
    // Resolve once it is gone, so callers may remove the profile directory: a server this client started
    // has exited (it exits after its browser did; it stops answering before that, while Chromium may
    // still write to the profile); one it did not start no longer answers.
    if (this.serverExited) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.serverExited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      return;
    }
    for (let waited = 0; waited < 10_000 && (await this.health().catch(() => null)); waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  act<N extends ActionName>(action: ActionOf<N>): Promise<ActionResult<N>>;
  act(action: Action): Promise<ActionResult>;
  act(action: Action): Promise<ActionResult> {
    return this.call('POST', '/api/browser/act', action, actionBudget(action));
  }

  snapshot(q: { diff?: boolean; tab?: string; maxNodes?: number } = {}): Promise<ActionResultMap['snapshot']> {
    const p = new URLSearchParams();
    if (q.diff) p.set('diff', '1');
    if (q.tab) p.set('tab', q.tab);
    if (q.maxNodes) p.set('maxNodes', String(q.maxNodes));
    const qs = p.toString();
    return this.call('GET', `/api/browser/snapshot${qs ? `?${qs}` : ''}`, undefined, 60_000 + MARGIN_MS);
  }

  fetch(body: { url: string; maxChars?: number; timeout?: number }): Promise<ActionResultMap['fetch']> {
    return this.call('POST', '/api/browser/fetch', body, actionBudget({ action: 'fetch', ...body }));
  }

  tabs(): Promise<ActionResultMap['tabs']> {
    return this.call('GET', '/api/browser/tabs');
  }

  openTab(body: { url?: string; timeout?: number } = {}): Promise<ActionResultMap['tab_open']> {
    return this.call('POST', '/api/browser/tabs', body, actionBudget({ action: 'tab_open', ...body }));
  }

  switchTab(id: string): Promise<ActionResultMap['tab_switch']> {
    return this.call('POST', `/api/browser/tabs/${encodeURIComponent(id)}/switch`, {});
  }

  closeTab(id: string): Promise<ActionResultMap['tab_close']> {
    return this.call('DELETE', `/api/browser/tabs/${encodeURIComponent(id)}`);
  }

  console(q: { tab?: string; limit?: number; clear?: boolean } = {}): Promise<ActionResultMap['console']> {
    return this.call('GET', `/api/browser/console${logQs(q)}`);
  }

  network(q: { tab?: string; limit?: number; clear?: boolean } = {}): Promise<ActionResultMap['network']> {
    return this.call('GET', `/api/browser/network${logQs(q)}`);
  }

  /** Free the client's sockets (the server keeps running). */
  close(): void {
    this.agent.destroy();
  }
}

function logQs(q: { tab?: string; limit?: number; clear?: boolean }): string {
  const p = new URLSearchParams();
  if (q.tab) p.set('tab', q.tab);
  if (q.limit) p.set('limit', String(q.limit));
  if (q.clear) p.set('clear', '1');
  const s = p.toString();
  return s ? `?${s}` : '';
}

function wrapNetError(err: unknown, port: number): AppError {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') {
    return new AppError(503, 'BROWSER_SERVER_DOWN', `No browser server is running on 127.0.0.1:${port}. Start it with \`svc browser serve --port ${port}\`.`);
  }
  return new AppError(502, 'BROWSER_SERVER_UNREACHABLE', `Lost the connection to the browser server on port ${port} (${code ?? (err as Error).message}). Try again.`);
}

export function createBrowserClient(opts: BrowserClientOptions = {}): BrowserClient {
  return new BrowserClient(opts);
}

/** Start (or reuse) the browser server on `port` using `spawn`, and return a client for it. */
export async function ensureServer(opts: { port?: number; spawn: SpawnCommand; startTimeoutMs?: number }): Promise<BrowserClient> {
  const client = new BrowserClient(opts);
  await client.ensureServer();
  return client;
}

/** The browser server's log is appended to at each start: beyond LOG_MAX_BYTES it becomes `<log>.1` (the one before is dropped), so it never holds more than twice that. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;
export function rotateLog(file: string, maxBytes = LOG_MAX_BYTES): void {
  const size = (() => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  })();
  if (size > maxBytes) renameSync(file, `${file}.1`);
}
