import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import {
  parseWebRoutingCommand,
  runWebRoutingCommand,
  type RuleCommandTarget,
} from '../../../../src/modules/automation/web-routing/commands.ts';
import type { Rule, RuleSpec } from '../../../../src/modules/automation/web-routing/rules.ts';

const add = (text: string) => {
  const c = parseWebRoutingCommand(text);
  assert.equal(c.kind, 'add', text);
  return (c as { rule: RuleSpec }).rule;
};

test('redirect: add <pattern> -> <url>', () => {
  assert.deepEqual(add('/web-routing add /old -> https://example.com/new'), {
    type: 'redirect',
    pattern: '/old',
    target: 'https://example.com/new',
    status: 302,
  });
  assert.deepEqual(add('/web-routing add GET /docs/:page [Accept: text/html*] -> /v2/docs/:page --status 301'), {
    type: 'redirect',
    pattern: 'GET /docs/:page [Accept: text/html*]',
    target: '/v2/docs/:page',
    status: 301,
  });
  assert.equal(add('web-routing redirect https://*.old.test/* -> https://new.test/*').type, 'redirect');
  assert.equal(add('add /a -> /b').pattern, '/a'); // prefix optional
});

test('rewrite: rewrite <pattern> => <new_path>', () => {
  assert.deepEqual(add('/web-routing rewrite /api/v1/users/:id => /api/v2/users/:id'), {
    type: 'rewrite',
    pattern: '/api/v1/users/:id',
    target: '/api/v2/users/:id',
  });
  assert.deepEqual(add('/web-routing rewrite POST /graphql [X-Beta: 1] => http://127.0.0.1:4000/graphql'), {
    type: 'rewrite',
    pattern: 'POST /graphql [X-Beta: 1]',
    target: 'http://127.0.0.1:4000/graphql',
  });
});

test('block with options', () => {
  assert.deepEqual(add('/web-routing block *.doubleclick.net'), { type: 'block', pattern: '*.doubleclick.net/*', status: 403 });
  assert.deepEqual(add('/web-routing block DELETE /api/* --status 405 --message "read-only demo"'), {
    type: 'block',
    pattern: 'DELETE /api/*',
    status: 405,
    message: 'read-only demo',
  });
});

test("mock: METHOD path '<json>' with quotes inside JSON strings, headers, status", () => {
  assert.deepEqual(add(`/web-routing mock GET /api/users/:id '{"id": "{{params.id}}", "name": "O'Brien"}' --status 201 --header "X-Mock: yes"`), {
    type: 'mock',
    pattern: 'GET /api/users/:id',
    status: 201,
    headers: { 'X-Mock': 'yes' },
    body: { id: '{{params.id}}', name: "O'Brien" },
  });
  assert.deepEqual(add(`/web-routing mock ANY /health '"ok"'`).pattern, '/health');
  assert.deepEqual(add(`/web-routing mock POST /api/* [X-Test: 1] '[1, 2]'`), {
    type: 'mock',
    pattern: 'POST /api/* [X-Test: 1]',
    status: 200,
    headers: {},
    body: [1, 2],
  });
  assert.deepEqual((add(`/web-routing mock GET /bare {"a": {"b": 1}}`) as { body: unknown }).body, { a: { b: 1 } });
  assert.deepEqual(add(`/web-routing mock GET https://api.example.com/v1/me '{"me": true}'`).pattern, 'GET https://api.example.com/v1/me');
});

test('transform: request and response headers and bodies', () => {
  assert.deepEqual(
    add(
      '/web-routing transform /api/* --header "Authorization: Bearer t" --remove-header Cookie ' +
        '--response-header "Cache-Control: no-store" --remove-response-header Server ' +
        '--replace "production" "staging" --request-replace \'"debug":false\' \'"debug":true\'',
    ),
    {
      type: 'transform',
      pattern: '/api/*',
      request: { setHeaders: { Authorization: 'Bearer t' }, removeHeaders: ['Cookie'], replace: [{ from: '"debug":false', to: '"debug":true' }] },
      response: { setHeaders: { 'Cache-Control': 'no-store' }, removeHeaders: ['Server'], replace: [{ from: 'production', to: 'staging' }] },
    },
  );
});

test('list, remove (by id, #id, pattern in canonical form), clear, help', () => {
  assert.deepEqual(parseWebRoutingCommand('/web-routing list'), { kind: 'list' });
  assert.deepEqual(parseWebRoutingCommand('/web-routing remove 12'), { kind: 'remove', id: 12 });
  assert.deepEqual(parseWebRoutingCommand('/web-routing remove #3'), { kind: 'remove', id: 3 });
  assert.deepEqual(parseWebRoutingCommand('/web-routing remove get /api/users/:id [X-A: 1]'), {
    kind: 'remove',
    pattern: 'GET /api/users/:id [X-A: 1]',
  });
  assert.deepEqual(parseWebRoutingCommand('/web-routing clear'), { kind: 'clear' });
  assert.deepEqual(parseWebRoutingCommand('/web-routing'), { kind: 'help' });
  assert.deepEqual(parseWebRoutingCommand('/web-routing help'), { kind: 'help' });
});

