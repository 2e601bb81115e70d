// Prints the server's route list as a Markdown table (the README's API section is made from it).
import { createApp } from '../src/app.ts';
import { tempHome } from '../test/support/server.ts';

const app = await createApp({ home: tempHome('svc-routes-'), logLevel: 'silent' });
const rows = app.http.routeTable.map((r) => `| ${r.method} | \`${r.url}\` |`);
console.log(['| Method | Path |', '| --- | --- |', ...rows].join('\n'));
console.log(`\n${rows.length} route handlers.`);
await app.close();
