// Prints the core server's routes as a Markdown table, from its OpenAPI document (GET
// /api/openapi.json): the README's API section is made from it, and a test checks that the README
// still matches. `npm run routes`.
import { createCoreServer } from '../src/servers/core.ts';
import { routeTable } from '../src/http/route-table.ts';
import { tempHome } from '../test/support/server.ts';

const server = await createCoreServer({ home: tempHome('svc-routes-'), logLevel: 'silent' });
console.log(routeTable(server.http.routeDocs));
await server.close();
