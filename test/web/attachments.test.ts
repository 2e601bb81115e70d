// The UI reads back the attachment block the server writes: both sides are checked together here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withAttachments } from '../../src/modules/media/attachments.ts';
import { displayName, isImage, splitAttachments } from '../../web/src/attachments.ts';

const photo = { path: '/home/u/.svc/media/20261121-101500-ab12cd-photo.png', type: 'image/png', size: 12_600 };
const notes = { path: '/home/u/.svc/media/20261121-101501-00ff00-notes.txt', type: 'text/plain; charset=utf-8', size: 300 };

test('the server block splits back into the text and the files', () => {
  const content = withAttachments('What is in this picture?\n\nAnd the notes?', [photo, notes]);
  assert.deepEqual(splitAttachments(content), {
    text: 'What is in this picture?\n\nAnd the notes?',
    files: [
      { filename: '20261121-101500-ab12cd-photo.png', type: 'image/png', size: '12.3 KB' },
      { filename: '20261121-101501-00ff00-notes.txt', type: 'text/plain', size: '300 B' },
    ],
  });
  assert.deepEqual(splitAttachments(withAttachments('', [photo])).text, '', 'files only');
  assert.equal(splitAttachments(withAttachments('', [photo])).files.length, 1);
});

test('a message without a block, or with text that only looks like one, is shown as written', () => {
  assert.deepEqual(splitAttachments('hello'), { text: 'hello', files: [] });
  const typed = 'see below\n\nAttached files:\n- my shopping list';
  assert.deepEqual(splitAttachments(typed), { text: typed, files: [] });
});

test('display names and image types', () => {
  assert.equal(displayName('20261121-101500-ab12cd-photo.png'), 'photo.png');
  assert.equal(displayName('screenshot-1.png'), 'screenshot-1.png');
  assert.ok(isImage('image/png') && isImage('image/webp'));
  assert.ok(!isImage('image/svg+xml') && !isImage('application/pdf'));
});
