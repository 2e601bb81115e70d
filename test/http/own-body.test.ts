// A route that validates its own body (validateBody: false: it reads several shapes, or a document it
// merges) is still under the kit's rule that no input string carries a control character: a NUL deep in its
// body is a 400 naming the field, and nothing is saved. Every such route of the core server has a case
// here; one added without a case fails the first test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAllRoutes } from '../../src/http/lazy-routes.ts';
import { getJson, sendJson, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

interface Case {
  /** Bodies with a control character deep inside, and the field the 400 names. */
  bodies: { body: unknown; field: string }[];
  /** What the route keeps (compared before and after). */
  state(): Promise<unknown>;
}

const CASES: Record<string, Case> = {
  'PUT /api/settings': {
    bodies: [
      { body: { agent: { env: { API_KEY: 'sk-\u0000tail' } } }, field: 'agent.env.API_KEY' },
      { body: { agent: { customCommand: ['my-agent', '--print', '{prompt}\u001b[2J'] } }, field: 'agent.customCommand.2' },
      { body: { voice: { language: 'e\u007fn' } }, field: 'voice.language' },
    ],
    state: async () => server.app.services.settings.get(),
  },
  'POST /api/web-routing/rules': {
    bodies: [
      { body: { type: 'mock', pattern: '/api/users/\u0000', method: 'GET', response: { status: 200, body: '{}' } }, field: 'pattern' },
      { body: { type: 'mock', pattern: '/api/users', method: 'GET', response: { status: 200, body: 'ok\u0000' } }, field: 'response.body' },
      { body: { command: '/web-routing mock GET /x \u0007{}' }, field: 'command' },
    ],
    state: async () => (await getJson(`${server.url}/api/web-routing/rules`)).body,
  },
};

test('every route of the core server that validates its own body has a case here', async () => {
  await loadAllRoutes(server.app.http);
  const own = server.app.http.routeDocs.filter((doc) => doc.ownBody).map((doc) => `${doc.method} ${doc.url}`);
  assert.deepEqual(own.sort(), Object.keys(CASES).sort());
});

for (const [route, { bodies, state }] of Object.entries(CASES)) {
  test(`${route}: a control character anywhere in its body is a 400 naming the field, and nothing is saved`, async () => {
    const [method, path] = route.split(' ') as [string, string];
    for (const { body, field } of bodies) {
      const before = JSON.stringify(await state());
      const answer = await sendJson(`${server.url}${path}`, method, body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'VALIDATION_FAILED');
      assert.equal(answer.body.field, field);
      assert.equal(JSON.stringify(await state()), before, `nothing saved (${field})`);
    }
  });
}
