// The error mapping (src/http/error-handler.ts) on its own, and a real 500 through the server kit:
// a fault answers with the one fixed message, never the error's own message or stack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ZodError, z } from 'zod';
import { AppError } from '../../src/core/errors.ts';
import type { Socket } from 'node:net';
import { BODY_LIMIT_BYTES, errorHandler, toAppError, writeClientError } from '../../src/http/error-handler.ts';
import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defineRoutes, route } from '../../src/http/routes.ts';
import { moduleServer } from '../support/kit.ts';

const INTERNAL = { error: 'INTERNAL', message: 'Internal error; details are in the server log.' };
const fastify = (code: string, statusCode?: number, message = 'fastify says') => Object.assign(new Error(message), { code, statusCode });

test('a fault is a 500 with a fixed message: no message, stack or path of the error', () => {
  const fault = new TypeError("Cannot read properties of undefined (reading 'id') at /srv/src/x.ts:12:3");
  const mapped = toAppError(fault);
  assert.equal(mapped.status, 500);
  assert.deepEqual(mapped.toBody(), INTERNAL);
  for (const thrown of [new Error('boom'), 'a string', undefined, { statusCode: 503, message: 'upstream' }, fastify('FST_ERR_X', 500)]) {
    assert.deepEqual(toAppError(thrown).toBody(), INTERNAL, String(thrown));
    assert.equal(toAppError(thrown).status, 500);
  }
});

test('an AppError passes as it is; a ZodError is a 400 naming the field', () => {
  const own = new AppError(409, 'NOT_RUNNING', 'nothing runs');
  assert.equal(toAppError(own), own);
  const zod = z.strictObject({ title: z.string() }).safeParse({ title: 1 }).error as ZodError;
  const mapped = toAppError(zod);
  assert.equal(mapped.status, 400);
  assert.equal(mapped.code, 'VALIDATION_FAILED');
  assert.match(mapped.message, /^title: /);
  assert.deepEqual(mapped.toBody().field, 'title');
  assert.equal(mapped.message, `title: ${zod.issues[0]!.message}`, "zod's own words");
  const nested = toAppError(z.strictObject({ a: z.strictObject({ b: z.string() }) }).safeParse({ a: { b: 1 } }).error as ZodError);
  assert.equal(nested.toBody().field, 'a.b');
  const root = toAppError(z.string().safeParse(1).error as ZodError);
  assert.equal(root.toBody().field, 'body');
  assert.match(root.message, /^body: /);
});

test('Fastify and parser errors map to their 4xx codes', () => {
  assert.equal(BODY_LIMIT_BYTES, 1024 * 1024);
  const tooLarge = toAppError(fastify('FST_ERR_CTP_BODY_TOO_LARGE', 413));
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.code, 'PAYLOAD_TOO_LARGE');
  assert.match(tooLarge.message, /the 1 MiB limit/);
  assert.match(toAppError(fastify('FST_ERR_CTP_BODY_TOO_LARGE', 413), 25 * 1024 * 1024).message, /the 25 MiB limit/);
  assert.match(toAppError(fastify('FST_ERR_CTP_BODY_TOO_LARGE', 413), 1500).message, /the 1500 bytes limit/);
  const table: [string, number, string, RegExp][] = [
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'INVALID_JSON', /^The request body is not valid JSON\.$/],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'INVALID_JSON', /is empty; send a JSON object/],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE', /^Send the body as application\/json\.$/],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'INVALID_CONTENT_LENGTH', /Content-Length does not match/],
    ['FST_ERR_BAD_URL', 400, 'BAD_URL', /URL is malformed/],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'URI_TOO_LONG', /longer than 100 characters/],
  ];
  for (const [code, status, ours, message] of table) {
    const mapped = toAppError(fastify(code, 500, 'internal wording'));
    assert.deepEqual([mapped.status, mapped.code], [status, ours], code);
    assert.match(mapped.message, message, code);
  }
  assert.equal(toAppError(new SyntaxError('Unexpected token')).message, 'The request body is not valid JSON.');
  assert.equal(toAppError(new SyntaxError('Unexpected token')).code, 'INVALID_JSON');
  assert.equal(toAppError(new SyntaxError('Unexpected token')).status, 400);
  // another 4xx keeps its status; its code only when it is one of ours
  const other = toAppError(fastify('FST_ERR_SOMETHING', 405, 'Method not allowed'));
  assert.deepEqual([other.status, other.code, other.message], [405, 'BAD_REQUEST', 'Method not allowed']);
  const known = toAppError(fastify('NOT_FOUND', 404, 'gone'));
  assert.deepEqual([known.status, known.code], [404, 'NOT_FOUND']);
  assert.equal(toAppError(fastify('X', 400)).status, 400);
  assert.equal(toAppError(fastify('X', 499)).status, 499);
  assert.equal(toAppError(fastify('X', 399)).status, 500);
});

