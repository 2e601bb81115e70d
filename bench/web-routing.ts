// web-routing benchmark. Prints one JSON document.
//   node --import tsx bench/web-routing.ts [--requests N] [--work-us U]
// 1. Proxy latency: sequential keep-alive requests from this process to an upstream server, directly and through
//    the routing proxy (1,000 rules loaded), interleaved in the same run. The upstream and the proxy each run in
//    their own process (as in real use: svc serve, a dev server, a client). Two upstreams: one that answers at once
//    (the worst case for a ratio: the proxy's own hop is all there is) and one that spends U µs (default 1000) per
//    request, like a dev-server handler. Scenarios: a request no rule matches, and one that a rewrite + transform match.
//    For scale, the same requests also go through the smallest possible Node forward proxy (no rules at all): the
//    floor of any proxy hop written on node:http.
// 2. Matching throughput: RuleSet.plan() over 1,000 rules for a mix of requests (pre-parsed, and with URL parsing),
//    plus two adversarial sets where all 1,000 rules share one path prefix (told apart by a later literal segment;
//    by a header constraint only).
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { toMatchRequest } from '../src/modules/automation/web-routing/pattern.ts';
import { staticRules, type RuleInput } from '../src/modules/automation/web-routing/rules.ts';
import { benchRules, benchUrls } from './web-routing-rules.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const REQUESTS = opt('--requests', 4000);
const WORK_US = opt('--work-us', 1000);
const here = dirname(fileURLToPath(import.meta.url));
const children: ChildProcess[] = [];

function startChild(...childArgs: string[]): Promise<{ port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'web-routing-child.ts'), ...childArgs], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
    child.once('exit', (code) => reject(new Error(`child ${childArgs.join(' ')} exited ${code}`)));
  });
}

function stopChildren(): void {
  for (const c of children) {
    c.stdin?.end();
    setTimeout(() => c.exitCode === null && c.kill(), 2000).unref();
  }
}

const agentDirect = new http.Agent({ keepAlive: true, maxSockets: 1 });
const agentProxy = new http.Agent({ keepAlive: true, maxSockets: 1 });
const agentBare = new http.Agent({ keepAlive: true, maxSockets: 1 });

function once(agent: http.Agent, port: number, path: string, host: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent, headers: { host } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode} for ${path}`));
        else resolve(Number(process.hrtime.bigint() - t0) / 1000);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function latency(upPort: number, proxyPort: number, barePort: number, directPath: string, proxiedPath: string) {
  const host = `127.0.0.1:${upPort}`;
  const absolute = `http://${host}${proxiedPath}`;
  const absoluteBare = `http://${host}${directPath}`;
  const sides = [
    { name: 'direct', run: () => once(agentDirect, upPort, directPath, host), xs: [] as number[] },
    { name: 'proxy', run: () => once(agentProxy, proxyPort, absolute, host), xs: [] as number[] },
    { name: 'bare', run: () => once(agentBare, barePort, absoluteBare, host), xs: [] as number[] },
  ];
  for (let i = 0; i < 1000; i++) for (const s of sides) await s.run();
  for (let i = 0; i < REQUESTS; i++) {
    // rotate the order so no side always goes first
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(i + k) % sides.length]!;
      s.xs.push(await s.run());
    }
  }
  const [direct, proxied, bare] = sides.map((s) => s.xs) as [number[], number[], number[]];
  const d50 = pct(direct, 50), d99 = pct(direct, 99), p50 = pct(proxied, 50), p99 = pct(proxied, 99);
  const b50 = pct(bare, 50), b99 = pct(bare, 99);
  return {
    direct_us: { p50: round(d50), p99: round(d99) },
    proxy_us: { p50: round(p50), p99: round(p99) },
    ratio: { p50: round(p50 / d50, 2), p99: round(p99 / d99, 2) },
    added_us: { p50: round(p50 - d50), p99: round(p99 - d99) },
    bare_node_proxy_us: { p50: round(b50), p99: round(b99) },
    vs_bare_node_proxy: { p50: round(p50 / b50, 2), p99: round(p99 / b99, 2) },
  };
}

function throughput(rules: RuleInput[], reqs: ReturnType<typeof benchUrls>, withParse: boolean) {
  const set = staticRules(rules).current();
  const parsed = reqs.map((r) => toMatchRequest(r.method, r.url, r.headers));
  let sink = 0;
  const run = (n: number) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const r = withParse ? toMatchRequest(reqs[i % reqs.length]!.method, reqs[i % reqs.length]!.url, reqs[i % reqs.length]!.headers) : parsed[i % parsed.length]!;
      sink += set.plan(r).applied.length;
    }
    return Number(process.hrtime.bigint() - t0) / 1e9;
  };
  run(100_000); // warm up
  const n = 1_000_000;
  const secs = run(n);
  const matched = parsed.filter((r) => set.plan(r).action !== 'pass').length / parsed.length;
  return { rules: set.size, matches_per_s: Math.round(n / secs), ns_per_match: round((secs * 1e9) / n), share_of_requests_matched: round(matched, 2), sink };
}

async function main(): Promise<void> {
  const rules = benchRules(1000);
  const reqs = benchUrls(10_000);
  const adversarial: RuleInput[] = Array.from({ length: 1000 }, (_, i) => ({
    type: 'mock' as const,
    pattern: `/api/*/x${i}/:id`,
    body: { i },
  }));
  const advReqs = Array.from({ length: 1000 }, (_, i) => ({ method: 'GET', url: `http://h/api/a/b/x${i}/7`, headers: {} }));
  const byHeader: RuleInput[] = Array.from({ length: 1000 }, (_, i) => ({
    type: 'mock' as const,
    pattern: `GET /api/* [X-Tenant: t${i}]`,
    body: { i },
  }));
  const headerReqs = Array.from({ length: 1000 }, (_, i) => ({ method: 'GET', url: `http://h/api/a/${i}`, headers: { 'x-tenant': `t${i}` } }));
  const matching = {
    mixed_preparsed: throughput(rules, reqs, false),
    mixed_with_url_parsing: throughput(rules, reqs, true),
    adversarial_same_prefix_distinct_segment: throughput(adversarial, advReqs, false),
    adversarial_same_pattern_distinct_header: throughput(byHeader, headerReqs, false),
  };

  const fast = await startChild('upstream', '0');
  const slow = await startChild('upstream', String(WORK_US));
  const proxy = await startChild('proxy');
  const bare = await startChild('bare-proxy');
  const proxyLatency = {
    instant_upstream: {
      no_rule_matches: await latency(fast.port, proxy.port, bare.port, '/bench/plain', '/bench/plain'),
      rewrite_and_transform: await latency(fast.port, proxy.port, bare.port, '/bench/rewritten/x', '/bench/matched/x'),
    },
    [`upstream_${WORK_US}us_work`]: {
      no_rule_matches: await latency(slow.port, proxy.port, bare.port, '/bench/plain', '/bench/plain'),
      rewrite_and_transform: await latency(slow.port, proxy.port, bare.port, '/bench/rewritten/x', '/bench/matched/x'),
    },
  };
  stopChildren();
  agentDirect.destroy();
  agentProxy.destroy();
  agentBare.destroy();
  console.log(
    JSON.stringify(
      {
        bench: 'web-routing',
        node: process.version,
        requests_per_side: REQUESTS,
        targets: { proxy_latency_ratio_max: 1.2, matches_per_s_min: 100_000 },
        matching,
        proxy_latency: proxyLatency,
      },
      null,
      2,
    ),
  );
}

main().catch((e) => {
  stopChildren();
  console.error(e);
  process.exit(1);
});
