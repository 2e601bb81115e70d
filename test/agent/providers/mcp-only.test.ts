// mcpOnly (the executive's runs): each adapter removes its CLI's own shell, file-writing and web tools
// the way that CLI allows, and says so on the command line or in its per-run config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseToml } from 'smol-toml';
import { claudeAdapter } from '../../../src/agent/providers/claude/adapter.ts';
import { codexAdapter } from '../../../src/agent/providers/codex/adapter.ts';
import { geminiAdapter } from '../../../src/agent/providers/gemini/adapter.ts';
import { opencodeAdapter } from '../../../src/agent/providers/opencode/adapter.ts';
import { copilotAdapter } from '../../../src/agent/providers/copilot/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';

const request = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({ prompt: 'hi', cwd: '/work/ceo', executable: 'cli', autoApprove: true, scratchDir: '/tmp/run-1', mcpOnly: true, ...over });

test('claude: the writers and WebFetch are disallowed', () => {
  const args = claudeAdapter.buildInvocation(request()).args;
  assert.ok(args.includes('--disallowedTools=Bash,Edit,MultiEdit,Write,NotebookEdit,WebFetch'), args.join(' '));
  assert.ok(!claudeAdapter.buildInvocation(request({ mcpOnly: false })).args.some((a) => a.startsWith('--disallowedTools')));
});

test('codex: shell, exec, image, goals and web search off; the read-only sandbox refuses apply_patch\'s writes', () => {
  const args = codexAdapter.buildInvocation(request()).args;
  assert.deepEqual(args.slice(args.indexOf('--sandbox'), args.indexOf('--sandbox') + 2), ['--sandbox', 'read-only']);
  assert.ok(!args.includes('--dangerously-bypass-approvals-and-sandbox'));
  const overrides = args.flatMap((a, i) => (args[i - 1] === '-c' ? [a] : []));
  for (const o of ['features.shell_tool=false', 'features.unified_exec=false', 'features.view_image=false', 'features.goals=false', 'web_search="disabled"']) assert.ok(overrides.includes(o), o);
  for (const o of overrides) parseToml(o.replace('=', ' = '));
  assert.ok(codexAdapter.buildInvocation(request({ mcpOnly: false })).args.includes('--dangerously-bypass-approvals-and-sandbox'));
});

test('gemini: a policy file of its own denies the shell, file-writing, web and sub-agent tools', () => {
  const inv = geminiAdapter.buildInvocation(request());
  const flag = inv.args.find((a) => a.startsWith('--policy='))!;
  const file = inv.files!.find((f) => f.path === flag.slice('--policy='.length))!;
  assert.ok(file.path.startsWith('/tmp/run-1/'), 'in the run\'s scratch directory');
  const rules = (parseToml(file.content) as { rule: Array<{ toolName: string; decision: string }> }).rule;
  assert.deepEqual(rules.filter((r) => r.decision === 'deny').map((r) => r.toolName).sort(), ['google_web_search', 'invoke_agent', 'list_background_processes', 'read_background_output', 'replace', 'run_shell_command', 'web_fetch', 'write_file']);
  assert.equal(geminiAdapter.buildInvocation(request({ mcpOnly: false })).files, undefined);
});

test('opencode: its own tools are off in the per-process config', () => {
  const config = JSON.parse(opencodeAdapter.buildInvocation(request()).env.OPENCODE_CONFIG_CONTENT!);
  for (const tool of ['bash', 'edit', 'write', 'patch', 'webfetch', 'task']) assert.equal(config.tools[tool], false, tool);
  assert.equal(opencodeAdapter.buildInvocation(request({ mcpOnly: false })).env.OPENCODE_CONFIG_CONTENT, undefined);
});

test('copilot: the shell, file-writing and sub-agent tools are excluded', () => {
  const args = copilotAdapter.buildInvocation(request()).args;
  assert.ok(args.includes('--excluded-tools=bash,read_bash,write_bash,stop_bash,list_bash,create,edit,write_agent,task'), args.join(' '));
  assert.ok(!copilotAdapter.buildInvocation(request({ mcpOnly: false })).args.some((a) => a.startsWith('--excluded-tools')));
});