test('a route that throws answers 500 INTERNAL, JSON, with no stack; the server keeps serving', async (t) => {
  const app = await moduleServer(async (server) => {
    defineRoutes(server, 'test', [
      route({
        method: 'GET',
        url: '/api/fault',
        summary: 'Throws.',
        response: z.strictObject({ ok: z.boolean() }),
        handler: () => {
          throw new Error('secret internals at /srv/src/fault.ts:3:9');
        },
      }),
      route({
        method: 'GET',
        url: '/api/closing',
        summary: 'Refuses as a closing server does.',
        response: z.strictObject({ ok: z.boolean() }),
        handler: () => {
          throw new AppError(503, 'SHUTTING_DOWN', 'The server is shutting down.');
        },
      }),
      route({ method: 'GET', url: '/api/fine', summary: 'Works.', response: z.strictObject({ ok: z.boolean() }), handler: () => ({ ok: true }) }),
    ]);
  });
  t.after(() => app.close());
  const logged: unknown[][] = [];
  app.svcLog.error = (...args: unknown[]) => void logged.push(args);
  const answer = await app.inject({ method: 'GET', url: '/api/fault', headers: { host: '127.0.0.1' } });
  assert.equal(answer.statusCode, 500);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  assert.deepEqual(answer.json(), INTERNAL);
  assert.ok(!answer.body.includes('secret internals') && !answer.body.includes('fault.ts'));
  assert.equal(answer.headers['www-authenticate'], undefined);
  assert.equal(logged.length, 1, 'the fault is in the server log');
  assert.match(String(logged[0]![0]), /^GET \/api\/fault failed:$/);
  assert.match(String((logged[0]![1] as Error).stack), /secret internals/);
  assert.equal((await app.inject({ method: 'GET', url: '/api/fine', headers: { host: '127.0.0.1' } })).statusCode, 200);
  const refused = await app.inject({ method: 'GET', url: '/api/fine', headers: { host: '127.0.0.1' }, remoteAddress: '8.8.8.8' });
  assert.equal(refused.statusCode, 401);
  assert.equal(refused.headers['www-authenticate'], 'Bearer realm="svc"');
  assert.equal(logged.length, 1, 'a refusal is not a fault');
  const closing = await app.inject({ method: 'GET', url: '/api/closing', headers: { host: '127.0.0.1' } });
  assert.deepEqual([closing.statusCode, closing.json().error], [503, 'SHUTTING_DOWN']);
  assert.equal(logged.length, 1, 'a 5xx of our own is an answer, not a fault');
});

