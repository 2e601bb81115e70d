// Search text → FTS5 query (src/modules/chat/messages.repo.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toFtsQuery } from '../../../src/modules/chat/messages.repo.ts';

test('FTS queries quote user terms', () => {
  assert.equal(toFtsQuery('hello world'), '"hello" "world"');
  assert.equal(toFtsQuery('pine*'), '"pine"*');
  assert.equal(toFtsQuery('say "hi" OR'), '"say" """hi""" "OR"');
  assert.equal(toFtsQuery('   '), null);
});
