import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { toMatchRequest } from '../../../../src/modules/automation/web-routing/pattern.ts';
import {
  applyHeaderOps,
  applyReplacements,
  compileRuleSet,
  normalizeRuleSpec,
  staticRules,
  type Plan,
  type Rule,
  type RuleInput,
} from '../../../../src/modules/automation/web-routing/rules.ts';

const plan = (rules: RuleInput[], method: string, url: string, headers: Record<string, string> = {}): Plan =>
  staticRules(rules).current().plan(toMatchRequest(method, url, headers));

const rejects = (input: unknown, code: string, message: RegExp) =>
  assert.throws(
    () => normalizeRuleSpec(input),
    (e: unknown) => e instanceof AppError && e.status === 400 && e.code === code && message.test(e.message),
    `${JSON.stringify(input)} → ${code} ${message}`,
  );

test('no rule, or no matching rule: pass', () => {
  assert.equal(plan([], 'GET', 'http://h/x').action, 'pass');
  assert.equal(plan([{ type: 'block', pattern: '/y' }], 'GET', 'http://h/x').action, 'pass');
});

test('more specific terminal rule wins: method/header constraints first', () => {
  const rules: RuleInput[] = [
    { type: 'block', pattern: '/api/users/42' },
    { type: 'mock', pattern: 'GET /api/*', body: { from: 'method rule' } },
    { type: 'mock', pattern: 'GET /api/* [X-Env: test]', body: { from: 'method+header rule' } },
  ];
  const a = plan(rules, 'GET', 'http://h/api/users/42');
  assert.equal(a.action, 'mock');
  assert.equal(a.action === 'mock' && a.body(), '{"from":"method rule"}');
  const b = plan(rules, 'GET', 'http://h/api/users/42', { 'x-env': 'test' });
  assert.equal(b.action === 'mock' && b.body(), '{"from":"method+header rule"}');
  const c = plan(rules, 'DELETE', 'http://h/api/users/42');
  assert.equal(c.action, 'block');
});

test('fewer wildcards, then fewer captures, then longer literal, then most recent', () => {
  const rules: RuleInput[] = [
    { type: 'mock', pattern: '/api/*', body: 'wild' },
    { type: 'mock', pattern: '/api/users/:id', body: 'capture' },
    { type: 'mock', pattern: '/api/users/me', body: 'literal' },
    { type: 'mock', pattern: '/api/:a/:b', body: 'two captures' },
  ];
  const body = (url: string) => {
    const p = plan(rules, 'GET', url);
    return p.action === 'mock' ? JSON.parse(p.body()) : p.action;
  };
  assert.equal(body('http://h/api/users/me'), 'literal');
  assert.equal(body('http://h/api/users/7'), 'capture');
  assert.equal(body('http://h/api/teams/7'), 'two captures');
  assert.equal(body('http://h/api/a/b/c'), 'wild');
  // equal specificity: the later rule (higher id) wins
  const tie: RuleInput[] = [
    { type: 'mock', pattern: '/x/*', body: 'first' },
    { type: 'mock', pattern: '/x/*', body: 'second' },
  ];
  const p = plan(tie, 'GET', 'http://h/x/1');
  assert.equal(p.action === 'mock' && p.body(), '"second"');
});

test('terminal rules win over rewrites and transforms, even more specific ones', () => {
  const p = plan(
    [
      { type: 'block', pattern: '/api/*' },
      { type: 'rewrite', pattern: 'GET /api/v1/users [X: 1]', target: '/api/v2/users' },
      { type: 'transform', pattern: '/api/v1/users', request: { setHeaders: { 'X-A': '1' } } },
    ],
    'GET',
    'http://h/api/v1/users',
    { x: '1' },
  );
  assert.equal(p.action, 'block');
  assert.deepEqual(p.applied.map((a) => a.type), ['block']);
});

