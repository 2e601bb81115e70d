// Real Gemini CLI (against the fake model) and an svc home under a world-writable directory, as a home
// or a checkout under /tmp is: Gemini skips a settings file with such a directory above it, so the run's
// MCP servers go in a root-only run directory elsewhere (agent/run-dir.ts), and where there is none, the
// run goes on without them and says so in a failed step of its own.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, MCP_PROBE_TEXT } from '../../support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { sendJson, startServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';

const PROBE = join(PROJECT_ROOT, 'test', 'fixtures', 'mcp', 'probe-server.mjs');
const GEMINI = realCliPath('gemini');

/** A directory anyone may write to (mode 0777, which the sticky /tmp only adds a bit to). */
function worldWritable(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One Gemini run of svc with the probe MCP server, its svc home under a world-writable directory. */
async function geminiRun(t: TestContext) {
  const fake = await startFakeModel();
  const home = join(worldWritable(t, 'svc-ww-home-'), 'svc-home');
  const server = await startServer({ home, retryBaseMs: 10, killGraceMs: 500 });
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { env, cwd } = prepareRealCliEnv('gemini', fake.url, mkdtempSync(join(tmpdir(), 'svc-ww-cli-')));
  server.app.services.settings.update({
    agent: { provider: 'gemini', model: 'gemini-2.5-flash', executables: { gemini: GEMINI! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 90 },
  });
  const put = await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [{ name: 'probe', transport: 'stdio', command: process.execPath, args: [PROBE] }] });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'Use the probe. scenario:mcp' })).done;
  return { lines, done: lines.at(-1), offered: fake.requests.flatMap((r) => r.tools), tools: lines.filter((l) => l.type === 'tool') };
}

// Only root can make a file Gemini reads as system settings; the run directory then goes in root's cache
// (~/.cache/svc/runs), which is root-only wherever root's home is not under /tmp.
const asRoot = process.platform !== 'win32' && process.geteuid?.() === 0;

test('real gemini gets its MCP tools with svc\'s home under a world-writable directory', {
  skip: !GEMINI ? 'gemini not installed: run scripts/install-real-clis.sh' : !asRoot ? 'needs svc run as root: Gemini reads no other user\'s system settings file' : false,
  timeout: 120_000,
}, async (t) => {
  const { done, offered, tools } = await geminiRun(t);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  assert.ok(offered.some((name) => name.endsWith('svc_probe')), `the MCP tool is offered: ${offered.join(' ')}`);
  assert.ok(tools.some((l) => l.status === 'ok' && l.output?.includes(`probe-pong:${MCP_PROBE_TEXT}`)), JSON.stringify(tools));
  assert.ok(!tools.some((l) => l.name === 'MCP servers'), 'no notice');
});

test('real gemini without a root-only place for its settings: the run says it has no MCP servers', {
  skip: !GEMINI ? 'gemini not installed: run scripts/install-real-clis.sh' : process.platform === 'win32' ? 'POSIX only' : false,
  timeout: 120_000,
}, async (t) => {
  // the user's cache under a world-writable directory too: no candidate is root-only
  const saved = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = join(worldWritable(t, 'svc-ww-cache-'), 'cache');
  t.after(() => (saved === undefined ? delete process.env.XDG_CACHE_HOME : (process.env.XDG_CACHE_HOME = saved)));
  const { done, offered, tools } = await geminiRun(t);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  assert.ok(!offered.some((name) => name.endsWith('svc_probe')), `no MCP tool: ${offered.join(' ')}`);
  const notice = tools.find((l) => l.name === 'MCP servers' && l.status === 'error');
  assert.ok(notice, `a failed step says so: ${JSON.stringify(tools)}`);
  assert.match(notice.output, /^Gemini CLI was not given the MCP servers probe: .*(is writable by its group and everyone \(mode 777\)|svc runs as uid \d+, not as root)/);
});
