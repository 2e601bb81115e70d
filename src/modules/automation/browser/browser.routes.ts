// The browser skill's routes. The same declarations serve both servers: the core server mounts them
// over a BrowserClient (which forwards to the browser server, starting it on first use), and the
// browser server mounts them over its own BrowserSession (session-api.ts). Failures are AppErrors
// passed through with their status and code: bad selector 400, unknown element/tab 404, stale ref
// 409, navigation error 502, no browser / launch failure 503, timeout 504.
import { z } from 'zod';
import { routeGroup, noBody, route } from '../../../http/routes.ts';
import type { BrowserClient } from './client.ts';
import { BROWSER_ERRORS } from './errors.ts';
import {
  ActionResultSchema,
  ActionResultSchemas,
  ActionSchema,
  BrowserStatusSchema,
  FetchBody,
  LogQuery,
  SnapshotQuery,
  StartBody,
  TabOpenBody,
  truthy,
} from './types.ts';

/** What the routes act through: a BrowserClient on the core server, the session on the browser server. */
export type BrowserApi = Pick<
  BrowserClient,
  'start' | 'status' | 'snapshot' | 'act' | 'fetch' | 'tabs' | 'openTab' | 'switchTab' | 'closeTab' | 'console' | 'network'
>;

const TabParams = z.object({ id: z.string().regex(/^t\d{1,9}$/, 'a tab id looks like t1 (see GET /api/browser/tabs)') });
const logQuery = (q: z.infer<typeof LogQuery>) => ({ ...(q.tab ? { tab: q.tab } : {}), ...(q.limit ? { limit: q.limit } : {}), clear: truthy(q.clear) });

export const browserRoutes = routeGroup('browser', ({ api }: { api: BrowserApi }) => {
  return [
    route({
      method: 'POST',
      url: '/api/browser/start',
      errors: BROWSER_ERRORS,
      summary: 'Launches the controlled browser (or connects to the one given by --cdp-url).',
      body: StartBody,
      response: BrowserStatusSchema,
      handler: ({ body }) => api.start(body),
    }),
    route({
      method: 'GET',
      url: '/api/browser/status',
      summary: 'The browser\'s state; starts nothing (`server: false` when no browser server runs).',
      response: BrowserStatusSchema.extend({ server: z.boolean().optional() }),
      handler: () => api.status(),
    }),
    route({
      method: 'GET',
      url: '/api/browser/snapshot',
      errors: BROWSER_ERRORS,
      summary: 'An accessibility snapshot of the page with refs (e12) to act on; `diff=1` compares with the previous one.',
      query: SnapshotQuery,
      response: ActionResultSchemas.snapshot,
      handler: ({ query }) => api.snapshot({ diff: truthy(query.diff), ...(query.tab ? { tab: query.tab } : {}), ...(query.maxNodes ? { maxNodes: query.maxNodes } : {}) }),
    }),
    route({
      method: 'POST',
      url: '/api/browser/act',
      errors: BROWSER_ERRORS,
      summary: 'Runs one browser action: open, click, mouse, type, extract, eval, wait, snapshot, screenshot, tabs, console, network, fetch.',
      body: ActionSchema,
      response: ActionResultSchema,
      handler: ({ body }) => api.act(body),
    }),
    route({
      method: 'POST',
      url: '/api/browser/fetch',
      errors: BROWSER_ERRORS,
      summary: 'Loads a URL in a background tab and returns its readable text.',
      body: FetchBody,
      response: ActionResultSchemas.fetch,
      handler: ({ body }) => api.fetch(body),
    }),
    route({
      method: 'GET',
      url: '/api/browser/tabs',
      errors: BROWSER_ERRORS,
      summary: 'The open tabs and the active one.',
      response: ActionResultSchemas.tabs,
      handler: () => api.tabs(),
    }),
    route({
      method: 'POST',
      url: '/api/browser/tabs',
      errors: BROWSER_ERRORS,
      summary: 'Opens a tab (optionally at a URL) and makes it active.',
      body: TabOpenBody,
      status: 201,
      response: ActionResultSchemas.tab_open,
      handler: ({ body }) => api.openTab(body),
    }),
    route({
      method: 'POST',
      url: '/api/browser/tabs/:id/switch',
      errors: BROWSER_ERRORS,
      summary: 'Makes a tab the active one.',
      params: TabParams,
      body: noBody,
      response: ActionResultSchemas.tab_switch,
      handler: ({ params }) => api.switchTab(params.id),
    }),
    route({
      method: 'DELETE',
      url: '/api/browser/tabs/:id',
      errors: BROWSER_ERRORS,
      summary: 'Closes a tab.',
      params: TabParams,
      response: ActionResultSchemas.tab_close,
      handler: ({ params }) => api.closeTab(params.id),
    }),
    route({
      method: 'GET',
      url: '/api/browser/console',
      errors: BROWSER_ERRORS,
      summary: 'The console messages of a tab (a ring buffer; `clear=1` empties it).',
      query: LogQuery,
      response: ActionResultSchemas.console,
      handler: ({ query }) => api.console(logQuery(query)),
    }),
    route({
      method: 'GET',
      url: '/api/browser/network',
      errors: BROWSER_ERRORS,
      summary: 'The network requests of a tab (a ring buffer; `clear=1` empties it).',
      query: LogQuery,
      response: ActionResultSchemas.network,
      handler: ({ query }) => api.network(logQuery(query)),
    }),
  ];
});
