// Prints a server's routes as a Markdown table, from its OpenAPI document (GET /api/openapi.json):
// the README's API sections are made from it, and a test checks that the README still matches.
// `npm run routes` (the core server), `npm run routes -- --manager` (the manager dashboard).
import { createCoreServer } from '../src/servers/core.ts';
import { createManagerServer } from '../src/servers/manager.ts';
import { routeTable } from '../src/http/route-table.ts';
import { tempHome } from '../test/support/server.ts';

if (process.argv.includes('--manager')) {
  const manager = await createManagerServer({ home: tempHome('svc-routes-'), scan: { from: 1, count: 0 }, logLevel: 'silent' });
  console.log(routeTable(manager.http.routeDocs));
  await manager.close();
} else {
  const server = await createCoreServer({ home: tempHome('svc-routes-'), logLevel: 'silent' });
  console.log(routeTable(server.http.routeDocs));
  await server.close();
}
