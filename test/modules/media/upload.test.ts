import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import http from 'node:http';
import { getJson, startServer, type TestServer } from '../../support/server.ts';
import { SAFE_MEDIA_NAME } from '../../../src/modules/media/media.service.ts';
import { UPLOAD_LIMIT_BYTES } from '../../../src/protocol/media.ts';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from([0, 255, 128, 10, 13, 0, 1, 2])]);
const SANDBOX = "default-src 'none'; sandbox";

describe('POST /api/upload', () => {
  let server: TestServer;
  let media: string;
  before(async () => {
    server = await startServer();
    media = realpathSync(join(server.home, 'media'));
  });
  after(() => server.close());

  /** `query` is sent as written (raw), so tests control the encoding; type '' sends none. */
  const upload = (query: string, body: Buffer<ArrayBuffer> | string, type = 'application/octet-stream') =>
    getJson(`${server.url}/api/upload${query}`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
  const stored = () => readdirSync(media).sort();

  test('stores the bytes and serves them back identical, with the type of the extension', async () => {
    const answer = await upload('?filename=Screen%20Shot.PNG', PNG, 'image/png');
    assert.equal(answer.status, 201);
    const { filename, url, path, size, type, name } = answer.body;
    assert.match(filename, /^\d{8}-\d{6}-[0-9a-z]{6}-Screen-Shot\.png$/);
    assert.match(filename, SAFE_MEDIA_NAME);
    assert.deepEqual(answer.body, { filename, url: `/media/${filename}`, path: join(media, filename), size: PNG.length, type: 'image/png', name: 'Screen Shot.PNG' });
    assert.deepEqual(readFileSync(path), PNG);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const back = await fetch(`${server.url}${url}`);
    assert.equal(back.status, 200);
    assert.equal(back.headers.get('content-type'), 'image/png');
    assert.equal(back.headers.get('content-security-policy'), SANDBOX);
    assert.deepEqual(Buffer.from(await back.arrayBuffer()), PNG);
    assert.equal(size, PNG.length);
    assert.equal(type, 'image/png');
    assert.equal(name, 'Screen Shot.PNG');
  });

  test('path tricks in the name never leave the media directory', async () => {
    const names: [string, string][] = [
      [`?filename=${encodeURIComponent('../../etc/passwd')}`, '../../etc/passwd'],
      ['?filename=../../etc/passwd', '../../etc/passwd'],
      [`?filename=${encodeURIComponent('a/b')}`, 'a/b'],
      ['?filename=%2e%2e', '..'],
      ['?filename=%252e%252e%252ftoken', '%2e%2e%2ftoken'],
      ['?filename=..%5C..%5Ctoken', '..\\..\\token'],
      ['?filename=.htaccess', '.htaccess'],
      ['?filename=...', '...'],
      [`?filename=${encodeURIComponent('фото отпуск.JPG')}`, 'фото отпуск.JPG'],
      [`?filename=${encodeURIComponent('/etc/shadow')}`, '/etc/shadow'],
      ['?filename=token', 'token'],
    ];
    for (const [query, original] of names) {
      const answer = await upload(query, 'x');
      assert.equal(answer.status, 201, query);
      const { filename, path, name } = answer.body;
      assert.equal(name, original, query);
      assert.match(filename, SAFE_MEDIA_NAME, query);
      assert.ok(!filename.includes('..') && !filename.includes('/'), filename);
      assert.equal(dirname(path), media, query);
      assert.equal(realpathSync(path), path, query);
      assert.equal(readFileSync(path, 'utf8'), 'x');
      assert.equal((await fetch(`${server.url}/media/${filename}`)).status, 200, query);
    }
    assert.notEqual(readFileSync(join(server.home, 'token'), 'utf8'), 'x', 'the token file is untouched');
    const photo = stored().find((f) => f.endsWith('.jpg'));
    assert.match(photo ?? '', /-file\.jpg$/, 'a name of only non-ASCII letters keeps its extension');
  });

  test('the safelisted types, JSON and a missing type are 415 before anything is stored', async () => {
    const before = stored();
    for (const type of ['multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'text/plain', 'Text/Plain;charset=UTF-8', 'application/json', '']) {
      // a Buffer: fetch would add text/plain to a string body
      const answer = await upload('?filename=a.txt', Buffer.from('abc'), type);
      assert.equal(answer.status, 415, type);
      assert.equal(answer.body.error, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(answer.body.message, /application\/octet-stream/);
    }
    assert.deepEqual(stored(), before);
  });

  test('the bytes parser is only on this route: other mutating routes stay JSON-only', async () => {
    const answer = await getJson(`${server.url}/api/chat-sessions`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: '{"title":"x"}' });
    assert.equal(answer.status, 415);
    assert.equal(answer.body.error, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('over 25 MiB is 413 naming the limit, streamed or announced, and the server keeps serving', async () => {
    assert.equal(UPLOAD_LIMIT_BYTES, 25 * 1024 * 1024);
    const before = stored();
    // a chunked stream of 26 MiB: no Content-Length, so the limit is enforced while reading
    const streamed = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = http.request(`${server.url}/api/upload?filename=big.bin`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, agent: false }, (response) => {
        let text = '';
        response.on('data', (c) => (text += c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      request.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      const pump = () => {
        while (sent < 26) {
          sent += 1;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        request.end();
      };
      pump();
    });
    assert.equal(streamed.status, 413);
    assert.equal(streamed.body.error, 'PAYLOAD_TOO_LARGE');
    assert.match(streamed.body.message, /25 MiB/);
    const announced = await upload('?filename=big.bin', Buffer.alloc(UPLOAD_LIMIT_BYTES + 1));
    assert.equal(announced.status, 413);
    assert.equal(announced.body.error, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual(stored(), before, 'nothing stored');
    assert.equal((await getJson(`${server.url}/api/health`)).status, 200);
    const justUnder = await upload('?filename=limit.bin', Buffer.alloc(UPLOAD_LIMIT_BYTES, 1));
    assert.equal(justUnder.status, 201, 'exactly the limit is accepted');
    assert.equal(justUnder.body.size, UPLOAD_LIMIT_BYTES);
  });

  test('an empty body, a missing or overlong name are 400', async () => {
    const before = stored();
    const empty = await upload('?filename=a.png', Buffer.alloc(0));
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error, 'EMPTY_UPLOAD');
    for (const query of ['', '?filename=', `?filename=${'a'.repeat(201)}`, '?name=a.png']) {
      const answer = await upload(query, 'abc');
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.error, 'VALIDATION_FAILED', query);
    }
    const missing = await upload('', 'abc');
    assert.equal(missing.body.field, 'filename');
    assert.match(missing.body.message, /filename/);
    assert.deepEqual(stored(), before);
  });

  test('active content is stored but served inert: octet-stream under a sandbox CSP', async () => {
    for (const name of ['page.html', 'image.SVG', 'feed.xml', 'app.js']) {
      const answer = await upload(`?filename=${name}`, '<script>alert(1)</script>', 'text/html');
      assert.equal(answer.status, 201, name);
      const back = await fetch(`${server.url}${answer.body.url}`);
      assert.equal(back.headers.get('content-type'), 'application/octet-stream', name);
      assert.equal(back.headers.get('content-security-policy'), SANDBOX);
      assert.equal(back.headers.get('x-content-type-options'), 'nosniff');
    }
  });

  test('common upload types are served with their type', async () => {
    for (const [name, type] of [['a.mp3', 'audio/mpeg'], ['a.wav', 'audio/wav'], ['a.mp4', 'video/mp4'], ['a.md', 'text/markdown; charset=utf-8'], ['a.csv', 'text/csv; charset=utf-8']]) {
      const answer = await upload(`?filename=${name}`, 'data');
      assert.equal((await fetch(`${server.url}${answer.body.url}`)).headers.get('content-type'), type, name);
    }
  });
});
