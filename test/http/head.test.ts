// HEAD is answered as the GET it asks about, without a body (src/http/create-server.ts routes it so,
// instead of a HEAD route beside every GET one); a path without a GET route stays a 404.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

function send(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('HEAD of a GET route: the GET status and headers, no body', async () => {
  const get = await send('GET', '/api/health');
  const head = await send('HEAD', '/api/health');
  assert.equal(get.status, 200);
  assert.notEqual(get.body, '');
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-type'], get.headers['content-type']);
  assert.equal(head.headers['x-content-type-options'], 'nosniff');
});

test('HEAD passes the same guard as GET: a refused GET is a refused HEAD', async () => {
  const noToken = await send('HEAD', '/api/sessions', { host: `127.0.0.1:${server.port}`, 'sec-fetch-site': 'cross-site' });
  const get = await send('GET', '/api/sessions', { host: `127.0.0.1:${server.port}`, 'sec-fetch-site': 'cross-site' });
  assert.equal(noToken.status, get.status);
  assert.equal(noToken.body, '');
});

test('HEAD of a path with no GET route is a 404, as GET is', async () => {
  assert.equal((await send('GET', '/api/no-such-route')).status, 404);
  const head = await send('HEAD', '/api/no-such-route');
  assert.equal(head.status, 404);
  assert.equal(head.body, '');
  // a POST-only route has no GET to answer a HEAD with
  assert.equal((await send('HEAD', '/api/message')).status, (await send('GET', '/api/message')).status);
});
