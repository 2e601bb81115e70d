// The Markdown made from a server's route declarations for the docs: its route table (docs/api.md,
// docs/dashboard.md), and the
// table of which routes are open without the token (the trust model's), so neither can drift from
// what the guard reads.
import type { RouteDoc } from './routes.ts';

export function routeTable(docs: readonly RouteDoc[]): string {
  const rows = docs.map((d) => `| ${d.method} | \`${d.url}\` | ${d.summary.replace(/\|/g, '\\|')} |`);
  return ['| Method | Path | What it does |', '| --- | --- | --- |', ...rows, '', `${rows.length} routes.`].join('\n');
}

/**
 * Per server: the routes declared public, those that also take the token as `?token=`, and those a
 * capability in their body authorises instead of the token.
 */
export function accessTable(servers: readonly { name: string; docs: readonly RouteDoc[] }[]): string {
  const list = (docs: readonly RouteDoc[], access: RouteDoc['access']) =>
    docs.filter((d) => d.access === access).map((d) => `\`${d.method} ${d.url}\``).join(', ') || 'none';
  const rows = servers.map(({ name, docs }) => `| ${name} | ${list(docs, 'public')} | ${list(docs, 'token-or-query')} | ${list(docs, 'capability')} |`);
  return ['| server | open to anyone (no token) | also take the token as `?token=` | a single-use capability in the body instead of the token |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
