// web-routing patterns (src/modules/automation/web-routing/pattern.ts) at their edges: exact refusal
// messages, port and length limits, host forms, escapes, specificity figures, header values, and the
// request a pattern is matched against.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { canonicalPattern, compilePattern, HTTP_METHODS, toMatchRequest } from '../../../../src/modules/automation/web-routing/pattern.ts';

const refusal = (pattern: string) => {
  try {
    compilePattern(pattern);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'INVALID_PATTERN');
    assert.deepEqual(err.details, { pattern: pattern.trim().length > 2048 ? `${pattern.trim().slice(0, 40)}…` : pattern.trim() || pattern });
    return err.message.slice(`Invalid pattern '${(err.details as { pattern: string }).pattern}': `.length);
  }
  return 'accepted';
};

test('each refusal says exactly what is wrong', () => {
  const cases: [string, string][] = [
    ['   ', 'the pattern is empty'],
    ['/a ]', "a ']' without its '['"],
    ['/a[X: 1]', "a header constraint must be separated by a space: '[X: 1]'"],
    ['/a [: v]', "'[: v]' is not a header constraint; write [Header-Name: value] or [Header-Name]"],
    ['/a [X Y]', "'[X Y]' is not a header constraint; write [Header-Name: value] or [Header-Name]"],
    ['/a []', "'[]' is not a header constraint; write [Header-Name: value] or [Header-Name]"],
    ['/a [X:  ]', "header constraint '[X:]' has an empty value; write [X] to require only presence"],
    ['/a [X: 1', "unbalanced '[' or ']'; header constraints go at the end: /path [Header: value]"],
    ['/a[b', "unbalanced '[' or ']'; header constraints go at the end: /path [Header: value]"],
    ['FETCH /a', 'unknown method \'FETCH\' (use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, CONNECT or ANY)'],
    ['G3T /a', "unexpected text '/a' after 'G3T' (a pattern is [METHOD] <path-or-url> [Header: value]...)"],
    ['GET /a /b', "unexpected space in '/a /b'"],
    ['ftp://h.test/x', "unsupported scheme 'ftp' (http, https or *)"],
    ['http://u@h.test/x', 'credentials (user@host) are not allowed in a pattern'],
    ['h.test?x=1', "query strings are not matched; remove the '?…' part"],
    ['h.test/a?b', "query strings are not matched; remove the '?…' part (the path match ignores the query)"],
    ['-x.com/a', "a pattern is a path ('/api/*'), a host ('*.example.com/api/*') or a URL ('https://example.com/*')"],
    ['nodots/a', "a pattern is a path ('/api/*'), a host ('*.example.com/api/*') or a URL ('https://example.com/*')"],
    ['http://:80/x', 'the host is empty'],
    ['http://h.test:0/x', "'0' is not a port (1-65535 or *)"],
    ['http://h.test:65536/x', "'65536' is not a port (1-65535 or *)"],
    ['http://h.test:123456/x', "'123456' is not a port (1-65535 or *)"],
    ['http://h.test:/x', "'' is not a port (1-65535 or *)"],
    ['*.-a.com', "'*.-a.com': only a leading '*.' wildcard is allowed in a host, followed by a domain"],
    ['*.a.*.com', "'*.a.*.com': only a leading '*.' wildcard is allowed in a host, followed by a domain"],
    ['a*.com', "'a*.com': only a leading '*.' wildcard is allowed in a host (e.g. *.example.com)"],
    ['a-.com', "'a-.com' is not a host name"],
    ['http://a..b/x', "'a..b' is not a host name"],
    ['http://[::g]/x', "unbalanced '[' or ']'; header constraints go at the end: /path [Header: value]"],
    ['/a#b', "a '#fragment' is never sent to a server; remove it"],
    ['/a\\b', "'\\' escapes only '*', ':' or '\\' in a path"],
    ['/a\\', "'\\' escapes only '*', ':' or '\\' in a path"],
    ['/::a', "':' in a path starts a capture (':name'); write '\\:' for a literal colon"],
    ['/a:', "':' in a path starts a capture (':name'); write '\\:' for a literal colon"],
    ['/:id/:id', "the capture ':id' appears twice"],
    ['[X-A: b]', 'no path or URL'],
    ['/a[1]/b', "unbalanced '[' or ']'; header constraints go at the end: /path [Header: value]"],
    ['http://[::1]x/y', "'[::1]x' is not a host name"],
    ['http://[1.2]/x', "'[1.2]' is not a host name"],
    ['/a [::1]', "'[::1]' is not a header constraint; write [Header-Name: value] or [Header-Name]"],
    ['http://h.test:80x/y', "'80x' is not a port (1-65535 or *)"],
    ['http://h.test:x80/y', "'x80' is not a port (1-65535 or *)"],
    ['GET /a\n/b', "unexpected space in 'GET /a\n/b'"],
    ['/proxy/http://ex.com', "':' in a path starts a capture (':name'); write '\\:' for a literal colon"],
    ['http:///x', 'the host is empty'],
    ['mylocalhost/a', "a pattern is a path ('/api/*'), a host ('*.example.com/api/*') or a URL ('https://example.com/*')"],
  ];
  for (const [pattern, why] of cases) assert.equal(refusal(pattern), why, pattern);
  assert.equal(refusal(`/${'a'.repeat(2047)}`), 'accepted', '2048 characters are allowed');
  assert.equal(refusal(`/${'a'.repeat(2048)}`), 'longer than 2048 characters');
});

