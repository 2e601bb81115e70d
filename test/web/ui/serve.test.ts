// How the server serves the built UI (src/modules/ui/ui.routes.ts): index without caching and with a
// strict CSP, content-hashed assets cached for a year, and a helpful page (not a 404) when the UI
// has not been built.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get as httpGet } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { getJson, startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, ROOT } from './helpers.ts';

describe('serving the web UI', () => {
  let server: TestServer;
  before(async () => {
    buildWeb();
    server = await startServer();
  });
  after(() => server.close());

  test('GET / is the built index.html: no-cache, CSP without inline script, hashed assets', async () => {
    const response = await fetch(`${server.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = await response.text();
    assert.equal(html, readFileSync(join(ROOT, 'web', 'dist', 'index.html'), 'utf8'));
    assert.doesNotMatch(html, /<script>[^<]|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    // relative: the same page works under the manager's /i/<id>/ prefix
    const script = /<script type="module" src="\.(\/assets\/app-[A-Z0-9]+\.js)"><\/script>/.exec(html);
    const style = /<link rel="stylesheet" href="\.(\/assets\/app-[A-Z0-9]+\.css)">/.exec(html);
    assert.ok(script && style, 'the index names the hashed bundles');
    assert.match(html, /<link rel="icon" href="\.\/favicon\.svg"/);

    for (const [path, type] of [[script[1]!, /javascript/], [style[1]!, /text\/css/]] as const) {
      const asset = await fetch(`${server.url}${path}`);
      assert.equal(asset.status, 200, path);
      assert.match(asset.headers.get('content-type') ?? '', type);
      const cache = asset.headers.get('cache-control') ?? '';
      assert.match(cache, /max-age=31536000/, path);
      assert.match(cache, /immutable/, path);
      assert.ok((await asset.arrayBuffer()).byteLength > 1000);
    }
    const favicon = await fetch(`${server.url}/favicon.svg`);
    assert.equal(favicon.status, 200);
    assert.match(favicon.headers.get('content-type') ?? '', /svg/);
  });

  test('assets go out brotli- or gzip-compressed to clients that accept it, identical once decoded', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const script = /src="\.(\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)![1]!;
    const original = readFileSync(join(ROOT, 'web', 'dist', script));
    const get = (encoding: string) =>
      new Promise<{ encoding?: string; vary?: string; body: Buffer }>((resolve, reject) => {
        httpGet(`${server.url}${script}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: String(res.headers.vary ?? ''), body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
    const br = await get('gzip, deflate, br');
    assert.equal(br.encoding, 'br');
    assert.match(br.vary!, /accept-encoding/i);
    assert.ok(br.body.length < original.length / 2, `${br.body.length} of ${original.length} bytes`);
    assert.deepEqual(brotliDecompressSync(br.body), original);
    const gz = await get('gzip');
    assert.equal(gz.encoding, 'gzip');
    assert.deepEqual(gunzipSync(gz.body), original);
    const plain = await get('identity');
    assert.equal(plain.encoding, undefined);
    assert.deepEqual(plain.body, original);
  });

  test('unknown files are 404s, and the API keeps its JSON errors', async () => {
    assert.equal((await fetch(`${server.url}/assets/app-NOPE.js`)).status, 404);
    assert.equal((await fetch(`${server.url}/assets/../../package.json`)).status, 404);
    const api = await getJson(`${server.url}/api/nope`);
    assert.equal(api.status, 404);
    assert.equal(api.body.error, 'NOT_FOUND');
  });

  test('the build writes only the current hashed assets, each with its .br and .gz', () => {
    const assets = readdirSync(join(ROOT, 'web', 'dist', 'assets'));
    for (const ext of ['.js', '.css']) {
      const [bundle, ...others] = assets.filter((n) => n.endsWith(ext));
      assert.ok(bundle && others.length === 0, assets.join(' '));
      assert.ok(assets.includes(`${bundle}.br`) && assets.includes(`${bundle}.gz`), assets.join(' '));
    }
    assert.equal(assets.length, 6, assets.join(' '));
    assert.ok(!assets.some((n) => n.includes('.tmp-')));
  });

  test('the bundle has no zod: the UI takes only types, and values from zod-free files, from src/protocol', () => {
    const assets = readdirSync(join(ROOT, 'web', 'dist', 'assets'));
    const js = readFileSync(join(ROOT, 'web', 'dist', 'assets', assets.find((n) => n.endsWith('.js'))!), 'utf8');
    assert.doesNotMatch(js, /ZodError|\$ZodType/, 'a value imported from a file that builds schemas brings zod (450 KB) along');
  });

  test('without web/dist, / says how to build it (not a 404)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-no-web-'));
    const previous = process.env.SVC_WEB_DIST;
    process.env.SVC_WEB_DIST = join(empty, 'dist');
    let bare: TestServer | undefined;
    try {
      bare = await startServer();
      const response = await fetch(`${bare.url}/`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/, 'no script at all on that page');
      const html = await response.text();
      assert.match(html, /not built/);
      assert.match(html, /npm run build/);
      assert.doesNotMatch(html, /<script/);
      assert.equal((await fetch(`${bare.url}/assets/app.js`)).status, 404);
      assert.equal((await getJson(`${bare.url}/api/health`)).status, 200, 'the API still works');
    } finally {
      if (previous === undefined) delete process.env.SVC_WEB_DIST;
      else process.env.SVC_WEB_DIST = previous;
      await bare?.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
