// The README's generated sections, from the servers' route declarations: the core's and the
// manager's route tables and the table of public routes (the trust model's). A test checks that the
// README still matches them.
// `npm run routes` prints them; `npm run routes -- --write` puts them into README.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowserServer } from '../src/servers/browser.ts';
import { createCoreServer } from '../src/servers/core.ts';
import { createManagerServer } from '../src/servers/manager.ts';
import { accessTable, routeTable } from '../src/http/route-table.ts';
import { tempHome } from '../test/support/server.ts';

const core = await createCoreServer({ home: tempHome('svc-routes-'), logLevel: 'silent' });
const manager = await createManagerServer({ home: tempHome('svc-routes-'), scan: { from: 1, count: 0 }, logLevel: 'silent' });
const browser = await startBrowserServer({ port: 0, home: tempHome('svc-routes-') });
const sections: Record<string, string> = {
  routes: routeTable(core.http.routeDocs),
  'dashboard-routes': routeTable(manager.http.routeDocs),
  access: accessTable([
    { name: 'core (`svc serve`)', docs: core.http.routeDocs },
    { name: 'manager (`svc dashboard serve`)', docs: manager.http.routeDocs },
    { name: 'browser server (loopback only, no token)', docs: browser.app.routeDocs },
  ]),
};
await Promise.all([core.close(), manager.close(), browser.close()]);

if (process.argv.includes('--write')) {
  const file = join(import.meta.dirname, '..', 'README.md');
  let readme = readFileSync(file, 'utf8');
  for (const [name, text] of Object.entries(sections)) {
    const block = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
    if (!block.test(readme)) throw new Error(`README.md has no <!-- ${name}:start --> … <!-- ${name}:end --> block`);
    readme = readme.replace(block, () => `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`);
  }
  writeFileSync(file, readme);
} else {
  for (const [name, text] of Object.entries(sections)) console.log(`<!-- ${name} -->\n${text}\n`);
}
