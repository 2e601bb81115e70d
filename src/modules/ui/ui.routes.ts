// The browser UI: serves the prebuilt web/dist (scripts/build-web.mjs) at `/`. index.html is never
// cached (it names the current hashed assets); /assets/* are content-hashed and cached for a year.
// When web/dist is missing the root page says how to build it instead of answering 404.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
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

export interface UiRouteDeps {
  version: string;
  /** The built UI (index.html, favicon.svg, assets/). */
  dist: string;
}

export const uiRoutes: FastifyPluginAsync<UiRouteDeps> = async (app, { version, dist }) => {
  const index = join(dist, 'index.html');
  const assets = join(dist, 'assets');

  const sendAsset = assetServer(assets);
  defineRoutes(app, 'ui', [
    route({
      method: 'GET',
      url: '/assets/*',
      summary: "The UI's content-hashed scripts and styles (brotli or gzip when accepted; cached for a year).",
      params: z.object({ '*': z.string().describe('a file name of the build') }),
      produces: 'file',
      handler: ({ params, request, reply }) => sendAsset(params['*'], request, reply),
    }),
  ]);

  const sendIndex = async (reply: FastifyReply) => {
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
  };

  defineRoutes(app, 'ui', [
    route({ method: 'GET', url: '/', summary: 'The browser UI (or, when it is not built, a page that says how to build it).', produces: 'html', handler: ({ reply }) => sendIndex(reply) }),
    route({ method: 'GET', url: '/index.html', summary: 'The same page as /.', produces: 'html', handler: ({ reply }) => sendIndex(reply) }),
    route({
      method: 'GET',
      url: '/favicon.svg',
      summary: 'The UI\'s icon (SVG).',
      produces: 'file',
      response: z.unknown(),
      handler: async ({ reply }) => {
        try {
          const svg = await readFile(join(dist, 'favicon.svg'));
          void reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400');
          return svg;
        } catch {
          return reply.callNotFound();
        }
      },
    }),
  ]);
};