test("a request Node's parser refused gets the one error shape on the raw socket; a dead socket is just closed", () => {
  const fakeSocket = (state: { writable?: boolean; busy?: boolean } = {}) => {
    const seen = { written: '', destroyed: false };
    const socket = {
      writable: state.writable ?? true,
      ...(state.busy !== undefined ? { _httpMessage: { headersSent: state.busy } } : {}),
      end: (text: string) => void (seen.written = text),
      destroy: () => void (seen.destroyed = true),
    };
    return { socket: socket as unknown as Socket, seen };
  };
  const answer = (code?: string) => {
    const { socket, seen } = fakeSocket();
    writeClientError(Object.assign(new Error('parse'), code ? { code } : {}), socket);
    assert.equal(seen.destroyed, false);
    const [head, body] = seen.written.split('\r\n\r\n');
    return { head: head!, body: JSON.parse(body!) };
  };
  const overflow = answer('HPE_HEADER_OVERFLOW');
  assert.equal(
    overflow.head,
    `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(JSON.stringify(overflow.body))}\r\nConnection: close`,
  );
  assert.equal(overflow.body.error, 'HEADERS_TOO_LARGE');
  assert.match(overflow.body.message, /16 KiB/);
  const table: [string, number, string][] = [
    ['HPE_INVALID_CONTENT_LENGTH', 400, 'INVALID_CONTENT_LENGTH'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'INVALID_CONTENT_LENGTH'],
    ['HPE_INVALID_METHOD', 400, 'BAD_REQUEST'],
    ['HPE_INVALID_URL', 400, 'BAD_URL'],
  ];
  for (const [code, status, ours] of table) {
    const { head, body } = answer(code);
    assert.ok(head.startsWith(`HTTP/1.1 ${status} `), code);
    assert.equal(body.error, ours, code);
    assert.ok(body.message.length > 20, code);
  }
  const unknown = answer('HPE_SOMETHING_ELSE');
  assert.ok(unknown.head.startsWith('HTTP/1.1 400 Bad Request'));
  assert.deepEqual(unknown.body, { error: 'BAD_REQUEST', message: 'The request is not valid HTTP.' });
  assert.equal(answer().body.error, 'BAD_REQUEST');
  for (const state of [{ writable: false }, { busy: true }]) {
    const { socket, seen } = fakeSocket(state);
    writeClientError(Object.assign(new Error('parse'), { code: 'HPE_INVALID_URL' }), socket);
    assert.deepEqual(seen, { written: '', destroyed: true }, JSON.stringify(state));
  }
  // a request whose answer has not started (its body's framing broke part-way) still gets one
  const { socket, seen } = fakeSocket({ busy: false });
  writeClientError(Object.assign(new Error('parse'), { code: 'HPE_INVALID_CHUNK_SIZE' }), socket);
  assert.match(seen.written, /^HTTP\/1\.1 400 Bad Request[\s\S]*"error":"BAD_REQUEST","message":"The chunked request body is malformed/);
});

// A refused WebSocket upgrade (the guard answers it through this handler): its socket is no longer the
// HTTP server's to close, so the handler ends it once the answer is written; an ordinary request's
// socket is left alone (keep-alive).
test('a refused upgrade request has its socket ended after the answer; an ordinary one keeps it', () => {
  const answer = (headers: Record<string, string>) => {
    const raw = new EventEmitter();
    const sent: unknown[] = [];
    let ended = 0;
    const reply = {
      raw,
      header: () => reply,
      status: () => reply,
      type: () => reply,
      send: (body: unknown) => (sent.push(body), reply),
    };
    const request = {
      headers,
      method: 'GET',
      url: '/ws',
      raw: { socket: { destroySoon: () => ended++ } },
      routeOptions: {},
      server: { svcLog: { error: () => undefined } },
    };
    errorHandler(new AppError(401, 'UNAUTHORIZED', 'Send the token.'), request as unknown as FastifyRequest, reply as unknown as FastifyReply);
    const before = ended;
    raw.emit('finish');
    raw.emit('finish');
    return { before, after: ended, sent };
  };
  assert.deepEqual(answer({ upgrade: 'websocket', connection: 'Upgrade' }), { before: 0, after: 1, sent: [{ error: 'UNAUTHORIZED', message: 'Send the token.' }] });
  assert.deepEqual(answer({}), { before: 0, after: 0, sent: [{ error: 'UNAUTHORIZED', message: 'Send the token.' }] });
});
