// The real CLIs, driven by svc against the fake model, call a tool of a real MCP server
// (test/fixtures/mcp/probe-server.mjs, written with @modelcontextprotocol/sdk) that svc handed them through
// each CLI's per-run mechanism (docs/mcp.md). Codex is left out: 0.169 offers MCP tools only
// through its `tool_search`, which the fake model does not drive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, MCP_PROBE_TEXT } from '../../support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath, type RealCliName } from '../../support/real-clis.ts';
import { sendJson, startServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';

const PROBE = join(PROJECT_ROOT, 'test', 'fixtures', 'mcp', 'probe-server.mjs');
const SECRET = 'probe-secret-7f3a9c';

for (const NAME of ['claude', 'gemini', 'opencode', 'copilot'] as RealCliName[]) test(`real ${NAME} calls a tool of the MCP server svc gives the run`, { skip: realCliPath(NAME) ? false : `${NAME} not installed: run scripts/install-real-clis.sh`, timeout: 120_000 }, async (t) => {
  const fake = await startFakeModel();
  // Gemini ignores a settings file with a world-writable directory above it (/tmp): svc's home, where runs'
  // private directories are made, is put in the project's test-output instead.
  mkdirSync(join(PROJECT_ROOT, 'test-output'), { recursive: true });
  const home = mkdtempSync(join(PROJECT_ROOT, 'test-output', 'svc-mcp-home-'));
  const server = await startServer({ home, retryBaseMs: 10, killGraceMs: 500 });
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { env, cwd, home: userHome } = prepareRealCliEnv(NAME, fake.url, mkdtempSync(join(tmpdir(), 'svc-real-mcp-')));
  server.app.services.settings.update({
    agent: { provider: NAME, model: NAME === 'gemini' ? 'gemini-2.5-flash' : '', executables: { [NAME]: realCliPath(NAME)! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 90 },
  });
  const put = await sendJson(`${server.url}/api/mcp`, 'PUT', {
    servers: [
      { name: 'probe', transport: 'stdio', command: process.execPath, args: [PROBE], env: { PROBE_SECRET: SECRET } },
      { name: 'other', transport: 'stdio', command: process.execPath, args: [PROBE], enabled: false },
    ],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));

  const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'Use the probe. scenario:mcp' })).done;
  const done = lines.at(-1);
  const offered = fake.requests.flatMap((r) => r.tools);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  assert.ok(offered.some((name) => name.endsWith('svc_probe')), `the MCP tool is offered: ${offered.join(' ')}`);
  const tools = lines.filter((l) => l.type === 'tool');
  const expected = `probe-pong:${MCP_PROBE_TEXT}:${SECRET}`;
  // Each CLI names it its own way: mcp__probe__svc_probe, probe_svc_probe, probe-svc_probe, …
  assert.ok(tools.some((l) => l.status === 'running' && /probe.*svc_probe$/.test(l.name)), JSON.stringify(tools));
  assert.ok(tools.some((l) => l.status === 'ok' && l.output?.includes(expected)), JSON.stringify(tools));
  assert.match(done.text, new RegExp(expected));

  // Only the enabled server was offered to the model.
  assert.ok(!offered.some((name) => /other/.test(name)), 'a disabled server is not given to the run');

  // The trace has the tool's result, with the server's env secret redacted.
  const trace = readFileSync(join(server.home, 'traces', `${done.traceId}.ndjson`), 'utf8');
  assert.match(trace, /probe-pong:ping/);
  assert.ok(!trace.includes(SECRET), 'the MCP env secret is redacted from the trace');

  // Nothing was written into the project or the user's Claude config.
  assert.equal(existsSync(join(cwd, '.mcp.json')), false);
  const userConfigs = readdirSync(userHome).filter((f) => f.startsWith('.claude')).map((f) => join(userHome, f));
  for (const file of userConfigs.filter((f) => f.endsWith('.json'))) assert.ok(!readFileSync(file, 'utf8').includes(PROBE), `${file} names the run's MCP server`);
});