test('rewrite then transforms stack; the most specific transform has the last word', () => {
  const p = plan(
    [
      { type: 'rewrite', pattern: '/old/*', target: '/new/*' },
      { type: 'rewrite', pattern: '/old/special', target: '/special-new' },
      { type: 'transform', pattern: '/*', request: { setHeaders: { 'X-Who': 'generic', 'X-Generic': 'yes' } } },
      { type: 'transform', pattern: '/old/*', request: { setHeaders: { 'X-Who': 'specific' }, removeHeaders: ['X-Generic'] } },
      { type: 'transform', pattern: '/old/*', response: { setHeaders: { 'X-Out': '1' }, replace: [{ from: 'a', to: 'b' }] } },
    ],
    'GET',
    'http://h:81/old/special?q=1',
    { 'x-generic': 'client' },
  );
  assert.equal(p.action, 'forward');
  if (p.action !== 'forward') return;
  assert.equal(p.url, 'http://h:81/special-new?q=1');
  assert.deepEqual(p.applied.map((a) => `${a.type}#${a.id}`), ['rewrite#2', 'transform#3', 'transform#4', 'transform#5']);
  const out = applyHeaderOps({ accept: '*/*', 'x-generic': 'client' }, p.request.headerOps);
  assert.deepEqual(out, { accept: '*/*', 'x-who': 'specific' });
  assert.deepEqual(p.response.replace, [{ from: 'a', to: 'b' }]);
  assert.deepEqual(applyHeaderOps({}, p.response.headerOps), { 'x-out': '1' });
});

test('rewrite targets: :name and * substitution, query kept unless the target has one, absolute URLs', () => {
  const url = (target: string, pattern: string, req: string) => {
    const p = plan([{ type: 'rewrite', pattern, target }], 'GET', req);
    return p.action === 'forward' ? p.url : p.action;
  };
  assert.equal(url('/v2/users/:id', '/v1/users/:id', 'http://h/v1/users/5?x=1'), 'http://h/v2/users/5?x=1');
  assert.equal(url('/new/*', '/old/*', 'http://h/old/a/b'), 'http://h/new/a/b');
  assert.equal(url('/b/*/x/*', '/a/*/y/*', 'http://h/a/1/y/2/3'), 'http://h/b/1/x/2/3');
  assert.equal(url('/s?fixed=1', '/q', 'http://h/q?drop=1'), 'http://h/s?fixed=1');
  assert.equal(url('http://127.0.0.1:9000/api/*', 'https://app.test/api/*', 'https://app.test/api/x?y=1'), 'http://127.0.0.1:9000/api/x?y=1');
  assert.equal(url('/lit\\*/:id', '/x/:id', 'http://h/x/3'), 'http://h/lit*/3');
  const r = plan([{ type: 'redirect', pattern: '/go/:slug', target: 'https://docs.example.com/:slug' }], 'GET', 'http://h/go/intro');
  assert.equal(r.action === 'redirect' && r.location, 'https://docs.example.com/intro');
  assert.equal(r.action === 'redirect' && r.status, 302);
});

test('block answers a JSON error naming the rule, with CORS for the page origin', () => {
  const p = plan([{ type: 'block', pattern: '*.ads.test' }], 'GET', 'https://x.ads.test/pixel.gif', { origin: 'https://site.test' });
  assert.equal(p.action, 'block');
  if (p.action !== 'block') return;
  assert.equal(p.status, 403);
  assert.deepEqual(JSON.parse(p.body), {
    error: 'BLOCKED_BY_RULE',
    message: 'Blocked by web-routing rule 1 (block *.ads.test/*).',
    rule: { id: 1, pattern: '*.ads.test/*' },
    url: 'https://x.ads.test/pixel.gif',
  });
  assert.equal(p.headers['access-control-allow-origin'], 'https://site.test');
  const custom = plan([{ type: 'block', pattern: '/x', status: 451, message: 'nope' }], 'GET', 'http://h/x');
  assert.equal(custom.action === 'block' && custom.status, 451);
  assert.equal(custom.action === 'block' && JSON.parse(custom.body).message, 'nope');
});

