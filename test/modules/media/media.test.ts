import { test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { startServer, tempHome } from '../../support/server.ts';

test('GET /media/:filename serves media files and nothing outside the media directory', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const media = join(server.home, 'media');
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  writeFileSync(join(media, 'shot-1.png'), png);
  const outside = tempHome('svc-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'top secret');
  symlinkSync(join(outside, 'secret.txt'), join(media, 'link.txt'));
  symlinkSync(join(server.home, 'token'), join(media, 'token.txt'));
  mkdirSync(join(media, 'sub'));

  const ok = await fetch(`${server.url}/media/shot-1.png`);
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await ok.arrayBuffer()), png);

  const attempts = [
    '..%2Ftoken',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2ftoken',
    '%2e%2e',
    '.hidden',
    'sub',
    'link.txt',
    'token.txt',
    'missing.png',
    '%2Fetc%2Fpasswd',
    'shot-1.png%00.txt',
    '..%5Ctoken',
  ];
  // raw requests: a WHATWG URL client would normalize `%2e%2e` and `..` away before sending
  const rawGet = (path: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.port, path, agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      }).on('error', reject);
    });
  for (const name of attempts) {
    const answer = await rawGet(`/media/${name}`);
    assert.ok([400, 404].includes(answer.status), `${name} → ${answer.status}`);
    // encoded separators, dots and NUL are refused as paths before the route (BAD_URL); the rest by the route
    assert.ok(['INVALID_FILENAME', 'NOT_FOUND', 'BAD_URL'].includes(answer.body.error), name);
    assert.ok(!JSON.stringify(answer.body).includes('top secret'));
    assert.ok(!JSON.stringify(answer.body).includes(server.app.services.token));
  }
  const dotdot = await rawGet('/media/../token');
  assert.ok([400, 404].includes(dotdot.status));
  assert.ok(!JSON.stringify(dotdot.body).includes(server.app.services.token));
});
