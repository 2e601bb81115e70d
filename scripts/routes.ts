// The generated sections of the documentation, from the servers' route declarations: the core's route
// table (docs/api.md), the manager's (docs/dashboard.md) and the table of public routes (the trust model's, in
// README.md). A test (test/http/openapi.test.ts) checks that the files still match them.
// `npm run routes` prints them; `npm run routes -- --write` puts each into the file that holds its block.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowserServer } from '../src/servers/browser.ts';
import { createCoreServer } from '../src/servers/core.ts';
import { createManagerServer } from '../src/servers/manager.ts';
import { accessTable, routeTable } from '../src/http/route-table.ts';
import { loadAllRoutes } from '../src/http/lazy-routes.ts';
import { tempHome } from '../test/support/server.ts';

type Block = 'routes' | 'dashboard-routes' | 'access';

/** Which file holds each generated block (paths from the repository root). */
const files: Record<Block, string> = {
  routes: 'docs/api.md',
  'dashboard-routes': 'docs/dashboard.md',
  access: 'README.md',
};

const core = await createCoreServer({ home: tempHome('svc-routes-'), logLevel: 'silent' });
const manager = await createManagerServer({ home: tempHome('svc-routes-'), scan: { from: 1, count: 0 }, logLevel: 'silent' });
const browser = await startBrowserServer({ port: 0, home: tempHome('svc-routes-') });
// the core's lazy groups document their routes once loaded
await loadAllRoutes(core.http);
const sections: Record<Block, string> = {
  routes: routeTable(core.http.routeDocs),
  'dashboard-routes': routeTable(manager.http.routeDocs),
  access: accessTable([
    { name: 'core (`svc serve`)', docs: core.http.routeDocs },
    { name: 'manager (`svc dashboard serve`)', docs: manager.http.routeDocs },
    { name: 'browser server (loopback only, no token)', docs: browser.app.routeDocs },
  ]),
};
await Promise.all([core.close(), manager.close(), browser.close()]);
const blocks = Object.entries(sections) as [Block, string][];

if (process.argv.includes('--write')) {
  for (const file of new Set(Object.values(files))) {
    const path = join(import.meta.dirname, '..', file);
    const before = readFileSync(path, 'utf8');
    let doc = before;
    for (const [name, text] of blocks) {
      if (files[name] !== file) continue;
      const block = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
      if (!block.test(doc)) throw new Error(`${file} has no <!-- ${name}:start --> … <!-- ${name}:end --> block`);
      doc = doc.replace(block, () => `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`);
    }
    if (doc !== before) writeFileSync(path, doc);
    console.log(`${file}: ${doc === before ? 'up to date' : 'written'}`);
  }
} else {
  for (const [name, text] of blocks) console.log(`<!-- ${name} (${files[name]}) -->\n${text}\n`);
}
