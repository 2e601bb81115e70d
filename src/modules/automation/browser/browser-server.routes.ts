// The routes only the browser server has, beside the shared browser routes: its health (which the
// client uses to find it), stopping the browser, and shutting the server down.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { defineRoutes, noBody, route } from '../../../http/routes.ts';
import type { BrowserSession } from './session.ts';
import { BrowserStatusSchema } from './types.ts';

export const BROWSER_SERVICE = 'svc-browser' as const;

export interface BrowserServerRouteDeps {
  session: BrowserSession;
  /** Called once the shutdown answer has been sent. */
  onShutdown(): void;
}

export const browserServerRoutes: FastifyPluginAsync<BrowserServerRouteDeps> = async (app, { session, onShutdown }) => {
  defineRoutes(app, 'browser-server', [
    route({
      method: 'GET',
      url: '/api/health',
      access: 'public',
      summary: 'The browser server is up: its pid and whether it launched its browser or attached to one.',
      response: z.object({ ok: z.literal(true), service: z.literal(BROWSER_SERVICE), pid: z.number().int(), mode: z.enum(['launch', 'attach']) }),
      handler: () => ({ ok: true as const, service: BROWSER_SERVICE, pid: process.pid, mode: session.mode }),
    }),
    route({
      method: 'POST',
      url: '/api/browser/stop',
      summary: 'Closes the browser this server launched (or disconnects from an attached one); the server stays.',
      body: noBody,
      response: BrowserStatusSchema,
      handler: async () => {
        await session.stopBrowser();
        return session.status();
      },
    }),
    route({
      method: 'POST',
      url: '/api/browser/shutdown',
      summary: 'Stops the browser server (closing a browser it launched).',
      body: noBody,
      response: z.object({ ok: z.literal(true) }),
      handler: ({ reply }) => {
        reply.raw.once('finish', onShutdown);
        return { ok: true as const };
      },
    }),
  ]);
};
