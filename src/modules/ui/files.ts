// The files of a built web app: index.html with its Content-Security-Policy (or a page that says how
// to build it), the content-hashed assets (pre-compressed variants when accepted) and the icon. The
// ui routes serve them at `/`; the manager serves the chat UI's under /i/<instanceId>/ from its own
// copy, so the code that runs in its origin is always its own.
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../../core/version.ts';
import { notFound } from '../../core/errors.ts';

/**
 * Same-origin only: no inline script or style, no plugins, no framing. `connect-src 'self'` covers
 * fetch, EventSource and the same-origin WebSocket fallback.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: the page shows attached images fetched with the bearer token from blob URLs (remote use)
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the manager dashboard's built page lives (scripts/build-web.mjs, app `dashboard`). */
export function dashboardDistDir(): string {
  return process.env.SVC_DASHBOARD_DIST || join(PACKAGE_ROOT, 'web', 'dist-dashboard');
}

/** Where the built UI lives; SVC_WEB_DIST overrides it (tests, packagers). */
export function webDistDir(): string {
  return process.env.SVC_WEB_DIST || join(PACKAGE_ROOT, 'web', 'dist');
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** A file name of the build: content-hashed, no directories, nothing hidden. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

/**
 * Serves the build's assets: names carry a content hash, so each is cached for a year; the build
 * writes a .br and a .gz beside each file, sent to clients that accept them (and a cache between
 * must keep the variants apart: Vary).
 */
function assetServer(dir: string) {
  return (name: string, request: FastifyRequest, reply: FastifyReply) => {
    const type = ASSET_TYPES[extname(name)];
    if (!ASSET_NAME.test(name) || name.includes('..') || !type) throw notFound('UI asset', name);
    const accepts = String(request.headers['accept-encoding'] ?? '');
    const encodings: [string | undefined, string][] = [...(/\bbr\b/.test(accepts) ? [['br', '.br'] as [string, string]] : []), ...(/\bgzip\b/.test(accepts) ? [['gzip', '.gz'] as [string, string]] : []), [undefined, '']];
    for (const [encoding, suffix] of encodings) {
      const path = join(dir, name + suffix);
      let size: number;
      try {
        const stat = statSync(path);
        if (!stat.isFile()) continue;
        size = stat.size;
      } catch {
        continue;
      }
      const etag = `"${name}${suffix}"`;
      void reply.header('Vary', 'Accept-Encoding').header('Cache-Control', 'public, max-age=31536000, immutable').header('ETag', etag).type(type);
      if (encoding) void reply.header('Content-Encoding', encoding);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.header('Content-Length', size).send(createReadStream(path));
    }
    throw notFound('UI asset (the UI is built with npm run build)', name);
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const missingPage = (version: string, dist: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc: the browser UI is not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#222}
code,pre{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px}pre{padding:.75rem 1rem;overflow:auto}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}code,pre{background:#222}}</style>
</head><body><h1>svc ${escapeHtml(version)}: the browser UI is not built</h1>
<p>The service is running, but the web UI files are missing from <code>${escapeHtml(dist)}</code>.</p>
<p>Build them from the package directory, then restart <code>svc serve</code>:</p>
<pre>npm run build</pre>
<p>(<code>npm run build</code> runs <code>node scripts/build-web.mjs</code>, which bundles <code>web/src</code> into <code>web/dist</code>.)</p>
<p>The API works meanwhile: it is under <code>/api</code>, and live events stream from <code>/api/events</code>.</p>
</body></html>`;

// The help page carries one small inline <style>: allow exactly that, still no script at all.
const MISSING_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";


export interface UiFiles {
  /** index.html (never cached), or the help page when the app is not built. */
  index(reply: FastifyReply): Promise<string>;
  /** A file of assets/ by its name. */
  asset(name: string, request: FastifyRequest, reply: FastifyReply): unknown;
  /** favicon.svg, or undefined when there is none. */
  favicon(reply: FastifyReply): Promise<Buffer | undefined>;
  /** sw.js, manifest.webmanifest or icons/<name>.png of an installable build; undefined when absent. */
  installable(name: string, reply: FastifyReply): Promise<Buffer | undefined>;
}

/**
 * The installable app's files, at stable paths. The service worker and the manifest are revalidated on
 * each fetch (a browser checks sw.js for updates itself, and an old worker must not outlive a build);
 * the service worker gets its own CSP (it fetches the server only) and may control the whole origin.
 */
const INSTALLABLE: Record<string, { type: string; cache: string; headers?: Record<string, string> }> = {
  'sw.js': { type: 'text/javascript; charset=utf-8', cache: 'no-cache', headers: { 'Service-Worker-Allowed': '/', 'Content-Security-Policy': "default-src 'none'; connect-src 'self'; img-src 'self'" } },
  'manifest.webmanifest': { type: 'application/manifest+json; charset=utf-8', cache: 'no-cache' },
};
const ICON_NAME = /^icons\/[a-z0-9-]{1,60}\.png$/;

export function uiFiles(version: string, dist: string): UiFiles {
  const index = join(dist, 'index.html');
  return {
    async index(reply) {
      let html: string | undefined;
      try {
        html = await readFile(index, 'utf8');
      } catch {
        html = undefined;
      }
      void reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache');
      if (html === undefined) {
        void reply.header('Content-Security-Policy', MISSING_PAGE_CSP);
        return missingPage(version, dist);
      }
      void reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return html;
    },
    asset: assetServer(join(dist, 'assets')),
    async favicon(reply) {
      try {
        const svg = await readFile(join(dist, 'favicon.svg'));
        void reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400');
        return svg;
      } catch {
        return undefined;
      }
    },
    async installable(name, reply) {
      const kind = INSTALLABLE[name] ?? (ICON_NAME.test(name) ? { type: 'image/png', cache: 'public, max-age=86400' } : undefined);
      if (!kind) return undefined;
      let contents: Buffer;
      try {
        contents = await readFile(join(dist, name));
      } catch {
        return undefined;
      }
      void reply.type(kind.type).header('Cache-Control', kind.cache);
      for (const [header, value] of Object.entries(kind.headers ?? {})) void reply.header(header, value);
      return contents;
    },
  };
}
