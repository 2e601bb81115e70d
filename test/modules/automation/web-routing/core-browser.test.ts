// The service's web-routing rules reach the controlled browser: a rule added on the core server
// (POST /api/command) changes what a page loaded through /api/browser/act sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer } from '../../../support/server.ts';
import { postNdjson } from '../../../support/ndjson.ts';
import { sendJson } from '../../../support/server.ts';
import { freePort } from '../../../support/ports.ts';


test('a mock rule added on the core applies in the browser the core started', { timeout: 120_000 }, async () => {
  const site = http.createServer((req, res) => {
    if (req.url === '/api/user') return void res.end(JSON.stringify({ name: 'real' }));
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>t</title><p id="out">loading</p><script>fetch('/api/user').then(r => r.json()).then(u => { document.getElementById('out').textContent = u.name })</script>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const server = await startServer({ browserPort: await freePort() });
  try {
    const added = await (await postNdjson(`${server.url}/api/command`, { text: `/web-routing mock GET /api/user '{"name":"mocked"}'` })).done;
    assert.equal(added.at(-1).status, 'ok', JSON.stringify(added));
    const open = await sendJson(`${server.url}/api/browser/act`, 'POST', { action: 'open', url: siteUrl });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    const waited = await sendJson(`${server.url}/api/browser/act`, 'POST', { action: 'wait', selector: '#out:not(:empty)', timeout: 10_000 });
    assert.equal(waited.status, 200, JSON.stringify(waited.body));
    let text = '';
    for (let i = 0; i < 50 && text !== 'mocked'; i++) {
      const extract = await sendJson(`${server.url}/api/browser/act`, 'POST', { action: 'extract', target: '#out', what: 'text' });
      text = JSON.stringify(extract.body).includes('mocked') ? 'mocked' : JSON.stringify(extract.body);
      if (text !== 'mocked') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(text, 'mocked');
  } finally {
    await server.close();
    site.close();
  }
});
