// Trace redaction (src/agent/redact.ts): configured secret values, and every known secret shape, each
// at its edges, while token counts and session ids stay readable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactSecrets, REDACTED_MARK } from '../../src/agent/redact.ts';

test('the mark is [REDACTED]', () => {
  assert.equal(REDACTED_MARK, '[REDACTED]');
});

test('redaction removes secrets but keeps token counts and session ids', () => {
  const line = JSON.stringify({
    session_id: '4109d688-248b-4046-b8d5-4ccdaebd3df3',
    usage: { input_tokens: 120, output_tokens: 40 },
    headers: { authorization: 'Bearer abcdefghijklmnop', 'x-api-key': 'whatever-value' },
    text: 'key sk-ant-api03-AbCdEfGhIjKlMnOp and AIzaSyA1234567890abcdefghij and ghp_abcdefghijklmnopqrstuvwxyz123456 OPENAI_API_KEY=sk-live',
  });
  const out = redactSecrets(line, ['my-custom-secret-value']);
  for (const leaked of ['abcdefghijklmnop', 'sk-ant-api03', 'AIzaSy', 'ghp_', 'whatever-value', 'sk-live']) assert.ok(!out.includes(leaked), leaked);
  assert.match(out, /OPENAI_API_KEY=\[REDACTED\]/);
  assert.match(out, /4109d688-248b-4046-b8d5-4ccdaebd3df3/);
  assert.match(out, /"input_tokens":120/);
  assert.match(out, /"output_tokens":40/);
});

test('configured secrets: every occurrence, from 6 characters up', () => {
  assert.equal(redactSecrets('use my-custom-secret-value here', ['my-custom-secret-value']), 'use [REDACTED] here');
  assert.equal(redactSecrets('a s3cr3t and s3cr3t again', ['s3cr3t']), 'a [REDACTED] and [REDACTED] again', 'exactly 6 characters is a secret');
  assert.equal(redactSecrets('short abcde', ['abcde']), 'short abcde', 'values shorter than 6 are not treated as secrets');
  assert.equal(redactSecrets('one qwerty1 two zxcvbn2', ['qwerty1', 'zxcvbn2']), 'one [REDACTED] two [REDACTED]', 'every configured value');
  assert.equal(redactSecrets('nothing here', []), 'nothing here');
});

test('each known shape, at its length limits', () => {
  const cases: [string, string][] = [
    ['Authorization: Bearer abcd1234', 'Authorization: Bearer [REDACTED]'],
    ['bearer  a.b~c+d/e=', 'bearer  [REDACTED]'],
    ['Bearer abc1234', 'Bearer abc1234'],
    ['sk-abcd1234', '[REDACTED]'],
    ['sk-ant-abcd_123', '[REDACTED]'],
    ['sk-abc1234', 'sk-abc1234'],
    ['xsk-abcd12345', 'xsk-abcd12345'],
    [`AIza${'a'.repeat(20)}`, '[REDACTED]'],
    [`AIza${'a'.repeat(19)}`, `AIza${'a'.repeat(19)}`],
    [`ghp_${'A1'.repeat(10)}`, '[REDACTED]'],
    [`gho_${'a'.repeat(20)} ghu_${'b'.repeat(20)} ghs_${'c'.repeat(20)} ghr_${'d'.repeat(20)}`, '[REDACTED] [REDACTED] [REDACTED] [REDACTED]'],
    [`ghp_${'a'.repeat(19)}`, `ghp_${'a'.repeat(19)}`],
    [`ghx_${'a'.repeat(20)}`, `ghx_${'a'.repeat(20)}`],
    ['xoxb-1234567890-abc', '[REDACTED]'],
    ['xoxa-1234567890 xoxp-1234567890 xoxr-1234567890 xoxs-1234567890', '[REDACTED] [REDACTED] [REDACTED] [REDACTED]'],
    ['xoxb-123456789', 'xoxb-123456789'],
    ['xoxz-1234567890', 'xoxz-1234567890'],
    ['{"api_key": "v1"}', '{"api_key": "[REDACTED]"}'],
    ['{"API-KEY":"v"} {"apikey":"v"} {"Authorization":"v"} {"x-api-key":"v"} {"x-goog-api-key":"v"}', '{"API-KEY":"[REDACTED]"} {"apikey":"[REDACTED]"} {"Authorization":"[REDACTED]"} {"x-api-key":"[REDACTED]"} {"x-goog-api-key":"[REDACTED]"}'],
    ['{"password":"p"} {"secret":"s"} {"access_token":"a"} {"refresh-token":"r"} {"accesstoken":"a"} {"refreshtoken":"r"}', '{"password":"[REDACTED]"} {"secret":"[REDACTED]"} {"access_token":"[REDACTED]"} {"refresh-token":"[REDACTED]"} {"accesstoken":"[REDACTED]"} {"refreshtoken":"[REDACTED]"}'],
    ['{"input_tokens":"5","apiKey2":"x"}', '{"input_tokens":"5","apiKey2":"x"}'],
    ['GITHUB_TOKEN=abc SECRET=x PASSWORD=y API_KEY=z', 'GITHUB_TOKEN=[REDACTED] SECRET=[REDACTED] PASSWORD=[REDACTED] API_KEY=[REDACTED]'],
    ['MY_APP_SECRET=s1 next', 'MY_APP_SECRET=[REDACTED] next'],
    ['TOKENS=5 MAX_TOKENS_X=1 token=abc', 'TOKENS=5 MAX_TOKENS_X=1 token=abc'],
  ];
  for (const [input, expected] of cases) assert.equal(redactSecrets(input, []), expected, input);
});
