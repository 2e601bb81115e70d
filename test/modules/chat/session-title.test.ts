import { test } from 'node:test';
import assert from 'node:assert/strict';
import { titleFromMessage, MAX_AUTO_TITLE } from '../../../src/modules/chat/session-title.ts';
import { withAttachments } from '../../../src/modules/media/attachments.ts';

test('the first non-empty line, whitespace tidied', () => {
  assert.equal(titleFromMessage('\n\n   Fix the   flaky test\nin CI please'), 'Fix the flaky test');
  assert.equal(titleFromMessage('   \n  '), undefined);
});

test('long lines are cut at a word, with an ellipsis, within the limit', () => {
  const title = titleFromMessage('Please explain how the replay buffer of the event stream decides what a reconnecting client gets')!;
  assert.ok(title.length <= MAX_AUTO_TITLE, title);
  assert.equal(title, 'Please explain how the replay buffer of the event stream…');
  const word = titleFromMessage('x'.repeat(100))!;
  assert.equal(word, `${'x'.repeat(MAX_AUTO_TITLE - 1)}…`, 'one long word is cut where it must be');
});

test('the attachment block never becomes the title', () => {
  const file = { path: '/h/.svc/media/20261121-101500-ab12cd-photo.png', type: 'image/png', size: 10 };
  assert.equal(titleFromMessage(withAttachments('What is this?', [file])), 'What is this?');
  assert.equal(titleFromMessage(withAttachments('', [file])), 'Attached files');
});
