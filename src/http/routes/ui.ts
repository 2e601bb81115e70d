// The root page. Until the browser UI is built this is a small page saying how to use the API.
import type { RouteModule } from './index.ts';

const page = (version: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px}@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}code{background:#222}}</style>
</head><body><h1>svc ${version}</h1>
<p>The service is running. Its API is under <code>/api</code>; live events stream from <code>/api/events</code>.</p>
<p>Try <code>curl http://localhost:3457/api/health</code>.</p></body></html>`;

export const uiRoutes: RouteModule = (app, ctx) => {
  app.get('/', async (_request, reply) => {
    void reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache');
    return page(ctx.version);
  });
};
