// POST /api/mcp/install: npm install into <home>/mcp from a local package directory (only the npm
// registry is reachable here, and a test must not depend on it), progress as mcp_install events,
// registration only on success.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { PROJECT_ROOT } from '../../support/real-clis.ts';

function packageDir(manifest: Record<string, unknown> | string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-pkg-'));
  writeFileSync(join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o755 });
  return dir;
}

test('a local package is installed into <home>/mcp and registered; failures register nothing', { timeout: 120_000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const events: { status: string; line?: string; message?: string }[] = [];
  server.app.services.bus.subscribe((e) => {
    if (e.name === 'mcp_install') events.push(e.payload as (typeof events)[number]);
  });
  const probe = readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'mcp', 'probe-server.mjs'), 'utf8');
  const good = packageDir(
    { name: 'svc-test-probe-mcp', version: '1.0.0', bin: { 'svc-test-probe-mcp': 'server.mjs' } },
    { 'server.mjs': `#!/usr/bin/env node\n${probe}` },
  );

  const res = await sendJson(`${server.url}/api/mcp/install`, 'POST', { package: good, args: ['--stdio'], env: { PROBE_SECRET: 'install-secret' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const command = join(server.home, 'mcp', 'node_modules', '.bin', 'svc-test-probe-mcp');
  assert.deepEqual(res.body.server, { name: 'svc-test-probe-mcp', transport: 'stdio', command, args: ['--stdio'], env: { PROBE_SECRET: '***' }, enabled: true });
  assert.ok(existsSync(command), 'the binary is in svc\'s own prefix');
  assert.ok(JSON.parse(readFileSync(join(server.home, 'mcp', 'package.json'), 'utf8')).dependencies['svc-test-probe-mcp']);
  assert.deepEqual((await getJson(`${server.url}/api/mcp`)).body.servers.map((s: { name: string }) => s.name), ['svc-test-probe-mcp']);
  assert.equal(events[0]!.status, 'running');
  assert.equal(events.at(-1)!.status, 'ok');

  // npm fails (a broken package.json): 502, nothing registered.
  const before = (await getJson(`${server.url}/api/mcp`)).body;
  const broken = await sendJson(`${server.url}/api/mcp/install`, 'POST', { package: packageDir('{ broken'), name: 'broken' });
  assert.equal(broken.status, 502, JSON.stringify(broken.body));
  assert.equal(broken.body.error, 'MCP_INSTALL_FAILED');
  assert.match(broken.body.message, /Nothing was registered/);
  assert.equal(events.at(-1)!.status, 'error');
  // Installed but nothing to run: 422, nothing registered.
  const noBin = await sendJson(`${server.url}/api/mcp/install`, 'POST', { package: packageDir({ name: 'svc-test-no-bin', version: '1.0.0' }) });
  assert.equal(noBin.status, 422, JSON.stringify(noBin.body));
  assert.match(noBin.body.message, /no binary/);
  assert.deepEqual((await getJson(`${server.url}/api/mcp`)).body, before);

  // Bad specs never reach npm.
  for (const spec of ['--global', 'foo; rm -rf /', '/does/not/exist']) {
    const bad = await sendJson(`${server.url}/api/mcp/install`, 'POST', { package: spec });
    assert.equal(bad.status, 400, spec);
  }
});
