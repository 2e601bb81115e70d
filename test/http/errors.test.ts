import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
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
    ['path tricks', () => getJson(`${server.url}/api/chat-sessions/..%2F..%2Fetc%2Fpasswd/switch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 400, 'BAD_URL'],
    ['huge query', () => getJson(`${server.url}/api/messages/search?q=${'a'.repeat(600)}`), 400, 'VALIDATION_FAILED'],
    // control characters, refused by the route kit before any schema or handler (they were 500s: SQLite, paths)
    ['a NUL in a query value', () => getJson(`${server.url}/api/messages/search?q=%00`), 400, 'VALIDATION_FAILED'],
    ['an escape in a query value', () => getJson(`${server.url}/api/messages?sessionId=%1B%5B2J`), 400, 'VALIDATION_FAILED'],
    ['a NUL in a path parameter', () => post('/api/chat-sessions/ses%00x/switch', '{}'), 400, 'BAD_URL'],
    ['a NUL in a body string', () => post('/api/browser/web-ai/code-extract', JSON.stringify({ vendor: 'chatgpt', saveTo: 'a\u0000b' })), 400, 'VALIDATION_FAILED'],
    ['a NUL in a nested body string', () => post('/api/browser/web-ai/code', JSON.stringify({ vendor: 'chatgpt', saveTo: 'a\u0000b' })), 400, 'VALIDATION_FAILED'],
    ['a NUL in a goal check', () => post('/api/goal', JSON.stringify({ action: 'update', summary: 's', check: 'a\u0000b' })), 400, 'VALIDATION_FAILED'],
    ['an escape in a body string', () => post('/api/chat-sessions', JSON.stringify({ title: 'a\u001b[31mred' })), 400, 'VALIDATION_FAILED'],
    ['a NUL in a body key', () => post('/api/chat-sessions', JSON.stringify({ ['ti\u0000tle']: 'a' })), 400, 'VALIDATION_FAILED'],
  ];

  for (const [name, call, status, code] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      const before = server.app.services.chat.sessions.list().length;
      const settingsBefore = JSON.stringify(server.app.services.settings.get());
      const answer = await call();
      assert.equal(answer.status, status);
      assert.equal(answer.body.error, code);
      assert.equal(typeof answer.body.message, 'string');
      assert.ok(answer.body.message.length > 0);
      assert.ok(!/at .*\.ts:\d+/.test(answer.body.message), 'no stack trace');
      assert.equal(server.app.services.chat.sessions.list().length, before, 'nothing stored');
      assert.equal(JSON.stringify(server.app.services.settings.get()), settingsBefore, 'settings untouched');
      assert.equal((await getJson(`${server.url}/api/health`)).status, 200, 'still serving');
    });
  }

  test('tabs and line breaks in body text are text, not refused', async () => {
    const created = await post('/api/chat-sessions', JSON.stringify({ title: 'tab\there', activate: false }));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.session.title, 'tab\there');
  });
});

// What Fastify, Node's parser and the WebSocket handshake refuse before a route runs has the same
// shape (sent raw: a fetch client would refuse to send most of these).
describe('errors before any route', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  function raw(request: string): Promise<{ status: number; type: string; body: any }> {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write(request));
      let out = '';
      socket.on('data', (chunk) => (out += chunk));
      socket.on('error', reject);
      socket.setTimeout(5000, () => reject(new Error(`no answer to ${JSON.stringify(request.slice(0, 60))}`)));
      socket.on('close', () => {
        const [head = '', ...rest] = out.split('\r\n\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
        const type = /content-type: ([^\r]*)/i.exec(head)?.[1] ?? '';
        try {
          resolve({ status, type, body: JSON.parse(rest.join('\r\n\r\n')) });
        } catch {
          reject(new Error(`not JSON: ${out}`));
        }
      });
    });
  }
  const host = () => `Host: 127.0.0.1:${server.port}\r\n`;
  const cases: [string, () => string, number, string][] = [
    ['a malformed percent-encoding in the path', () => `GET /api/messages/%E0%A4%A HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 400, 'BAD_URL'],
    ['a path parameter over 100 characters', () => `GET /media/${'a'.repeat(150)} HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 414, 'URI_TOO_LONG'],
    ['a query over 16 KiB', () => `GET /api/messages?q=${'a'.repeat(17_000)} HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a NUL in the path', () => `GET /api/mess\0ages HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 400, 'BAD_URL'],
    ['a bad Content-Length', () => `POST /api/stop HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}`, 400, 'INVALID_CONTENT_LENGTH'],
    ['a method HTTP does not know', () => `FOO /api/health HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 400, 'BAD_REQUEST'],
    ['no Host header', () => 'GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'BAD_REQUEST'],
    ['GET /ws without an upgrade', () => `GET /ws HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 426, 'UPGRADE_REQUIRED'],
    ['a WebSocket handshake without a key', () => `GET /ws HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`, 400, 'BAD_REQUEST'],
    ['a malformed chunked body', () => `PUT /api/settings HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`, 400, 'BAD_REQUEST'],
    ['a chunked body broken after its first chunk', () => `PUT /api/settings HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nZZ\r\n`, 400, 'BAD_REQUEST'],
    ['an encoded letter in the path', () => `GET /%61pi/settings HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 400, 'BAD_URL'],
    ['a dot segment in the path', () => `GET /api/x/../settings HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 400, 'BAD_URL'],
    ['a WebSocket handshake of an unknown version', () => `GET /ws HTTP/1.1\r\n${host()}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n\r\n`, 400, 'BAD_REQUEST'],
  ];
  for (const [name, request, status, code] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      const answer = await raw(request());
      assert.equal(answer.status, status);
      assert.match(answer.type, /^application\/json/);
      assert.equal(answer.body.error, code);
      assert.ok(answer.body.message.length > 10);
      assert.equal((await getJson(`${server.url}/api/health`)).status, 200, 'still serving');
    });
  }
});
