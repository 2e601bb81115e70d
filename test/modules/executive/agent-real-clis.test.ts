// The executive on the other real CLIs (against the fake model): each turn offers the model the
// executive's MCP tools and none of the CLI's own shell, file-writing or web tools (what the fake model
// records of each request). Codex 0.169 offers MCP tools only behind its tool_search, and apply_patch
// always: its runs are in the read-only sandbox (test/agent/providers/mcp-only.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../../support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath, type RealCliName } from '../../support/real-clis.ts';
import { sendJson } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { startManager } from '../dashboard/helpers.ts';

const BUILTINS: Record<string, string[]> = {
  codex: ['exec_command', 'write_stdin', 'view_image', 'web_search', 'create_goal'],
  gemini: ['run_shell_command', 'write_file', 'replace', 'web_fetch', 'google_web_search', 'invoke_agent'],
  opencode: ['bash', 'edit', 'write', 'patch', 'webfetch', 'task'],
  copilot: ['bash', 'create', 'edit', 'task', 'write_agent'],
};

for (const NAME of ['codex', 'gemini', 'opencode', 'copilot'] as RealCliName[]) test(`the executive on real ${NAME}: its MCP tools, none of the CLI's own writers`, { skip: realCliPath(NAME) ? false : `${NAME} not installed: run scripts/install-real-clis.sh`, timeout: 120_000 }, async (t) => {
  const fake = await startFakeModel();
  t.after(() => fake.close());
  // gemini ignores settings and policy files below a world-writable directory (/tmp)
  mkdirSync(join(PROJECT_ROOT, 'test-output'), { recursive: true });
  const manager = await startManager({ home: mkdtempSync(join(PROJECT_ROOT, 'test-output', 'svc-ceo-real-')) });
  t.after(() => manager.close());
  const { env } = prepareRealCliEnv(NAME, fake.url, mkdtempSync(join(tmpdir(), 'svc-ceo-real-')));
  const put = await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { provider: NAME, model: NAME === 'gemini' ? 'gemini-2.5-flash' : '', executable: realCliPath(NAME), env });
  assert.equal(put.status, 200, JSON.stringify(put.body));

  const lines = await (await postNdjson(`${manager.url}/api/svc-ceo/message`, { text: 'hello scenario:text', responseMode: 'text' })).done;
  const done = lines.at(-1);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  const offered = [...new Set(fake.requests.flatMap((r) => r.tools))];
  assert.ok(offered.length > 0, 'the model was offered tools');
  for (const builtin of BUILTINS[NAME]!) assert.ok(!offered.includes(builtin), `${builtin} is not offered: ${offered.join(' ')}`);
  if (NAME === 'codex') assert.ok(offered.includes('tool_search'), offered.join(' '));
  else assert.ok(offered.some((n) => /list_instances$/.test(n)) && offered.some((n) => /lifecycle$/.test(n)), `the executive's tools are offered: ${offered.join(' ')}`);
});
