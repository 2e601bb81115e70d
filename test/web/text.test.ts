// Words for numbers in the web apps (web/ui/text.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { count } from '../../web/ui/text.ts';

test('a count takes the singular for one and the plural otherwise', () => {
  assert.equal(count(1, 'file'), '1 file');
  assert.equal(count(0, 'file'), '0 files');
  assert.equal(count(2, 'section'), '2 sections');
  assert.equal(count(1, 'entry', 'entries'), '1 entry');
  assert.equal(count(3, 'entry', 'entries'), '3 entries');
});
