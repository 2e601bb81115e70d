// The browser UI: serves the prebuilt web/dist (scripts/build-web.mjs) at `/`. index.html is never
// cached (it names the current hashed assets); /assets/* are content-hashed and cached for a year.
// When web/dist is missing the root page says how to build it instead of answering 404.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { uiFiles } from './files.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export interface UiRouteDeps {
  version: string;
  /** The built UI (index.html, favicon.svg, assets/). */
  dist: string;
  /** The chat UI's build: also its manifest, icons and service worker (the dashboard's page has none). */
  installable?: boolean;
}

/** What a file route answers: the file's bytes, whatever they are (its schema documents nothing). */
const fileAnswer = lazySchema(() => z.unknown());

export const uiRoutes: FastifyPluginAsync<UiRouteDeps> = async (app, { version, dist, installable = false }) => {
  const files = uiFiles(version, dist);
  defineRoutes(app, 'ui', [
    route({
      method: 'GET',
      url: '/assets/*',
      access: 'public',
      summary: "The UI's content-hashed scripts and styles (brotli or gzip when accepted; cached for a year).",
      params: lazySchema(() => z.object({ '*': z.string().describe('a file name of the build') })),
      produces: 'file',
      handler: ({ params, request, reply }) => files.asset(params['*'], request, reply),
    }),
    route({ method: 'GET', url: '/', access: 'public', summary: 'The browser UI (or, when it is not built, a page that says how to build it).', produces: 'html', handler: ({ reply }) => files.index(reply) }),
    route({ method: 'GET', url: '/index.html', access: 'public', summary: 'The same page as /.', produces: 'html', handler: ({ reply }) => files.index(reply) }),
    route({
      method: 'GET',
      url: '/favicon.svg',
      access: 'public',
      summary: 'The UI\'s icon (SVG).',
      produces: 'file',
      response: fileAnswer,
      handler: async ({ reply }) => (await files.favicon(reply)) ?? reply.callNotFound(),
    }),
  ]);
  if (!installable) return;
  // 404 only while the UI is not built (npm run build)
  defineRoutes(app, 'ui', [
    route({
      method: 'GET',
      url: '/sw.js',
      access: 'public',
      summary: 'The service worker: shows push notifications and posts a notification\'s Allow or Deny with its decision token. Caches nothing.',
      produces: 'file',
      errors: [404],
      response: fileAnswer,
      handler: async ({ reply }) => (await files.installable('sw.js', reply)) ?? reply.callNotFound(),
    }),
    route({
      method: 'GET',
      url: '/manifest.webmanifest',
      access: 'public',
      summary: 'The web app manifest: the chat UI installs to a home screen.',
      produces: 'file',
      errors: [404],
      response: fileAnswer,
      handler: async ({ reply }) => (await files.installable('manifest.webmanifest', reply)) ?? reply.callNotFound(),
    }),
    route({
      method: 'GET',
      url: '/icons/:name',
      access: 'public',
      summary: 'The app\'s PNG icons (192 and 512 px, maskable, Apple touch icon).',
      params: lazySchema(() => z.object({ name: z.string().max(80) })),
      produces: 'file',
      response: fileAnswer,
      handler: async ({ params, reply }) => (await files.installable(`icons/${params.name}`, reply)) ?? reply.callNotFound(),
    }),
  ]);
};
