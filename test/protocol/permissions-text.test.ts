// The words and bodies of a permission request's answers, the same in the chat's card and the dashboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decidedText, decisionBody, expiryText } from '../../src/protocol/permissions-text.ts';

test('each answer is its decision body; a deny carries its reason only when one was written', () => {
  assert.deepEqual(decisionBody('once'), { decision: 'allow' });
  assert.deepEqual(decisionBody('session', 'ignored'), { decision: 'allow', remember: 'session' });
  assert.deepEqual(decisionBody('deny', '  not here  '), { decision: 'deny', reason: 'not here' });
  assert.deepEqual(decisionBody('deny', '   '), { decision: 'deny' });
});

test('the time left reads in minutes and seconds', () => {
  const now = 1_000_000;
  assert.equal(expiryText(now + 572_000, now), 'expires in 9 min 32 s');
  assert.equal(expiryText(now + 120_000, now), 'expires in 2 min');
  assert.equal(expiryText(now + 11_200, now), 'expires in 12 s');
  assert.equal(expiryText(now - 5, now), 'expiring now');
});

test('how it was decided, by whom or why', () => {
  assert.equal(decidedText('allow', 'person'), 'Allowed by a person');
  assert.equal(decidedText('deny', 'telegram'), 'Denied from Telegram');
  assert.equal(decidedText('deny', 'timeout'), 'Denied: nobody answered in time');
  assert.equal(decidedText('allow', 'rule'), 'Allowed by a remembered rule');
});
