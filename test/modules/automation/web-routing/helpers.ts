// Test helpers for web-routing: an upstream HTTP server that echoes what it receives, and clients.
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { m003WebRouting } from '../../../../src/store/migrations/003-web-routing.ts';
import { RulesRepo } from '../../../../src/modules/automation/web-routing/web-routing.repo.ts';
import { RuleService } from '../../../../src/modules/automation/web-routing/web-routing.service.ts';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  port: number;
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * Routes: /text (text/plain "hello production world"), /gzip (same, gzip-encoded), /html (a page that fetches),
 * /set-headers (sends Server + X-Upstream headers), /slow (answers after 2 s), anything else: JSON echo of the request.
 */
export function startUpstream(name = 'upstream', pageScript = ''): Promise<Upstream> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/favicon.ico') seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const common = { server: 'upstream-server', 'x-upstream': name };
      if (path === '/text') {
        res.writeHead(200, { ...common, 'content-type': 'text/plain; charset=utf-8' });
        res.end('hello production world, production again');
      } else if (path === '/gzip') {
        const z = zlib.gzipSync('hello production world (gzip)');
        res.writeHead(200, { ...common, 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': z.length });
        res.end(z);
      } else if (path === '/binary') {
        res.writeHead(200, { ...common, 'content-type': 'application/octet-stream' });
        res.end(Buffer.from('production'));
      } else if (path === '/page') {
        res.writeHead(200, { ...common, 'content-type': 'text/html' });
        res.end(`<!doctype html><title>t</title><body><p id="p">page</p><script>${pageScript}</script></body>`);
      } else if (path === '/slow') {
        setTimeout(() => {
          res.writeHead(200, common);
          res.end('late');
        }, 2000).unref();
      } else {
        res.writeHead(200, { ...common, 'content-type': 'application/json' });
        res.end(JSON.stringify({ upstream: name, method: req.method, url: req.url, headers: req.headers, body }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        origin: `http://127.0.0.1:${port}`,
        seen,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = any>(): T;
}

const agent = new http.Agent({ keepAlive: false });

/** Sends `method url` through the proxy in absolute form (what an HTTP client configured with a proxy does). */
export function viaProxy(
  proxyPort: number,
  method: string,
  url: string,
  opts: { headers?: Record<string, string>; body?: string; origin?: boolean } = {},
): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: proxyPort,
        method,
        path: opts.origin ? u.pathname + u.search : url,
        headers: { host: u.host, ...opts.headers, ...(opts.body !== undefined ? { 'content-length': Buffer.byteLength(opts.body) } : {}) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const CURL = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((p) => existsSync(p));

/** Runs curl through the proxy; returns status, lower-cased headers and body. */
export function curl(proxyPort: number, args: string[]): Promise<Reply> {
  return new Promise((resolve, reject) => {
    execFile(
      CURL!,
      ['-s', '-i', '--max-time', '10', '-x', `http://127.0.0.1:${proxyPort}`, ...args],
      { encoding: 'utf8' },
      (err, stdout) => {
        if (err) return reject(err);
        const sep = stdout.indexOf('\r\n\r\n');
        const head = stdout.slice(0, sep).split('\r\n');
        const body = stdout.slice(sep + 4);
        const headers: http.IncomingHttpHeaders = {};
        for (const line of head.slice(1)) {
          const i = line.indexOf(':');
          headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
        }
        resolve({ status: Number(head[0]!.split(' ')[1]), headers, body, json: () => JSON.parse(body) });
      },
    );
  });
}

/** A RuleService over a fresh in-memory database with migration 003. */
export function memoryService(): { service: RuleService; close(): void } {
  const db = new Database(':memory:');
  m003WebRouting.up(db);
  return { service: new RuleService(new RulesRepo(db)), close: () => db.close() };
}
