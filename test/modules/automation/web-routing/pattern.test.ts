import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { compilePattern, compareSpecificity, toMatchRequest } from '../../../../src/modules/automation/web-routing/pattern.ts';

type Row = [pattern: string, method: string, url: string, headers: Record<string, string>, expected: Record<string, string> | null];

// expected: null = no match; otherwise the captured params (wildcards checked separately below)
const rows: Row[] = [
  // literal paths, trailing slash, anchoring
  ['/api/users', 'GET', 'http://h/api/users', {}, {}],
  ['/api/users', 'GET', 'http://h/api/users/', {}, {}],
  ['/api/users', 'GET', 'http://h/api/users/1', {}, null],
  ['/api/users', 'GET', 'http://h/api/user', {}, null],
  ['/api/users', 'GET', 'http://h/v1/api/users', {}, null],
  ['/api/users/', 'GET', 'http://h/api/users', {}, null],
  ['/', 'GET', 'http://h/', {}, {}],
  ['/', 'GET', 'http://h/x', {}, null],
  // query strings are ignored by the path match
  ['/api/users', 'GET', 'http://h/api/users?page=2&x=%2F', {}, {}],
  ['/search/*', 'GET', 'http://h/search/?q=a/b', {}, {}],
  // path case is significant
  ['/API/users', 'GET', 'http://h/api/users', {}, null],
  ['/api/Users', 'GET', 'http://h/api/Users', {}, {}],
  // glob *
  ['/api/*', 'GET', 'http://h/api/a/b/c', {}, {}],
  ['/api/*', 'GET', 'http://h/api/', {}, {}],
  ['/api/*', 'GET', 'http://h/api', {}, null],
  ['/api*', 'GET', 'http://h/api', {}, {}],
  ['/api*', 'GET', 'http://h/apis/x', {}, {}],
  ['/*.js', 'GET', 'http://h/static/app.js', {}, {}],
  ['/*.js', 'GET', 'http://h/static/app.css', {}, null],
  ['/a/*/c', 'GET', 'http://h/a/b/c', {}, {}],
  ['/a/*/c', 'GET', 'http://h/a/b/x/c', {}, {}],
  ['/a/*/c', 'GET', 'http://h/a/b/d', {}, null],
  ['/a/**', 'GET', 'http://h/a/b/c', {}, {}],
  ['/literal\\*star', 'GET', 'http://h/literal*star', {}, {}],
  ['/literal\\*star', 'GET', 'http://h/literalXstar', {}, null],
  // :name captures
  ['/api/users/:id', 'GET', 'http://h/api/users/42', {}, { id: '42' }],
  ['/api/users/:id', 'GET', 'http://h/api/users/42/', {}, { id: '42' }],
  ['/api/users/:id', 'GET', 'http://h/api/users/42/posts', {}, null],
  ['/api/users/:id', 'GET', 'http://h/api/users/', {}, null],
  ['/api/users/:id', 'GET', 'http://h/api/users/a%20b', {}, { id: 'a b' }],
  ['/u/:uid/p/:pid', 'GET', 'http://h/u/7/p/9', {}, { uid: '7', pid: '9' }],
  ['/files/:name.json', 'GET', 'http://h/files/report.json', {}, { name: 'report' }],
  ['/files/:name.json', 'GET', 'http://h/files/report.xml', {}, null],
  ['/t/:time\\:00', 'GET', 'http://h/t/12:00', {}, { time: '12' }],
  // method
  ['GET /api/x', 'GET', 'http://h/api/x', {}, {}],
  ['GET /api/x', 'POST', 'http://h/api/x', {}, null],
  ['post /api/x', 'POST', 'http://h/api/x', {}, {}],
  ['POST /api/x', 'post', 'http://h/api/x', {}, {}],
  ['ANY /api/x', 'DELETE', 'http://h/api/x', {}, {}],
  ['* /api/x', 'PATCH', 'http://h/api/x', {}, {}],
  // header constraints
  ['/api/* [X-Test: 1]', 'GET', 'http://h/api/a', { 'x-test': '1' }, {}],
  ['/api/* [X-Test: 1]', 'GET', 'http://h/api/a', { 'X-TEST': '1' }, {}],
  ['/api/* [x-test: 1]', 'GET', 'http://h/api/a', { 'x-test': '2' }, null],
  ['/api/* [X-Test: 1]', 'GET', 'http://h/api/a', {}, null],
  ['/api/* [X-Test: abc]', 'GET', 'http://h/api/a', { 'x-test': 'ABC' }, null],
  ['/api/* [Accept: *json*]', 'GET', 'http://h/api/a', { accept: 'application/json, text/plain' }, {}],
  ['/api/* [Accept: *json*]', 'GET', 'http://h/api/a', { accept: 'text/html' }, null],
  ['/api/* [Authorization]', 'GET', 'http://h/api/a', { authorization: 'Bearer x' }, {}],
  ['/api/* [Authorization]', 'GET', 'http://h/api/a', {}, null],
  ['GET /api/* [A: 1] [B: 2]', 'GET', 'http://h/api/a', { a: '1', b: '2' }, {}],
  ['GET /api/* [A: 1] [B: 2]', 'GET', 'http://h/api/a', { a: '1' }, null],
  // full URLs: host, subdomain wildcard, scheme, port
  ['https://*.example.com/api/*', 'GET', 'https://a.example.com/api/x', {}, {}],
  ['https://*.example.com/api/*', 'GET', 'https://a.b.example.com/api/x', {}, {}],
  ['https://*.example.com/api/*', 'GET', 'https://example.com/api/x', {}, null],
  ['https://*.example.com/api/*', 'GET', 'https://badexample.com/api/x', {}, null],
  ['https://*.example.com/api/*', 'GET', 'http://a.example.com/api/x', {}, null],
  ['https://*.example.com/api/*', 'GET', 'https://a.example.com/other', {}, null],
  ['https://API.Example.com/x', 'GET', 'https://api.example.com/x', {}, {}],
  ['*://example.com/x', 'GET', 'http://example.com/x', {}, {}],
  ['*://example.com/x', 'GET', 'https://example.com/x', {}, {}],
  ['http://localhost/x', 'GET', 'http://localhost:5173/x', {}, {}],
  ['http://localhost:5173/x', 'GET', 'http://localhost:5173/x', {}, {}],
  ['http://localhost:5173/x', 'GET', 'http://localhost:8080/x', {}, null],
  ['http://example.com:80/x', 'GET', 'http://example.com/x', {}, {}],
  ['http://example.com', 'GET', 'http://example.com/any/path', {}, {}],
  ['http://127.0.0.1:8080/api/:v', 'GET', 'http://127.0.0.1:8080/api/3', {}, { v: '3' }],
  ['http://[::1]:8080/x', 'GET', 'http://[::1]:8080/x', {}, {}],
  // host without scheme
  ['*.example.com', 'GET', 'https://cdn.example.com/lib.js', {}, {}],
  ['*.example.com', 'GET', 'https://cdn.example.org/lib.js', {}, null],
  ['api.example.com/v1/*', 'GET', 'http://api.example.com/v1/a', {}, {}],
  ['api.example.com/v1/*', 'GET', 'http://www.example.com/v1/a', {}, null],
  ['localhost:3000/api/*', 'GET', 'http://localhost:3000/api/a', {}, {}],
  // path-only patterns match any host
  ['/api/*', 'GET', 'https://anything.test:9999/api/z', {}, {}],
  // everything combined
  ['PUT https://*.example.com/api/users/:id [Content-Type: application/json*]', 'PUT', 'https://eu.example.com/api/users/5?dry=1', { 'content-type': 'application/json; charset=utf-8' }, { id: '5' }],
];