test('hosts: names with digits, dashes and underscores, IP literals, localhost, a trailing dot, ports at their edges', () => {
  const host = (p: string) => {
    const c = compilePattern(p);
    return [c.source, c.host, c.port, c.scheme];
  };
  assert.deepEqual(host('http://h.test:1/x'), ['http://h.test:1/x', { kind: 'exact', host: 'h.test' }, 1, 'http']);
  assert.deepEqual(host('http://h.test:65535/x'), ['http://h.test:65535/x', { kind: 'exact', host: 'h.test' }, 65535, 'http']);
  assert.deepEqual(host('1.2.3.4/x'), ['1.2.3.4/x', { kind: 'exact', host: '1.2.3.4' }, undefined, undefined]);
  assert.deepEqual(host('LOCALHOST:80/a'), ['localhost:80/a', { kind: 'exact', host: 'localhost' }, 80, undefined]);
  assert.deepEqual(host('localhost'), ['localhost/*', { kind: 'exact', host: 'localhost' }, undefined, undefined]);
  assert.deepEqual(host('[::1]:8080/a'), ['[::1]:8080/a', { kind: 'exact', host: '[::1]' }, 8080, undefined]);
  assert.deepEqual(host('https://[::1]/x'), ['https://[::1]/x', { kind: 'exact', host: '[::1]' }, undefined, 'https']);
  // an IPv6 host at the end of a pattern is a host, not a header constraint
  assert.deepEqual(host('http://[::1]'), ['http://[::1]/*', { kind: 'exact', host: '[::1]' }, undefined, 'http']);
  assert.deepEqual(host('[::1]'), ['[::1]/*', { kind: 'exact', host: '[::1]' }, undefined, undefined]);
  assert.deepEqual(host('get [FE80::1]'), ['GET [fe80::1]/*', { kind: 'exact', host: '[fe80::1]' }, undefined, undefined]);
  assert.deepEqual(host('any [::1]'), ['[::1]/*', { kind: 'exact', host: '[::1]' }, undefined, undefined]);
  assert.deepEqual(host('* [::1]'), ['[::1]/*', { kind: 'exact', host: '[::1]' }, undefined, undefined]);
  assert.deepEqual(host('ANY http://[::1]'), ['http://[::1]/*', { kind: 'exact', host: '[::1]' }, undefined, 'http']);
  assert.deepEqual(host('a-b_c.d9.com.'), ['a-b_c.d9.com/*', { kind: 'exact', host: 'a-b_c.d9.com' }, undefined, undefined]);
  assert.deepEqual(host('*.Ex.com.:8080'), ['*.ex.com:8080/*', { kind: 'suffix', suffix: '.ex.com' }, 8080, undefined]);
  assert.deepEqual(host('HTTP://*/x'), ['http://*/x', undefined, undefined, 'http']);
  assert.deepEqual(host('*://*:*/x'), ['*://*/x', undefined, undefined, undefined]);
  assert.deepEqual(host('*'), ['*/*', undefined, undefined, undefined]);
  assert.equal(compilePattern('/a').path, '/a');
  assert.equal(canonicalPattern('  get   /a  '), 'GET /a');
  for (const method of HTTP_METHODS) assert.equal(compilePattern(`${method.toLowerCase()} /a`).method, method);
});