test('errors are clear and coded', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['/web-routing frobnicate /x', 'INVALID_COMMAND', /Unknown subcommand 'frobnicate'/],
    ['/web-routing add /x', 'INVALID_COMMAND', /Missing '-> <target_url>'/],
    ['/web-routing add /x => /y', 'INVALID_COMMAND', /for a rewrite use/],
    ['/web-routing add -> /y', 'INVALID_COMMAND', /Missing <pattern>/],
    ['/web-routing add /x ->', 'INVALID_COMMAND', /Missing <target_url>/],
    ['/web-routing rewrite /x -> /y', 'INVALID_COMMAND', /'rewrite' uses '=>'/],
    ['/web-routing add /x -> /y --status 200', 'INVALID_STATUS', /301, 302/],
    ['/web-routing add /x -> /y --status abc', 'INVALID_STATUS', /3-digit/],
    ['/web-routing block /x --frob 1', 'INVALID_OPTION', /Unknown option '--frob'/],
    ['/web-routing block', 'INVALID_COMMAND', /Missing <pattern>/],
    ['/web-routing block users', 'INVALID_PATTERN', /'users'/],
    ['/web-routing block /a?b=1', 'INVALID_PATTERN', /query strings/],
    ["/web-routing mock GET /x '{\"a\": }'", 'INVALID_MOCK_BODY', /not valid JSON/],
    ["/web-routing mock GET /x '{\"a\": 1'", 'INVALID_MOCK_BODY', /not valid JSON/],
    ["/web-routing mock GET /x '{a: 1}'", 'INVALID_MOCK_BODY', /not valid JSON/],
    ['/web-routing mock GET /x', 'INVALID_MOCK_BODY', /Missing the JSON body/],
    ["/web-routing mock GET /x/:id '{\"a\": \"{{params.name}}\"}'", 'INVALID_MOCK_BODY', /no ':name' capture/],
    ["/web-routing mock /x '{}'", 'INVALID_COMMAND', /starts with a method/],
    ["/web-routing mock FETCH /x '{}'", 'INVALID_PATTERN', /unknown method 'FETCH'/],
    ['/web-routing transform /x', 'INVALID_TRANSFORM', /must change something/],
    ['/web-routing transform /x --header NoColon', 'INVALID_HEADER', /"Name: value"/],
    ['/web-routing transform /x --replace onlyone', 'INVALID_OPTION', /needs 2 values/],
    ['/web-routing transform /x --header "X: 1', 'INVALID_COMMAND', /Unclosed " quote/],
    ['/web-routing list extra', 'INVALID_COMMAND', /takes no arguments/],
    ['/web-routing remove', 'INVALID_COMMAND', /Missing <pattern> or rule id/],
    ['/web-routing remove not-a-pattern', 'INVALID_PATTERN', /'not-a-pattern'/],
  ];
  for (const [text, code, message] of cases) {
    assert.throws(
      () => parseWebRoutingCommand(text),
      (e: unknown) => e instanceof AppError && e.status === 400 && e.code === code && message.test(e.message),
      `${text} → ${code} ${message}`,
    );
  }
});

test('runWebRoutingCommand drives the service and describes the outcome', async () => {
  const rules: Rule[] = [];
  let next = 1;
  const service: RuleCommandTarget = {
    list: () => [...rules],
    add: (spec) => {
      const r = { ...spec, id: next++, createdAt: 'now' } as Rule;
      rules.push(r);
      return r;
    },
    remove: (id) => {
      const i = rules.findIndex((r) => r.id === id);
      if (i < 0) throw new AppError(404, 'NOT_FOUND', `web-routing rule '${id}' not found.`);
      return rules.splice(i, 1)[0]!;
    },
    removeByPattern: (p) => {
      const gone = rules.filter((r) => r.pattern === p);
      for (const g of gone) rules.splice(rules.indexOf(g), 1);
      return gone;
    },
    clear: () => rules.splice(0).length,
  };
  const a = await runWebRoutingCommand(`/web-routing mock GET /api/x '{"ok":true}'`, service);
  assert.equal(a.text, 'Added #1 mock GET /api/x {"ok":true}');
  await runWebRoutingCommand('/web-routing block /ads/*', service);
  await runWebRoutingCommand('/web-routing transform /api/* --response-header "X-A: 1"', service);
  const l = await runWebRoutingCommand('/web-routing list', service);
  assert.equal(l.text, '3 rules:\n#1 mock GET /api/x {"ok":true}\n#2 block /ads/*\n#3 transform /api/* --response-header "X-A: 1"');
  assert.equal((l.data as { rules: Rule[] }).rules.length, 3);
  const r = await runWebRoutingCommand('/web-routing remove /ads/*', service);
  assert.match(r.text, /^Removed 1 rule:\n#2 block/);
  await assert.rejects(runWebRoutingCommand('/web-routing remove /ads/*', service), (e: unknown) => e instanceof AppError && e.status === 404);
  await assert.rejects(runWebRoutingCommand('/web-routing remove 99', service), (e: unknown) => e instanceof AppError && e.status === 404);
  assert.match((await runWebRoutingCommand('/web-routing remove #1', service)).text, /^Removed #1 mock/);
  assert.equal((await runWebRoutingCommand('/web-routing clear', service)).text, 'Removed all 1 web-routing rule.');
  assert.equal((await runWebRoutingCommand('/web-routing list', service)).text, 'No web-routing rules.');
  assert.match((await runWebRoutingCommand('/web-routing help', service)).text, /^Usage: \/web-routing/);
});
