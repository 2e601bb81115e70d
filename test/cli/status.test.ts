// `svc status` against a real server: the runtime facts stand for the health check when the caller may
// read them, and a server that refuses them (a remote one, no token) is still reported as running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSvc } from '../support/cli.ts';
import { getJson, startServer } from '../support/server.ts';

const NO_TOKEN = { SVC_TOKEN: '', SVC_RUN_TOKEN: '', SVC_URL: '' };

test('status --json: health comes from /api/runtime, in the shape GET /api/health has', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const result = await runSvc(['status', '--json', '--url', server.url], { env: NO_TOKEN });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  const health = (await getJson(`${server.url}/api/health`)).body;
  assert.deepEqual(Object.keys(report.health), Object.keys(health));
  assert.equal(report.health.version, health.version);
  assert.equal(report.health.uptimeMs, report.runtime.uptimeMs, 'the runtime answer is the health figure');
  assert.equal(report.runtime.home, server.home);
  assert.ok(report.disk.totalBytes > 0);
  assert.ok(report.providers.claude);
});

test('status of a server that refuses the runtime facts (remote, no token): running, from GET /api/health', async (t) => {
  const server = await startServer({ classifyPeer: () => 'remote' });
  t.after(() => server.close());
  assert.equal((await getJson(`${server.url}/api/runtime`)).status, 401, 'the premise: runtime needs the token');
  const result = await runSvc(['status', '--url', server.url], { env: NO_TOKEN });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^svc \\d+\\.\\d+\\.\\d+ is running at ${server.url} \\(up \\d+ s\\)\n`));
  assert.doesNotMatch(result.stdout, /pid \d+|disk use|providers:/, 'nothing it was refused is shown');

  const withToken = await runSvc(['status', '--url', server.url], { env: { ...NO_TOKEN, SVC_TOKEN: server.app.services.token } });
  assert.equal(withToken.code, 0, withToken.stderr);
  assert.match(withToken.stdout, new RegExp(`pid ${process.pid}, data directory ${server.home}`));
  assert.match(withToken.stdout, /disk use: /);
});
