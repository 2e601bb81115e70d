import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeFileName, storedName, withAttachments } from '../../../src/modules/media/attachments.ts';
import { formatSize } from '../../../src/protocol/media.ts';
import { SAFE_MEDIA_NAME, mediaType } from '../../../src/modules/media/media.service.ts';

test('upload names are sanitized: no paths, no dot-dot, no hidden files, extension lower-cased', () => {
  const cases: [string, string][] = [
    ['photo.PNG', 'photo.png'],
    ['My Report (final).PDF', 'My-Report-final.pdf'],
    ['../../etc/passwd', 'etc-passwd'],
    ['a/b', 'a-b'],
    ['a\\b.txt', 'a-b.txt'],
    ['%2e%2e', '2e-2e'],
    ['..', 'file'],
    ['.bashrc', 'bashrc'],
    ['...hidden.TXT', 'hidden.txt'],
    ['café.jpeg', 'cafe.jpeg'],
    ['фото.png', 'file.png'],
    ['日本語', 'file'],
    ['a..b...c', 'a.b.c'],
    ['name.tar.GZ', 'name.tar.gz'],
    ['x\u0000y.bin', 'x-y.bin'],
    ['--dash--.md', 'dash.md'],
    ['a - b.txt', 'a-b.txt'],
    ['a--b.txt', 'a-b.txt'],
    ['report.-.txt', 'report.txt'],
    ['x.-', 'x'],
    ['a.-.-.png', 'a.png'],
    ['.-.-a', 'a'],
  ];
  for (const [input, expected] of cases) assert.equal(sanitizeFileName(input), expected, input);
});

test('stored names always satisfy the media route and keep the time, the random part and the extension', () => {
  const now = new Date(Date.UTC(2026, 10, 21, 10, 15, 0));
  assert.equal(storedName('photo.png', now, 'ab12cd'), '20261121-101500-ab12cd-photo.png');
  const long = `${'x'.repeat(500)}.jpeg`;
  for (const input of ['../../etc/passwd', '..', '.', '', long, 'ü'.repeat(300), `${'.'.repeat(250)}a`, 'a'.repeat(199)]) {
    const name = storedName(sanitizeFileName(input), now, 'ab12cd');
    assert.match(name, SAFE_MEDIA_NAME, input.slice(0, 20));
    assert.ok(!name.includes('..'), name);
  }
  assert.ok(storedName(sanitizeFileName(long), now, 'ab12cd').endsWith('x.jpeg'), 'a cut name keeps its extension');
});

test('sizes read like a file manager shows them', () => {
  assert.equal(formatSize(0), '0 B');
  assert.equal(formatSize(1023), '1023 B');
  assert.equal(formatSize(12_595), '12.3 KB');
  assert.equal(formatSize(25 * 1024 * 1024), '25.0 MB');
  assert.equal(formatSize(3 * 1024 ** 3), '3.0 GB');
});

test('the attachment block follows the prompt, or stands alone', () => {
  const files = [
    { path: '/m/20261121-101500-ab12cd-photo.png', type: 'image/png', size: 12_595 },
    { path: '/m/20261121-101501-ef34ab-notes.txt', type: 'text/plain; charset=utf-8', size: 10 },
  ];
  assert.equal(
    withAttachments('what is this?', files),
    'what is this?\n\nAttached files:\n- /m/20261121-101500-ab12cd-photo.png (image/png, 12.3 KB)\n- /m/20261121-101501-ef34ab-notes.txt (text/plain, 10 B)',
  );
  assert.equal(withAttachments('', files.slice(0, 1)), 'Attached files:\n- /m/20261121-101500-ab12cd-photo.png (image/png, 12.3 KB)');
  assert.equal(withAttachments('just text', []), 'just text');
  assert.equal(withAttachments('', [{ path: '/m/a.txt', type: 'text/plain ; charset=utf-8', size: 1 }]), 'Attached files:\n- /m/a.txt (text/plain, 1 B)');
});

test('media types: common uploads are typed, active content never is', () => {
  assert.equal(mediaType('a.PNG'), 'image/png');
  assert.equal(mediaType('a.mp3'), 'audio/mpeg');
  assert.equal(mediaType('a.csv'), 'text/csv; charset=utf-8');
  for (const name of ['a.html', 'a.htm', 'a.svg', 'a.xml', 'a.js', 'a.mjs', 'a.xhtml', 'noext']) {
    assert.equal(mediaType(name), 'application/octet-stream', name);
  }
});
