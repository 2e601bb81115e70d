// Each adapter hands the run's MCP servers to its CLI through the CLI's own per-run mechanism.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterOf } from '../../../src/agent/providers/registry.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';
import type { RunMcpServer } from '../../../src/protocol/mcp.ts';

const SERVERS: RunMcpServer[] = [
  { name: 'probe', transport: 'stdio', command: '/usr/bin/node', args: ['server.mjs', '--flag'], env: { TOKEN: 'a"b' } },
  { name: 'docs', transport: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer x' } },
];

const request = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
  prompt: 'hi', cwd: '/work/project', executable: 'cli', autoApprove: true, scratchDir: '/tmp/svc-run-x', mcpServers: SERVERS, ...over,
});

const fileAt = (inv: ReturnType<ReturnType<typeof adapterOf>['buildInvocation']>, path: string) => {
  const file = inv.files?.find((f) => f.path === path);
  assert.ok(file, `a file at ${path}: ${JSON.stringify(inv.files)}`);
  assert.ok(file.path.startsWith('/tmp/svc-run-x/'), 'in the run\'s private directory');
  return JSON.parse(file.content);
};

test('claude: --mcp-config with a file in the run directory', () => {
  const inv = adapterOf('claude').buildInvocation(request());
  const flag = inv.args.find((a) => a.startsWith('--mcp-config='))!;
  const config = fileAt(inv, flag.slice('--mcp-config='.length));
  assert.deepEqual(config.mcpServers.probe, { type: 'stdio', command: '/usr/bin/node', args: ['server.mjs', '--flag'], env: { TOKEN: 'a"b' } });
  assert.deepEqual(config.mcpServers.docs, { type: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer x' } });
  assert.ok(!adapterOf('claude').buildInvocation(request({ mcpServers: [] })).args.some((a) => a.startsWith('--mcp-config')));
});

test('codex: -c mcp_servers.<name>.… overrides in TOML', () => {
  const { args } = adapterOf('codex').buildInvocation(request());
  const overrides = args.flatMap((a, i) => (args[i - 1] === '-c' && a.startsWith('mcp_servers.') ? [a] : []));
  assert.deepEqual(overrides, [
    'mcp_servers.probe.command="/usr/bin/node"',
    'mcp_servers.probe.args=["server.mjs","--flag"]',
    'mcp_servers.probe.env={"TOKEN"="a\\"b"}',
    'mcp_servers.docs.url="https://mcp.example.test/mcp"',
    'mcp_servers.docs.http_headers={"Authorization"="Bearer x"}',
  ]);
  assert.ok(args.indexOf('--') > args.lastIndexOf('-c'), 'overrides come before the prompt');
});

test('copilot: --additional-mcp-config @file', () => {
  const inv = adapterOf('copilot').buildInvocation(request());
  const at = inv.args[inv.args.indexOf('--additional-mcp-config') + 1]!;
  assert.ok(at.startsWith('@'));
  const config = fileAt(inv, at.slice(1));
  assert.deepEqual(config.mcpServers.probe, { type: 'local', command: '/usr/bin/node', args: ['server.mjs', '--flag'], env: { TOKEN: 'a"b' }, tools: ['*'] });
  assert.equal(config.mcpServers.docs.type, 'http');
});

test('gemini: a system-defaults settings file named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH', () => {
  const inv = adapterOf('gemini').buildInvocation(request());
  const config = fileAt(inv, inv.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH!);
  assert.deepEqual(config.mcpServers.probe, { command: '/usr/bin/node', args: ['server.mjs', '--flag'], env: { TOKEN: 'a"b' }, trust: true });
  assert.deepEqual(config.mcpServers.docs, { httpUrl: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer x' }, trust: true });
  assert.equal(adapterOf('gemini').buildInvocation(request({ mcpServers: [] })).env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH, undefined);
});

test('gemini: where Gemini would skip the file, none is written and the run is told why', () => {
  const why = `'/tmp' is writable by its group and everyone (mode 1777)`;
  const inv = adapterOf('gemini').buildInvocation(request({ scratchNotRootOnly: why }));
  assert.equal(inv.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH, undefined);
  assert.equal(inv.files, undefined);
  assert.equal(inv.notices?.length, 1);
  assert.equal(inv.notices[0]!.name, 'MCP servers');
  assert.match(inv.notices[0]!.message, /^Gemini CLI was not given the MCP servers probe, docs: .* only from a file that root owns in directories only root can write to, and '\/tmp' is writable/);
  assert.match(inv.notices[0]!.message, /POST \/api\/mcp\/sync \{"targets":\["gemini"\]\}/);
  // nothing to say when the run has no servers
  assert.equal(adapterOf('gemini').buildInvocation(request({ mcpServers: [], scratchNotRootOnly: why })).notices, undefined);
  // a run that acts only through its servers is refused outright
  assert.throws(() => adapterOf('gemini').buildInvocation(request({ scratchNotRootOnly: why, mcpOnly: true })), /Gemini CLI was not given the MCP servers probe, docs/);
});

test('opencode: `mcp` in OPENCODE_CONFIG_CONTENT, beside the instructions', () => {
  const inv = adapterOf('opencode').buildInvocation(request({ systemPrompt: 'be brief' }));
  const config = JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT!);
  assert.deepEqual(config.mcp.probe, { type: 'local', command: ['/usr/bin/node', 'server.mjs', '--flag'], environment: { TOKEN: 'a"b' }, enabled: true });
  assert.deepEqual(config.mcp.docs, { type: 'remote', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer x' }, enabled: true });
  assert.equal(config.instructions.length, 1);
});

test('claude: enabled skills as a plugin of the run (--plugin-dir), linked, not copied', () => {
  const inv = adapterOf('claude').buildInvocation(request({ mcpServers: [], skills: [{ id: 'pdf', name: 'PDF', description: 'Reads PDFs', dir: '/home/u/.svc/skills/pdf' }] }));
  assert.ok(inv.args.includes('--plugin-dir=/tmp/svc-run-x/svc-skills'));
  assert.deepEqual(fileAt(inv, '/tmp/svc-run-x/svc-skills/.claude-plugin/plugin.json').name, 'svc-skills');
  assert.deepEqual(inv.links, [{ path: '/tmp/svc-run-x/svc-skills/skills/pdf', target: '/home/u/.svc/skills/pdf' }]);
  assert.equal(adapterOf('claude').buildInvocation(request({ mcpServers: [] })).links, undefined);
});
