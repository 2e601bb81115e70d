import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, startServer, type TestServer } from '../support/server.ts';

// Every bad input gets a 4xx with {"error": CODE, "message": "..."}; the server keeps serving and
// stored data is untouched.
describe('error model', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const post = (path: string, body: string, type = 'application/json') =>
    getJson(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

  const cases: [string, () => Promise<{ status: number; body: any }>, number, string][] = [
    ['malformed JSON', () => post('/api/chat-sessions', '{"title": '), 400, 'INVALID_JSON'],
    ['empty JSON body', () => post('/api/chat-sessions', ''), 400, 'INVALID_JSON'],
    ['wrong type', () => post('/api/chat-sessions', '{"title": ["a"]}'), 400, 'VALIDATION_FAILED'],
    ['unknown field', () => post('/api/chat-sessions', '{"titel": "a"}'), 400, 'VALIDATION_FAILED'],
    ['JSON that is not an object', () => post('/api/chat-sessions', '"just a string"'), 400, 'VALIDATION_FAILED'],
    ['oversized body', () => post('/api/chat-sessions', JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) })), 413, 'PAYLOAD_TOO_LARGE'],
    ['form body', () => post('/api/chat-sessions', 'title=a', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['unknown id', () => post('/api/chat-sessions/ses_unknown/switch', '{}'), 404, 'NOT_FOUND'],
    ['unknown route', () => getJson(`${server.url}/api/does-not-exist`), 404, 'NOT_FOUND'],
    ['wrong method', () => getJson(`${server.url}/api/health`, { method: 'DELETE' }), 404, 'NOT_FOUND'],
    ['bad settings value', () => getJson(`${server.url}/api/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"agent":{"retries":"many"}}' }), 400, 'INVALID_SETTING'],
    ['path tricks', () => getJson(`${server.url}/api/chat-sessions/..%2F..%2Fetc%2Fpasswd/switch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 404, 'NOT_FOUND'],
    ['huge query', () => getJson(`${server.url}/api/messages/search?q=${'a'.repeat(600)}`), 400, 'VALIDATION_FAILED'],
  ];

  for (const [name, call, status, code] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      const before = server.app.services.chat.sessions.list().length;
      const answer = await call();
      assert.equal(answer.status, status);
      assert.equal(answer.body.error, code);
      assert.equal(typeof answer.body.message, 'string');
      assert.ok(answer.body.message.length > 0);
      assert.ok(!/at .*\.ts:\d+/.test(answer.body.message), 'no stack trace');
      assert.equal(server.app.services.chat.sessions.list().length, before, 'nothing stored');
      assert.equal((await getJson(`${server.url}/api/health`)).status, 200, 'still serving');
    });
  }
});
