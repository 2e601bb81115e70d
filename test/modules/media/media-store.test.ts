// The media directory's path checks and store (src/modules/media/media.service.ts) on a temp folder,
// without a server: names, links, partial uploads, and the served types (the table is the contract).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../src/core/errors.ts';
import { MediaStore, SAFE_MEDIA_NAME, mediaType, resolveMediaFile } from '../../../src/modules/media/media.service.ts';

function folder(t: { after(fn: () => void): void }): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-media-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return `${err.status} ${err.code}`;
  }
  return 'resolved';
};

test('every served type, and octet-stream for anything else', () => {
  const table: Record<string, string> = {
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif',
    txt: 'text/plain; charset=utf-8', log: 'text/plain; charset=utf-8', md: 'text/markdown; charset=utf-8', csv: 'text/csv; charset=utf-8',
    json: 'application/json', pdf: 'application/pdf', zip: 'application/zip', mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav',
    ogg: 'audio/ogg', webm: 'video/webm', mp4: 'video/mp4', mov: 'video/quicktime',
  };
  for (const [ext, type] of Object.entries(table)) {
    assert.equal(mediaType(`/m/a.${ext}`), type, ext);
    assert.equal(mediaType(`a.${ext.toUpperCase()}`), type, ext.toUpperCase());
  }
  for (const name of ['a.html', 'a.svg', 'a.js', 'png', 'a.png.exe', '']) assert.equal(mediaType(name), 'application/octet-stream', name);
});

test('safe names: a letter or digit first, then letters, digits, dots, dashes, underscores; 200 at most', () => {
  for (const name of ['a', '0.png', 'a-b_c.d', 'a'.repeat(200)]) assert.match(name, SAFE_MEDIA_NAME);
  for (const name of ['', '.a', '-a', '_a', 'a/b', 'a b', 'a'.repeat(201), 'a\\b', 'é']) assert.doesNotMatch(name, SAFE_MEDIA_NAME, name);
});

test('resolveMediaFile: a stored file by name; 400 for a name that is not plain, 404 for anything else', (t) => {
  const dir = folder(t);
  const outside = folder(t);
  writeFileSync(join(dir, 'shot.png'), 'png');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'out.txt'));
  symlinkSync(join(dir, 'shot.png'), join(dir, 'in.png'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'broken.png'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(`${dir}-sibling.txt`), 'sibling');
  t.after(() => rmSync(`${dir}-sibling.txt`, { force: true }));
  assert.equal(resolveMediaFile(dir, 'shot.png'), join(dir, 'shot.png'));
  assert.equal(resolveMediaFile(dir, 'in.png'), join(dir, 'shot.png'), 'a link that stays inside is followed');
  for (const name of ['../x', 'a..b', '.hidden', 'a/b', '', '..']) assert.equal(refusal(() => resolveMediaFile(dir, name)), '400 INVALID_FILENAME', name);
  for (const name of ['missing.png', 'out.txt', 'broken.png', 'sub']) assert.equal(refusal(() => resolveMediaFile(dir, name)), '404 NOT_FOUND', name);
  assert.equal(refusal(() => resolveMediaFile(join(dir, 'gone'), 'shot.png')), '404 NOT_FOUND', 'no media directory');
  // the directory's own name as a prefix is not "inside" (/tmp/m vs /tmp/m-sibling.txt)
  const parent = join(dir, '..');
  const base = dir.slice(parent.length + 1);
  symlinkSync(`${dir}-sibling.txt`, join(dir, 'sib.txt'));
  assert.equal(refusal(() => resolveMediaFile(dir, 'sib.txt')), '404 NOT_FOUND', base);
  let message = '';
  try {
    resolveMediaFile(dir, '../x');
  } catch (err) {
    message = (err as Error).message;
  }
  assert.equal(message, 'A media file name has letters, digits, dots, dashes and underscores only.');
  for (const name of ['missing.png', 'sub']) assert.throws(() => resolveMediaFile(dir, name), (err: Error) => err.message === `media file '${name}' not found.`, name);
});

test('MediaStore: saves under a fresh safe name without replacing anything, lists attachments, clears partial uploads', async (t) => {
  const dir = folder(t);
  const store = new MediaStore(dir);
  const saved = await store.save('../My Photo.PNG', Buffer.from('abc'), 'image/png');
  assert.match(saved.filename, /^\d{8}-\d{6}-[0-9a-f]{6}-My-Photo\.png$/);
  assert.match(saved.filename, SAFE_MEDIA_NAME);
  assert.deepEqual({ ...saved, filename: undefined }, { filename: undefined, url: `/media/${saved.filename}`, path: join(dir, saved.filename), size: 3, type: 'image/png', name: '../My Photo.PNG' });
  assert.equal(readFileSync(saved.path, 'utf8'), 'abc');
  assert.equal(statSync(saved.path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), [saved.filename], 'no partial file is left');
  const second = await store.save('../My Photo.PNG', Buffer.from('de'), 'image/png');
  assert.notEqual(second.filename, saved.filename);
  assert.equal(store.resolve(saved.filename), saved.path);
  assert.deepEqual(store.attachments([saved.filename, second.filename]), [
    { path: saved.path, type: 'image/png', size: 3 },
    { path: second.path, type: 'image/png', size: 2 },
  ]);
  assert.equal(refusal(() => store.attachments([saved.filename, 'missing.png'])), '404 NOT_FOUND');
  writeFileSync(join(dir, '.upload-0a1b.part'), 'half');
  writeFileSync(join(dir, '.upload-0a1b.part.keep'), 'not a partial');
  writeFileSync(join(dir, 'x.upload-0a1b.part'), 'not a partial');
  assert.equal(store.removePartials(), 1);
  assert.deepEqual(readdirSync(dir).sort(), [saved.filename, second.filename, '.upload-0a1b.part.keep', 'x.upload-0a1b.part'].sort());
  assert.equal(store.removePartials(), 0);
});
