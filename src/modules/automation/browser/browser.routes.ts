// Browser skill on the core server: thin routes that validate input (the browser's own zod schemas) and
// forward to the browser server through the client, which starts that server on first use. Failures are
// ApiErrors passed through with their status and code: bad selector 400, unknown element/tab 404, stale
// ref 409, navigation error 502, no browser / launch failure 503, timeout 504.
//
//   POST   /api/browser/start             {headless?}                 → BrowserStatus (launches the browser)
//   GET    /api/browser/status                                        → BrowserStatus & {server} (starts nothing)
//   GET    /api/browser/snapshot          ?diff=1&tab=t1&maxNodes=N   → SnapshotResult
//   POST   /api/browser/act               {action: "open"|"click"|…, …fields} → that action's result
//   POST   /api/browser/fetch             {url, maxChars?, timeout?}  → FetchResult
//   GET    /api/browser/tabs                                          → {tabs, active}
//   POST   /api/browser/tabs              {url?, timeout?}            → 201 {tab}
//   POST   /api/browser/tabs/:id/switch                               → {tab}
//   DELETE /api/browser/tabs/:id                                      → {closed, active}
//   GET    /api/browser/console           ?tab&limit&clear=1          → {tab, entries, total}
//   GET    /api/browser/network           ?tab&limit&clear=1          → {tab, entries, total}
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { BrowserClient } from '../../browser/client.ts';
import { ActionSchema, FetchBody, LogQuery, SnapshotQuery, StartBody, TabOpenBody, truthy } from '../../browser/types.ts';
import { parseInput } from '../validate.ts';

/** What the routes need from the client (a BrowserClient; narrower for tests). */
export type BrowserApi = Pick<
  BrowserClient,
  'start' | 'status' | 'snapshot' | 'act' | 'fetch' | 'tabs' | 'openTab' | 'switchTab' | 'closeTab' | 'console' | 'network'
>;

const TabParams = z.object({ id: z.string().regex(/^t\d{1,9}$/, 'a tab id looks like t1 (see GET /api/browser/tabs)') });

export function browserRoutes(deps: { client: BrowserApi }) {
  const { client } = deps;
  return (app: FastifyInstance): void => {
    app.post('/api/browser/start', async (req) => client.start(parseInput(StartBody, req.body, 'body')));

    app.get('/api/browser/status', async () => client.status());

    app.get('/api/browser/snapshot', async (req) => {
      const q = parseInput(SnapshotQuery, req.query, 'query');
      return client.snapshot({ diff: truthy(q.diff), ...(q.tab ? { tab: q.tab } : {}), ...(q.maxNodes ? { maxNodes: q.maxNodes } : {}) });
    });

    app.post('/api/browser/act', async (req) => client.act(parseInput(ActionSchema, req.body, 'body')));

    app.post('/api/browser/fetch', async (req) => client.fetch(parseInput(FetchBody, req.body, 'body')));

    app.get('/api/browser/tabs', async () => client.tabs());

    app.post('/api/browser/tabs', async (req, reply) => {
      const result = await client.openTab(parseInput(TabOpenBody, req.body, 'body'));
      reply.code(201);
      return result;
    });

    app.post('/api/browser/tabs/:id/switch', async (req) => client.switchTab(parseInput(TabParams, req.params, 'params').id));

    app.delete('/api/browser/tabs/:id', async (req) => client.closeTab(parseInput(TabParams, req.params, 'params').id));

    app.get('/api/browser/console', async (req) => {
      const q = parseInput(LogQuery, req.query, 'query');
      return client.console({ ...(q.tab ? { tab: q.tab } : {}), ...(q.limit ? { limit: q.limit } : {}), clear: truthy(q.clear) });
    });

    app.get('/api/browser/network', async (req) => {
      const q = parseInput(LogQuery, req.query, 'query');
      return client.network({ ...(q.tab ? { tab: q.tab } : {}), ...(q.limit ? { limit: q.limit } : {}), clear: truthy(q.clear) });
    });
  };
}