test('pattern matching table', () => {
  for (const [pattern, method, url, headers, expected] of rows) {
    const p = compilePattern(pattern);
    const got = p.match(toMatchRequest(method, url, headers));
    const label = `${pattern}  vs  ${method} ${url} ${JSON.stringify(headers)}`;
    if (expected === null) assert.equal(got, null, label);
    else {
      assert.notEqual(got, null, label);
      assert.deepEqual(got!.params, expected, label);
    }
  }
});

test('wildcard captures are returned in order, raw', () => {
  const p = compilePattern('/a/*/b/*');
  assert.deepEqual(p.match(toMatchRequest('GET', 'http://h/a/x%20y/b/c/d'))!.wildcards, ['x%20y', 'c/d']);
  const q = compilePattern('/api/users/:id');
  assert.deepEqual(q.match(toMatchRequest('GET', 'http://h/api/users/a%2Fb'))!.rawParams, { id: 'a%2Fb' });
});

test('canonical form normalizes case of method and host, keeps path and header value', () => {
  const cases: Array<[string, string]> = [
    ['get /api/X', 'GET /api/X'],
    ['  /a   ', '/a'],
    ['HTTPS://Api.Example.COM/x', 'https://api.example.com/x'],
    ['https://*.Example.com', 'https://*.example.com/*'],
    ['Example.com', 'example.com/*'],
    ['any /a', '/a'],
    ['/a  [x-Test:   V ]', '/a [x-Test: V]'],
    ['*://h.test:8080/p', '*://h.test:8080/p'],
    ['http://h.test:*/p', 'http://h.test/p'],
  ];
  for (const [input, canonical] of cases) assert.equal(compilePattern(input).source, canonical, input);
});

