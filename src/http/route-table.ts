// The Markdown route table of a server (the README's API section), from its route declarations.
import type { RouteDoc } from './routes.ts';

export function routeTable(docs: readonly RouteDoc[]): string {
  const rows = docs.map((d) => `| ${d.method} | \`${d.url}\` | ${d.summary.replace(/\|/g, '\\|')} |`);
  return ['| Method | Path | What it does |', '| --- | --- | --- |', ...rows, '', `${rows.length} routes.`].join('\n');
}
