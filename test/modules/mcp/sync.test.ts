// POST /api/mcp/sync writes svc's servers into the user-level configs of the CLIs named, keeping
// every entry it did not write, backing files up first, and reporting per file (temp HOME).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { sendJson, startServer } from '../../support/server.ts';

/** Plain objects (smol-toml makes tables without a prototype). */
const parseToml = (text: string) => JSON.parse(JSON.stringify(parse(text)));

const CODEX_TOML = `# my codex config
model = "gpt-5.5"

[mcp_servers.mine]
# a comment of mine
command = "my-server"

[profiles.fast]
model = "gpt-5.5-mini"
`;

test('sync into claude, codex and gemini: keeps foreign entries, backs up, removes only its own', async (t) => {
  const userHome = mkdtempSync(join(tmpdir(), 'svc-user-home-'));
  const server = await startServer({ userHome });
  t.after(() => server.close());
  const claudeFile = join(userHome, '.claude.json');
  writeFileSync(claudeFile, JSON.stringify({ numStartups: 3, mcpServers: { mine: { type: 'stdio', command: 'x' }, probe: { type: 'stdio', command: 'users-own-probe' } } }));
  mkdirSync(join(userHome, '.codex'));
  const codexFile = join(userHome, '.codex', 'config.toml');
  writeFileSync(codexFile, CODEX_TOML);

  await sendJson(`${server.url}/api/mcp`, 'PUT', {
    servers: [
      { name: 'probe', transport: 'stdio', command: 'node', args: ['probe.mjs'], env: { K: 'secret-value' } },
      { name: 'docs', transport: 'http', url: 'https://mcp.example.test/mcp' },
      { name: 'off', transport: 'stdio', command: 'node', enabled: false },
    ],
  });

  const dry = await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude'], dryRun: true });
  assert.equal(dry.body.results[0].status, 'would-write');
  assert.equal(JSON.parse(readFileSync(claudeFile, 'utf8')).mcpServers.docs, undefined, 'a dry run writes nothing');

  const res = await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude', 'codex', 'gemini'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [claude, codex, gemini] = res.body.results;

  assert.equal(claude.status, 'written');
  assert.deepEqual(claude.added, ['docs']);
  assert.deepEqual(claude.kept, ['mine', 'probe']);
  assert.deepEqual(claude.skipped.map((s: { name: string }) => s.name), ['probe'], 'the user\'s own "probe" is not overwritten');
  const claudeDoc = JSON.parse(readFileSync(claudeFile, 'utf8'));
  assert.equal(claudeDoc.numStartups, 3);
  assert.deepEqual(claudeDoc.mcpServers.probe, { type: 'stdio', command: 'users-own-probe' });
  assert.deepEqual(claudeDoc.mcpServers.docs, { type: 'http', url: 'https://mcp.example.test/mcp', headers: {} });
  assert.equal(claudeDoc.mcpServers.off, undefined, 'disabled servers are not exported');
  assert.ok(claude.backup.startsWith(server.home));
  assert.deepEqual(JSON.parse(readFileSync(claude.backup, 'utf8')).mcpServers.mine, { type: 'stdio', command: 'x' });

  assert.equal(codex.status, 'written');
  assert.deepEqual(codex.added.sort(), ['docs', 'probe']);
  const codexText = readFileSync(codexFile, 'utf8');
  assert.ok(codexText.startsWith(CODEX_TOML.trimEnd()), 'the user\'s text, comments included, is kept as it was');
  const codexDoc = parseToml(codexText);
  assert.deepEqual(codexDoc.mcp_servers.probe, { command: 'node', args: ['probe.mjs'], env: { K: 'secret-value' } });
  assert.equal(codexDoc.mcp_servers.docs.url, 'https://mcp.example.test/mcp');
  assert.equal(readFileSync(codex.backup, 'utf8'), CODEX_TOML);

  assert.equal(gemini.status, 'written');
  assert.equal(gemini.backup, undefined, 'nothing to back up: the file did not exist');
  assert.deepEqual(JSON.parse(readFileSync(join(userHome, '.gemini', 'settings.json'), 'utf8')).mcpServers.probe, { command: 'node', args: ['probe.mjs'], env: { K: 'secret-value' } });

  // Again with nothing changed: nothing is written.
  const again = await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude', 'codex'] });
  assert.deepEqual(again.body.results.map((r: { status: string }) => r.status), ['unchanged', 'unchanged']);

  // A server removed from svc's list is removed from the files svc wrote it into, and only it.
  await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [{ name: 'probe', transport: 'stdio', command: 'node', args: ['probe.mjs'], env: { K: '***' } }] });
  const after = await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude', 'codex'] });
  assert.deepEqual(after.body.results.map((r: { removed: string[] }) => r.removed), [['docs'], ['docs']]);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(claudeFile, 'utf8')).mcpServers).sort(), ['mine', 'probe']);
  const codexAfter = readFileSync(codexFile, 'utf8');
  assert.ok(codexAfter.startsWith(CODEX_TOML.trimEnd()));
  assert.deepEqual(Object.keys((parseToml(codexAfter)).mcp_servers).sort(), ['mine', 'probe']);
  assert.doesNotMatch(codexAfter, /mcp_servers\.docs/);
});

test('a file that cannot be parsed is reported and left alone; other files are still written', async (t) => {
  const userHome = mkdtempSync(join(tmpdir(), 'svc-user-home-'));
  const server = await startServer({ userHome });
  t.after(() => server.close());
  mkdirSync(join(userHome, '.copilot'));
  const broken = join(userHome, '.copilot', 'mcp-config.json');
  writeFileSync(broken, '{ not json');
  await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [{ name: 'probe', transport: 'stdio', command: 'node' }] });
  const res = await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['copilot', 'opencode'] });
  const [copilot, opencode] = res.body.results;
  assert.equal(copilot.status, 'error');
  assert.match(copilot.message, /not valid JSON/);
  assert.equal(readFileSync(broken, 'utf8'), '{ not json');
  assert.equal(opencode.status, 'written');
  const doc = JSON.parse(readFileSync(join(userHome, '.config', 'opencode', 'opencode.json'), 'utf8'));
  assert.deepEqual(doc.mcp.probe, { type: 'local', command: ['node'], enabled: true });
  assert.equal(existsSync(join(server.home, 'mcp-sync.json')), true);
  assert.equal((await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['nope'] })).status, 400);
});
