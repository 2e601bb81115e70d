// Child process for bench/web-routing.ts: runs either the upstream server or the routing proxy, prints
// {"port": N} on stdout once listening, and exits when its stdin closes (so it never outlives the bench).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRoutingProxy } from '../src/modules/automation/web-routing/proxy.ts';
import { staticRules, type RuleInput } from '../src/modules/automation/web-routing/rules.ts';
import { benchRules } from './web-routing-rules.ts';

const role = process.argv[2];
const workUs = Number(process.argv[3] ?? 0);

function busy(us: number): void {
  if (us <= 0) return;
  const end = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < end);
}

async function main(): Promise<void> {
  if (role === 'upstream') {
    const body = JSON.stringify({ ok: true, items: Array.from({ length: 10 }, (_, i) => ({ id: i, name: `item ${i}` })) });
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        busy(workUs); // simulated handler work, to model a dev server that does something
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 30_000;
    server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
    process.stdin.on('close', () => process.exit(0)).resume();
    return;
  }
  if (role === 'proxy') {
    const rules: RuleInput[] = [
      ...benchRules(1000),
      // the request path of the "matched" scenario: a rewrite plus a request-header transform
      { type: 'rewrite', pattern: '/bench/matched/*', target: '/bench/rewritten/*' },
      { type: 'transform', pattern: '/bench/*', request: { setHeaders: { 'X-Bench': '1' } } },
    ];
    const proxy = await startRoutingProxy({ port: 0, host: '127.0.0.1', rules: staticRules(rules) });
    console.log(JSON.stringify({ port: proxy.port, rules: rules.length }));
    process.stdin.on('close', () => void proxy.close().then(() => process.exit(0))).resume();
    return;
  }
  if (role === 'bare-proxy') {
    // The floor: the smallest Node forward proxy (keep-alive agent, pipe both ways, no rules, no checks).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/');
      const up = http.request(
        { hostname: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: req.headers, agent },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
    process.stdin.on('close', () => process.exit(0)).resume();
    return;
  }
  throw new Error(`unknown role ${role}`);
}

void main();