test('mock templates: params, query, headers, method, body, typed whole-string values', () => {
  const p = plan(
    [
      {
        type: 'mock',
        pattern: 'POST /api/users/:id',
        status: 201,
        headers: { 'X-User': 'u-{{params.id}}' },
        body: {
          id: '{{params.id|number}}',
          idText: '{{params.id}}',
          label: 'user {{params.id}} via {{method}} {{path}}',
          page: '{{query.page}}',
          missing: '{{query.nope}}',
          missingText: 'x{{query.nope}}y',
          agent: '{{headers.X-Agent}}',
          name: '{{body.user.name}}',
          user: '{{body.user}}',
          tags: ['{{body.tags.0}}', 1, true, null],
        },
      },
    ],
    'POST',
    'http://h/api/users/42?page=3',
    { 'x-agent': 'tester' },
  );
  assert.equal(p.action, 'mock');
  if (p.action !== 'mock') return;
  assert.equal(p.status, 201);
  assert.equal(p.needsRequestBody, true);
  assert.equal(p.headers['x-user'], 'u-42');
  assert.deepEqual(JSON.parse(p.body(JSON.stringify({ user: { name: 'Ada', admin: true }, tags: ['a', 'b'] }))), {
    id: 42,
    idText: '42',
    label: 'user 42 via POST /api/users/42',
    page: '3',
    missing: null,
    missingText: 'xy',
    agent: 'tester',
    name: 'Ada',
    user: { name: 'Ada', admin: true },
    tags: ['a', 1, true, null],
  });
  // a non-JSON request body is available as text
  const q = plan([{ type: 'mock', pattern: 'POST /echo', body: { got: '{{body}}' } }], 'POST', 'http://h/echo');
  assert.equal(q.action === 'mock' && q.body('plain text'), '{"got":"plain text"}');
  // static mock: no request body needed, body fixed
  const s = plan([{ type: 'mock', pattern: '/s', body: [1, 2] }], 'GET', 'http://h/s');
  assert.equal(s.action === 'mock' && s.needsRequestBody, false);
  assert.equal(s.action === 'mock' && s.body(), '[1,2]');
});

test('validation: bad rules get 400 with a stable code naming the problem', () => {
  rejects({ pattern: '/x' }, 'INVALID_RULE', /needs "type"/);
  rejects({ type: 'teleport', pattern: '/x' }, 'INVALID_RULE', /needs "type"/);
  rejects({ type: 'block' }, 'INVALID_RULE', /pattern/);
  rejects({ type: 'block', pattern: '/x', extra: 1 }, 'INVALID_RULE', /extra|Unrecognized/i);
  rejects({ type: 'block', pattern: 'nope' }, 'INVALID_PATTERN', /'nope'/);
  rejects({ type: 'block', pattern: '/x', status: 200 }, 'INVALID_STATUS', /400-599/);
  rejects({ type: 'redirect', pattern: '/x', target: '/y', status: 200 }, 'INVALID_STATUS', /301, 302/);
  rejects({ type: 'redirect', pattern: '/x', target: 'ftp://h/y' }, 'INVALID_TARGET', /only http/);
  rejects({ type: 'redirect', pattern: '/x', target: 'example.com/y' }, 'INVALID_TARGET', /absolute URL/);
  rejects({ type: 'rewrite', pattern: '/x/:id', target: '/y/:name' }, 'INVALID_TARGET', /no ':name' capture \(it has :id\)/);
  rejects({ type: 'rewrite', pattern: '/x', target: '/y/*' }, 'INVALID_TARGET', /pattern has no '\*'/);
  rejects({ type: 'rewrite', pattern: '/x/*', target: '/y/*/*' }, 'INVALID_TARGET', /more '\*' than the pattern/);
  rejects({ type: 'mock', pattern: '/x' }, 'INVALID_MOCK_BODY', /needs a JSON "body"/);
  rejects({ type: 'mock', pattern: '/x/:id', body: { a: '{{params.uid}}' } }, 'INVALID_MOCK_BODY', /no ':uid' capture/);
  rejects({ type: 'mock', pattern: '/x', body: { a: '{{cookies.x}}' } }, 'INVALID_MOCK_BODY', /unknown variable 'cookies'/);
  rejects({ type: 'mock', pattern: '/x', body: '{{query.a|upper}}' }, 'INVALID_MOCK_BODY', /Unknown template filter 'upper'/);
  rejects({ type: 'mock', pattern: '/x', body: 1, status: 99 }, 'INVALID_STATUS', /200-599/);
  rejects({ type: 'mock', pattern: '/x', body: 1, headers: { 'Bad Name': 'v' } }, 'INVALID_HEADER', /not a valid header name/);
  rejects({ type: 'transform', pattern: '/x' }, 'INVALID_TRANSFORM', /must change something/);
  rejects({ type: 'transform', pattern: '/x', request: { setHeaders: { 'Content-Length': '1' } } }, 'INVALID_HEADER', /managed by the proxy/);
  rejects({ type: 'transform', pattern: '/x', request: { setHeaders: { 'X-A': 'a\r\nX-B: b' } } }, 'INVALID_HEADER', /line break/);
  rejects({ type: 'transform', pattern: '/x', response: { setHeaders: { 'X-A': '{{body.a}}' } } }, 'INVALID_HEADER', /only in mock bodies/);
});

