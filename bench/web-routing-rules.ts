// A synthetic but varied rule set for the web-routing benchmarks: every pattern form (methods, hosts, subdomain
// wildcards, captures, globs, header constraints) and every rule type, spread over many path prefixes.
import type { RuleInput } from '../src/modules/automation/web-routing/rules.ts';

export function benchRules(n: number): RuleInput[] {
  const rules: RuleInput[] = [];
  for (let i = 0; i < n; i++) {
    const svc = `svc${i % 50}`;
    switch (i % 10) {
      case 0:
        rules.push({ type: 'mock', pattern: `GET /${svc}/users/:id/r${i}`, body: { id: '{{params.id}}', i } });
        break;
      case 1:
        rules.push({ type: 'block', pattern: `https://h${i}.tracker.test/*` });
        break;
      case 2:
        rules.push({ type: 'block', pattern: `*.ads${i}.test` });
        break;
      case 3:
        rules.push({ type: 'rewrite', pattern: `/${svc}/v1/r${i}/*`, target: `/${svc}/v2/r${i}/*` });
        break;
      case 4:
        rules.push({ type: 'redirect', pattern: `/${svc}/old${i}`, target: `/${svc}/new${i}` });
        break;
      case 5:
        rules.push({ type: 'transform', pattern: `POST /${svc}/items/:id [X-Tenant: t${i}]`, request: { setHeaders: { 'X-R': String(i) } } });
        break;
      case 6:
        rules.push({ type: 'mock', pattern: `api${i}.example.test/${svc}/*`, body: { i } });
        break;
      case 7:
        rules.push({ type: 'transform', pattern: `/${svc}/static/*.js`, response: { setHeaders: { 'Cache-Control': 'no-store' } } });
        break;
      case 8:
        rules.push({ type: 'block', pattern: `DELETE /${svc}/admin/*` });
        break;
      case 9:
        rules.push({ type: 'mock', pattern: `GET /${svc}/files/:name.json`, body: { name: '{{params.name}}' } });
        break;
    }
  }
  return rules;
}

/** Request URLs for the matching benchmark: some hit rules, most are ordinary traffic that matches none. */
export function benchUrls(n: number): Array<{ method: string; url: string; headers: Record<string, string> }> {
  const out: Array<{ method: string; url: string; headers: Record<string, string> }> = [];
  for (let i = 0; i < n; i++) {
    const svc = `svc${i % 50}`;
    const pick = i % 8;
    const url =
      pick === 0 ? `http://localhost:5173/${svc}/users/${i}/r${i % 1000}`
      : pick === 1 ? `https://h${i % 1000}.tracker.test/pixel?i=${i}`
      : pick === 2 ? `https://cdn.ads${i % 1000}.test/banner.js`
      : pick === 3 ? `http://localhost:5173/${svc}/static/app.${i}.js`
      : pick === 4 ? `http://localhost:5173/${svc}/files/report${i}.json`
      : pick === 5 ? `http://api${i % 1000}.example.test/${svc}/list`
      : pick === 6 ? `http://localhost:5173/${svc}/items/${i}`
      : `http://localhost:5173/app/page/${i}?q=${i}`;
    out.push({ method: pick === 6 ? 'POST' : 'GET', url, headers: pick === 6 ? { 'x-tenant': `t${i % 1000}` } : { accept: '*/*' } });
  }
  return out;
}