test('matching hosts: a subdomain wildcard needs at least one label; scheme and port are checked', () => {
  const hits = (pattern: string, url: string) => compilePattern(pattern).match(toMatchRequest('GET', url)) !== null;
  assert.equal(hits('*.ex.com', 'http://ex.com/'), false);
  assert.equal(hits('*.ex.com', 'http://.ex.com/'), false);
  assert.equal(hits('*.ex.com', 'http://a.ex.com/'), true);
  assert.equal(hits('*.ex.com', 'http://aex.com/'), false);
  assert.equal(hits('ex.com', 'http://ex.com/'), true);
  assert.equal(hits('ex.com', 'http://a.ex.com/'), false);
  assert.equal(hits('ex.com:8080', 'http://ex.com:8080/'), true);
  assert.equal(hits('ex.com:8080', 'http://ex.com/'), false);
  assert.equal(hits('https://*/x', 'https://any.where/x'), true);
  assert.equal(hits('https://*/x', 'http://any.where/x'), false);
  assert.equal(hits('*://*:443/x', 'https://h.test/x'), true, 'the default port counts');
  const p = compilePattern('https://ex.com:8443/x');
  assert.equal(p.matchHost('ex.com', 8443, 'https'), true);
  assert.equal(p.matchHost('ex.com', 8443, 'http'), false);
  assert.equal(p.matchHost('ex.com', 443, 'https'), false);
  assert.equal(p.matchHost('ex.org', 8443, 'https'), false);
  assert.equal(compilePattern('/x').matchHost('anything', 1, 'ftp'), true);
});

test('paths: escapes, captures next to literals, wildcards, the trailing slash, percent-encoding', () => {
  const m = (pattern: string, path: string) => compilePattern(pattern).matchPath(path);
  assert.deepEqual(m('/a\\\\b', '/a\\b'), { params: {}, rawParams: {}, wildcards: [] });
  assert.equal(m('/a\\\\b', '/a/b'), null);
  assert.deepEqual(m('/a\\:b', '/a:b/'), { params: {}, rawParams: {}, wildcards: [] });
  assert.equal(m('/a\\*', '/a\\*'), null);
  assert.deepEqual(m('/a\\*', '/a*/'), { params: {}, rawParams: {}, wildcards: [] }, 'an escaped * at the end still takes one trailing /');
  assert.deepEqual(m('/a/*', '/a/b/'), { params: {}, rawParams: {}, wildcards: ['b/'] }, 'a trailing * takes the slash itself');
  assert.deepEqual(m('/a.b', '/a.b'), { params: {}, rawParams: {}, wildcards: [] });
  assert.equal(m('/a.b', '/axb'), null, 'a dot is literal');
  assert.equal(m('/a+b', '/aab'), null, 'regex characters are literal');
  assert.equal(m('/(a)', '/a'), null);
  assert.deepEqual(m('/(a)|$', '/(a)|$'), { params: {}, rawParams: {}, wildcards: [] });
  assert.deepEqual(m('/f/:name_1', '/f/x'), { params: { name_1: 'x' }, rawParams: { name_1: 'x' }, wildcards: [] });
  assert.deepEqual(m('/f/:a-:b', '/f/x-y'), { params: { a: 'x', b: 'y' }, rawParams: { a: 'x', b: 'y' }, wildcards: [] });
  assert.deepEqual(m('/f/:name', '/f/%E0%A4%A'), { params: { name: '%E0%A4%A' }, rawParams: { name: '%E0%A4%A' }, wildcards: [] }, 'a bad encoding is kept as sent');
  assert.deepEqual(m('/f/:name', '/f/%C3%A9'), { params: { name: 'é' }, rawParams: { name: '%C3%A9' }, wildcards: [] });
  assert.deepEqual(m('/*/:id', '/a/b/7'), { params: { id: '7' }, rawParams: { id: '7' }, wildcards: ['a/b'] });
  assert.deepEqual(m('/x*', '/x\nnew'), null, 'no line breaks in a path match');
  assert.equal(m('/a/', '/a//'), null, 'a pattern ending in / takes no second slash');
  assert.deepEqual(m('/a/', '/a/'), { params: {}, rawParams: {}, wildcards: [] });
});