test('normalization fills defaults and canonicalizes the pattern', () => {
  assert.deepEqual(normalizeRuleSpec({ type: 'redirect', pattern: 'get  /a', target: '/b' }), {
    type: 'redirect',
    pattern: 'GET /a',
    target: '/b',
    status: 302,
  });
  assert.deepEqual(normalizeRuleSpec({ type: 'block', pattern: 'HTTPS://X.Test' }), { type: 'block', pattern: 'https://x.test/*', status: 403 });
});

test('a stored rule that no longer compiles is skipped, not fatal', () => {
  const good: Rule = { type: 'block', pattern: '/ok', status: 403, id: 1, createdAt: '' };
  const bad = { type: 'block', pattern: 'not a pattern', status: 403, id: 2, createdAt: '' } as Rule;
  const skipped: number[] = [];
  const set = compileRuleSet([good, bad], (r) => skipped.push(r.id));
  assert.deepEqual(skipped, [2]);
  assert.equal(set.size, 1);
  assert.equal(set.plan(toMatchRequest('GET', 'http://h/ok')).action, 'block');
});

test('index: host buckets and literal-segment trie return the same answers as a linear scan', () => {
  const rules: RuleInput[] = [];
  for (let i = 0; i < 200; i++) {
    rules.push({ type: 'mock', pattern: `GET /svc${i % 20}/items/:id`, body: i });
    rules.push({ type: 'block', pattern: `https://h${i % 7}.test/svc${i % 20}/*` });
    rules.push({ type: 'transform', pattern: `*.d${i % 5}.test/svc${i % 20}/*`, request: { setHeaders: { 'X-I': String(i) } } });
    rules.push({ type: 'rewrite', pattern: `/*/x${i % 3}`, target: `/y${i}` });
    rules.push({ type: 'transform', pattern: `/svc${i % 20}/*/deep${i % 4}/:id`, response: { setHeaders: { 'X-D': String(i) } } });
    rules.push({ type: 'mock', pattern: `/svc${i % 20}/* [X-T: v${i % 6}] [X-U]`, body: i });
    rules.push({ type: 'transform', pattern: `/svc${i % 20}/* [X-T: v${i % 6}*]`, request: { removeHeaders: ['X-T'] } });
  }
  const source = staticRules(rules);
  const set = source.current();
  const urls = [
    'http://a.test/svc3/items/9',
    'https://h2.test/svc9/items/1',
    'https://h2.test/svc9/other',
    'http://q.d4.test/svc4/z',
    'http://d4.test/svc4/z',
    'http://z.test/any/x2',
    'http://z.test/nothing',
    'http://z.test/svc3/a/b/deep3/9',
    'http://z.test/svc3/deep3/deep3/9',
    'http://z.test/svc3/a/deep3/9/',
  ];
  const headerSets: Array<Record<string, string | string[]>> = [{}, { 'x-t': 'v3' }, { 'x-t': 'v3', 'x-u': '1' }, { 'x-t': ['v9', 'v2'], 'x-u': '' }, { 'x-t': 'v30' }];
  for (const u of urls) {
    for (const [m, h] of ['GET', 'POST'].flatMap((m) => headerSets.map((h) => [m, h] as const))) {
      const req = toMatchRequest(m, u, h);
      const linear = set.compiled.filter((c) => c.pattern.match(req)).map((c) => c.rule.id);
      const indexed = set.matchAll(req).map((x) => x.rule.id);
      assert.deepEqual(indexed, linear, `${m} ${u} ${JSON.stringify(h)}`);
    }
  }
});

test('replacements and header ops are plain functions', () => {
  assert.equal(applyReplacements('a-a-b', [{ from: 'a', to: 'c' }, { from: 'c-b', to: 'X' }]), 'c-X');
  assert.deepEqual(applyHeaderOps({ 'X-A': '1', b: '2' }, [{ op: 'remove', name: 'x-a' }, { op: 'set', name: 'c', value: '3' }]), { b: '2', c: '3' });
});
