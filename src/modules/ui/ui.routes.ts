// The browser UI: serves the prebuilt web/dist (scripts/build-web.mjs) at `/`. index.html is never
// cached (it names the current hashed assets); /assets/* are content-hashed and cached for a year.
// When web/dist is missing the root page says how to build it instead of answering 404.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { uiFiles } from './files.ts';

export interface UiRouteDeps {
  version: string;
  /** The built UI (index.html, favicon.svg, assets/). */
  dist: string;
}

export const uiRoutes: FastifyPluginAsync<UiRouteDeps> = async (app, { version, dist }) => {
  const files = uiFiles(version, dist);
  defineRoutes(app, 'ui', [
    route({
      method: 'GET',
      url: '/assets/*',
      access: 'public',
      summary: "The UI's content-hashed scripts and styles (brotli or gzip when accepted; cached for a year).",
      params: z.object({ '*': z.string().describe('a file name of the build') }),
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
      response: z.unknown(),
      handler: async ({ reply }) => (await files.favicon(reply)) ?? reply.callNotFound(),
    }),
  ]);
};