test('specificity figures: constraints, wildcards (path and host), captures, literal characters', () => {
  const spec = (p: string) => compilePattern(p).specificity;
  assert.deepEqual(spec('/a'), { constraints: 0, wildcards: 0, params: 0, literal: 2 });
  assert.deepEqual(spec('GET /a/:id/*'), { constraints: 1, wildcards: 1, params: 1, literal: 4 });
  assert.deepEqual(spec('/a [X: 1] [Y]'), { constraints: 2, wildcards: 0, params: 0, literal: 2 });
  assert.deepEqual(spec('ex.com/a'), { constraints: 1, wildcards: 0, params: 0, literal: 8 });
  assert.deepEqual(spec('*.ex.com/a'), { constraints: 1, wildcards: 1, params: 0, literal: 9 });
  assert.deepEqual(spec('http://*/a\\*'), { constraints: 0, wildcards: 0, params: 0, literal: 3 });
  assert.deepEqual(spec('/**'), { constraints: 0, wildcards: 1, params: 0, literal: 1 });
  assert.equal(compilePattern('/a/**/b/*').wildcards, 2);
});

test('index keys: literal leading segments (none past a capture or escape), and the anchor', () => {
  const keys = (p: string) => [compilePattern(p).literalSegments, compilePattern(p).anchorSegment];
  assert.deepEqual(keys('/a/b'), [['a', 'b'], undefined]);
  assert.deepEqual(keys('/a/b\\:c/d'), [['a'], 'd']);
  assert.deepEqual(keys('/a/x:y'), [['a'], undefined]);
  assert.deepEqual(keys('/a//b'), [['a', '', 'b'], undefined]);
  assert.deepEqual(keys('/a/*/'), [['a'], undefined]);
  assert.deepEqual(keys('/*/ab/ab'), [[], 'ab'], 'the first of equally long segments');
  assert.deepEqual(keys('/*/a/\\:b'), [[], 'a']);
  assert.deepEqual(keys('/'), [[], undefined]);
  assert.deepEqual(keys('ex.com'), [[], undefined]);
});