test('bad patterns are rejected with INVALID_PATTERN naming the problem', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    ['api/users', /a path \('\/api\/\*'\), a host/],
    ['FETCH /api', /unknown method 'FETCH'/],
    ['GET', /a path/],
    ['/api/users?id=1', /query strings are not matched/],
    ['/a#frag', /fragment/],
    ['/a/:id/:id', /':id' appears twice/],
    ['/a/:/b', /':' in a path starts a capture/],
    ['ftp://example.com/x', /unsupported scheme 'ftp'/],
    ['https://api.*.com/x', /only a leading '\*\.' wildcard/],
    ['https://*foo.com/x', /only a leading '\*\.' wildcard/],
    ['https://exa mple.com/x', /unexpected|a path/],
    ['http://example.com:99999/x', /not a port/],
    ['http://example.com:abc/x', /not a port/],
    ['http://user@example.com/x', /credentials/],
    ['/a [X-Test: 1', /unbalanced/],
    ['/a X-Test: 1]', /'\]' without its '\['|unexpected/],
    ['/a [Bad Header: 1]', /not a header constraint/],
    ['/a [X-Test: ]', /empty value/],
    ['/a/b c', /unexpected/],
    ['/a\\x', /escapes only/],
  ];
  for (const [pattern, message] of bad) {
    assert.throws(
      () => compilePattern(pattern),
      (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'INVALID_PATTERN' && message.test(e.message),
      `pattern ${JSON.stringify(pattern)} should fail with ${message}`,
    );
  }
});

test('specificity: constraints, then fewer wildcards, then fewer captures, then longer literals', () => {
  const order = (a: string, b: string) => compareSpecificity(compilePattern(a).specificity, compilePattern(b).specificity);
  // a beats b, and the comparison is antisymmetric (b loses to a)
  const beats = (a: string, b: string, why: string) => {
    assert.ok(order(a, b) > 0, why);
    assert.ok(order(b, a) < 0, `${why} (reversed)`);
  };
  beats('GET /api/*', '/api/users/42', 'a method constraint beats a longer literal');
  beats('/api/* [X: 1]', '/api/users/42', 'a header constraint beats a literal');
  beats('GET /api/* [X: 1]', 'GET /api/*', 'method + header beats method');
  beats('example.com/api/*', '/api/*', 'a host is a constraint');
  beats('/api/users/:id', '/api/*', 'a capture beats a wildcard');
  beats('/api/users/42', '/api/users/:id', 'a literal beats a capture');
  beats('/api/users/*', '/api/*', 'a longer literal prefix wins at equal wildcards');
  beats('api.example.com/*', '*.example.com/*', 'an exact host beats a subdomain wildcard');
  assert.equal(order('/a/*', '/b/*'), 0);
});

test('literal segment prefix (index key) stops at the first non-literal segment', () => {
  assert.deepEqual(compilePattern('/api/users/:id').literalSegments, ['api', 'users']);
  assert.deepEqual(compilePattern('/api/v*/x').literalSegments, ['api']);
  assert.deepEqual(compilePattern('/api/users/').literalSegments, ['api', 'users']);
  assert.deepEqual(compilePattern('/*').literalSegments, []);
});

test('anchor segment: the longest whole literal segment after the prefix', () => {
  assert.equal(compilePattern('/api/*/x123/:id').anchorSegment, 'x123');
  assert.equal(compilePattern('/*/ab/abc/*').anchorSegment, 'abc');
  assert.equal(compilePattern('/*/abc/ab/*').anchorSegment, 'abc', 'the longest, not the last');
  assert.equal(compilePattern('/*/ab/cd/*').anchorSegment, 'ab', 'the first of equally long ones');
  assert.equal(compilePattern('/api/*/x*').anchorSegment, undefined);
  assert.equal(compilePattern('/api/users/:id').anchorSegment, undefined);
  assert.equal(compilePattern('/:a/:b.json').anchorSegment, undefined);
});
