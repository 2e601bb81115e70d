import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { moduleServer } from '../../../support/kit.ts';
import { webRoutingRoutes } from '../../../../src/modules/automation/web-routing/web-routing.routes.ts';
import type { RuleService } from '../../../../src/modules/automation/web-routing/web-routing.service.ts';
import { memoryService } from './helpers.ts';

describe('HTTP routes /api/web-routing/*', () => {
  let app: FastifyInstance;
  let service: RuleService;
  let closeDb: () => void;
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/api/web-routing/rules', payload: payload as object });

  before(async () => {
    ({ service, close: closeDb } = memoryService());
    app = await moduleServer((a) => a.register(webRoutingRoutes, { rules: service }));
  });
  after(async () => {
    await app.close();
    closeDb();
  });

  test('POST a slash command adds a rule (201), GET lists it, DELETE removes it', async () => {
    const a = await post({ command: `/web-routing mock GET /api/users/:id '{"id": "{{params.id}}"}' --status 202` });
    assert.equal(a.statusCode, 201);
    const added = a.json();
    assert.match(added.text, /^Added #\d+ mock GET \/api\/users\/:id/);
    assert.equal(added.rule.type, 'mock');
    assert.equal(added.rule.status, 202);
    assert.equal(typeof added.rule.id, 'number');
    assert.match(added.rule.createdAt, /^\d{4}-\d\d-\d\dT/);

    const s = await post({ type: 'block', pattern: 'get *.ads.test' });
    assert.equal(s.statusCode, 201);
    assert.equal(s.json().rule.pattern, 'GET *.ads.test/*');

    const list = await app.inject({ method: 'GET', url: '/api/web-routing/rules' });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().rules.map((r: { id: number }) => r.id), [added.rule.id, s.json().rule.id]);
    assert.deepEqual(list.json().invalid, []);

    const listCmd = await post({ command: '/web-routing list' });
    assert.equal(listCmd.statusCode, 200);
    assert.equal(listCmd.json().rules.length, 2);

    const dryRun = await app.inject({ method: 'POST', url: '/api/web-routing/match', payload: { url: 'http://h/api/users/9' } });
    assert.equal(dryRun.statusCode, 200);
    assert.equal(dryRun.json().plan.action, 'mock');
    assert.equal(dryRun.json().plan.body, '{"id":"9"}');
    assert.deepEqual(dryRun.json().matches.map((m: { params: unknown }) => m.params), [{ id: '9' }]);

    const del = await app.inject({ method: 'DELETE', url: `/api/web-routing/rules/${added.rule.id}` });
    assert.equal(del.statusCode, 200);
    assert.equal(del.json().removed.id, added.rule.id);
    const again = await app.inject({ method: 'DELETE', url: `/api/web-routing/rules/${added.rule.id}` });
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().error, 'NOT_FOUND');

    const rm = await post({ command: '/web-routing remove GET *.ads.test' });
    assert.equal(rm.statusCode, 200);
    assert.equal(rm.json().removed.length, 1);
  });

  test('bad input: 400 with a stable code and a message naming the problem, never 500', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ command: '/web-routing block api/users' }, 'INVALID_PATTERN', /Invalid pattern 'api\/users'/],
      [{ command: "/web-routing mock GET /x '{\"a\": }'" }, 'INVALID_MOCK_BODY', /not valid JSON/],
      [{ command: "/web-routing mock GET /x/:id '{\"a\": \"{{params.nope}}\"}'" }, 'INVALID_MOCK_BODY', /no ':nope' capture/],
      [{ command: '/web-routing add /x -> ftp://y' }, 'INVALID_TARGET', /only http/],
      [{ command: '/web-routing teleport' }, 'INVALID_COMMAND', /Unknown subcommand/],
      [{ command: '' }, 'INVALID_COMMAND', /non-empty string/],
      [{ command: 'list', extra: 1 }, 'INVALID_COMMAND', /only field/],
      [{ type: 'mock', pattern: '/x' }, 'INVALID_MOCK_BODY', /needs a JSON "body"/],
      [{ type: 'block', pattern: '/x?y' }, 'INVALID_PATTERN', /query strings/],
      [{ type: 'nope', pattern: '/x' }, 'INVALID_RULE', /needs "type"/],
      [[1, 2], 'INVALID_RULE', /JSON object/],
      [{ type: 'transform', pattern: '/x', request: { setHeaders: { 'X-A': 1 } } }, 'INVALID_RULE', /request\.setHeaders/],
    ];
    for (const [payload, code, message] of cases) {
      const r = await post(payload);
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
      const body = r.json();
      assert.equal(body.error, code, JSON.stringify(payload));
      assert.match(body.message, message, JSON.stringify(payload));
    }
    const notJson = await app.inject({
      method: 'POST',
      url: '/api/web-routing/rules',
      headers: { 'content-type': 'application/json' },
      payload: '{"command": ',
    });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().error, 'INVALID_JSON');
    const badId = await app.inject({ method: 'DELETE', url: '/api/web-routing/rules/abc' });
    assert.equal(badId.statusCode, 400);
    assert.equal(badId.json().error, 'INVALID_ID');
    const badMatch = await app.inject({ method: 'POST', url: '/api/web-routing/match', payload: { url: 'not a url' } });
    assert.equal(badMatch.statusCode, 400);
    assert.equal(badMatch.json().error, 'INVALID_URL');
    assert.equal((await app.inject({ method: 'GET', url: '/api/web-routing/rules' })).json().rules.length, 0, 'nothing bad was stored');
  });
});