test('headers: exact values, globs (. and other characters literal, across lines), presence, repeated headers', () => {
  const h = (pattern: string, headers: Record<string, string | readonly string[] | undefined>) => compilePattern(`/x ${pattern}`).matchHeaders(headers);
  assert.equal(h('[A: 1.0]', { a: '1.0' }), true);
  assert.equal(h('[A: 1.0]', { a: '1x0' }), false);
  assert.equal(h('[A: a*]', { a: 'a.b' }), true);
  assert.equal(h('[A: *.b]', { a: 'axb' }), false, 'a dot in a glob is literal');
  assert.equal(h('[A: a*]', { a: 'ba' }), false, 'a glob is anchored');
  assert.equal(h('[A: a*b]', { a: 'axbc' }), false, 'a glob is anchored at its end too');
  assert.equal(h('[A: a*b]', { a: 'a\nb' }), true, 'a glob * spans line breaks');
  assert.equal(h('[A: 1]', { a: ['0', '1'] }), true);
  assert.equal(h('[A: 1]', { a: ['0', '2'] }), false);
  assert.equal(h('[A: 1*]', { a: ['0', '12'] }), true);
  assert.equal(h('[A: 1*]', { a: ['0', '2'] }), false);
  assert.equal(h('[A: 1*]', { a: [] }), false);
  assert.equal(h('[A: *]', { a: [] }), false, 'an empty list has no value to match, not even *');
  assert.equal(h('[A]', { a: [] }), true, 'presence only');
  assert.equal(h('[A]', { a: undefined }), false);
  assert.equal(h('[A: 1] [B]', { a: '1' }), false);
  assert.equal(h('[A: 1] [B]', { a: '1', b: '' }), true);
  assert.equal(h('[A: 1] [B: 2]', { a: '2', b: '2' }), false);
  const p = compilePattern('/x [Accept-Encoding: gzip] [X-Y]');
  assert.deepEqual(p.headers, [{ name: 'accept-encoding', displayName: 'Accept-Encoding', value: 'gzip' }, { name: 'x-y', displayName: 'X-Y', value: undefined }]);
  assert.equal(p.source, '/x [Accept-Encoding: gzip] [X-Y]');
  assert.equal(compilePattern('/x [A:b: c]').source, '/x [A: b: c]', 'the value runs from the first colon');
  assert.equal(compilePattern('/x [A : b]').source, '/x [A: b]', 'spaces around the name are dropped');
});

test('the request a pattern sees: method upper-cased, host lower-cased, default ports, names lower-cased', () => {
  assert.deepEqual(toMatchRequest('get', 'wss://Ex.COM/a?b=1', { 'X-A': '1', b: ['2', '3'] }), {
    method: 'GET', scheme: 'wss', hostname: 'ex.com', port: 443, authority: 'ex.com', path: '/a', search: '?b=1', headers: { 'x-a': '1', b: ['2', '3'] },
  });
  assert.deepEqual(toMatchRequest('GET', 'ws://ex.com:81').port, 81);
  assert.deepEqual(toMatchRequest('GET', 'ws://ex.com').port, 80);
  assert.deepEqual(toMatchRequest('GET', 'http://ex.com').port, 80);
  assert.deepEqual(toMatchRequest('GET', 'ftp://ex.com/x').port, 0);
  assert.deepEqual(toMatchRequest('GET', 'constructor://ex.com/x').port, 0, 'a scheme named like an inherited property has no default port');
  assert.equal(toMatchRequest('GET', new URL('http://h/p')).path, '/p');
  assert.equal(toMatchRequest('GET', 'foo://h').path, '/', 'a URL whose scheme allows no path is matched as /');
  const same = { a: '1' };
  assert.equal(toMatchRequest('GET', 'http://h/', same).headers, same, 'lower-case names are used as given');
  assert.deepEqual(toMatchRequest('GET', 'http://h/', { a: '1', B: '2' }).headers, { a: '1', b: '2' });
  // a constraint on the method, host or headers each decides alone
  const p = compilePattern('POST ex.com/x [A: 1]');
  assert.notEqual(p.match(toMatchRequest('POST', 'http://ex.com/x', { a: '1' })), null);
  assert.equal(p.match(toMatchRequest('GET', 'http://ex.com/x', { a: '1' })), null);
  assert.equal(p.match(toMatchRequest('POST', 'http://ex.org/x', { a: '1' })), null);
  assert.equal(p.match(toMatchRequest('POST', 'http://ex.com/x', { a: '2' })), null);
  assert.equal(p.match(toMatchRequest('POST', 'http://ex.com/y', { a: '1' })), null);
  assert.notEqual(compilePattern('http://*/x').match(toMatchRequest('GET', 'http://a/x')), null);
  assert.equal(compilePattern('http://*/x').match(toMatchRequest('GET', 'https://a/x')), null);
  assert.equal(compilePattern('*://*:8080/x').match(toMatchRequest('GET', 'http://a/x')), null);
});
