// Why a channel did not connect, in words: the network error's code found down the cause chain each
// library builds (grammY's `error`, undici's `cause` and `errors`, discord.js's error itself), the API
// that did not answer in time, else the error's own message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptTimeout } from '../../../src/modules/channels/abort.ts';
import { failureReason, networkCode } from '../../../src/modules/channels/reach.ts';

const URL = 'https://api.telegram.org';
const system = (code: string) => Object.assign(new Error(`connect ${code} 1.2.3.4:443`), { code });

test('the network error code, wherever the library put it', () => {
  // grammY: HttpError { error: node-fetch FetchError { code } }
  assert.equal(networkCode(Object.assign(new Error("Network request for 'getMe' failed!"), { error: system('ECONNREFUSED') })), 'ECONNREFUSED');
  // undici's fetch: TypeError('fetch failed') { cause: { code } }, and AggregateError { errors } per address
  assert.equal(networkCode(new TypeError('fetch failed', { cause: system('ENOTFOUND') })), 'ENOTFOUND');
  assert.equal(networkCode(new TypeError('fetch failed', { cause: new AggregateError([system('ENETUNREACH'), system('ECONNREFUSED')]) })), 'ENETUNREACH');
  // discord.js: the error itself
  assert.equal(networkCode(system('EAI_AGAIN')), 'EAI_AGAIN');
  // not network errors: an API's answer, a library's own code, nothing at all
  assert.equal(networkCode(Object.assign(new Error('Call to getMe failed! (401: Unauthorized)'), { error_code: 401 })), undefined);
  assert.equal(networkCode(Object.assign(new Error('invalid'), { code: 'TokenInvalid' })), undefined);
  assert.equal(networkCode(Object.assign(new Error('bad'), { code: 'ERR_INVALID_URL' })), undefined);
  assert.equal(networkCode(null), undefined);
  // a cycle ends
  const loop: { cause?: unknown } = {};
  loop.cause = loop;
  assert.equal(networkCode(loop), undefined);
});

test('the reason: unreachable in words, too slow with its bound, else the message', () => {
  const reason = (err: unknown) => failureReason(err, 'the Bot API', URL);
  assert.equal(reason({ error: system('ECONNREFUSED') }), 'cannot reach https://api.telegram.org: connection refused');
  assert.equal(reason({ error: system('ENOTFOUND') }), 'cannot reach https://api.telegram.org: the host name does not resolve (DNS)');
  assert.equal(reason(new TypeError('fetch failed', { cause: system('EAI_AGAIN') })), 'cannot reach https://api.telegram.org: the host name could not be looked up (DNS)');
  assert.equal(reason(system('ETIMEDOUT')), 'cannot reach https://api.telegram.org: the connection timed out');
  assert.equal(reason(system('CERT_HAS_EXPIRED')), 'cannot reach https://api.telegram.org: its TLS certificate has expired');
  assert.equal(reason(system('EPROTO')), 'cannot reach https://api.telegram.org: EPROTO', 'an errno without words is shown as it is');
  assert.equal(reason(new AttemptTimeout(10_000)), 'the Bot API (https://api.telegram.org) did not answer in 10 s');
  assert.equal(reason(new Error('Call to getMe failed! (500: Internal Server Error)')), 'Call to getMe failed! (500: Internal Server Error)');
  assert.equal(reason('odd'), 'odd');
});
