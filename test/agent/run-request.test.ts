// One request for every kind of run (src/agent/run-request.ts): each provider id, custom included, as the
// chat's run, a worker (mutable and read-only), a one-shot run and the executive's turn, through its real
// adapter. What the settings say reaches the CLI the same wherever the run starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterOf, PROVIDER_IDS, providerInfo, type ProviderId } from '../../src/agent/providers/registry.ts';
import { runRequest, type RunKind, type RunSources, type RunSpec } from '../../src/agent/run-request.ts';
import { agentSettings, type AgentSettings } from '../../src/agent/settings.ts';
import type { RunMcpServer } from '../../src/protocol/mcp.ts';

const USER_MCP: RunMcpServer = { name: 'user-tools', transport: 'stdio', command: '/opt/tools/mcp', args: [], env: {} };
const CEO_MCP: RunMcpServer = { name: 'svc-ceo', transport: 'stdio', command: '/usr/bin/node', args: ['/home/x/ceo.mjs'], env: {} };
const SKILL = { id: 'release-notes', name: 'release-notes', description: 'Writes the release notes.', dir: '/home/x/.svc/skills/release-notes' };

function sources(settings: Partial<AgentSettings> = {}): RunSources {
  return {
    settings: () => ({ ...agentSettings.defaults, customCommand: ['/opt/my-agent', '--print', '{prompt}'], ...settings }),
    executable: (provider) => `/opt/bin/${provider}-cli`,
    mcpServers: () => [USER_MCP],
    skills: () => [SKILL],
  };
}

const spec = (kind: RunKind, provider: ProviderId, more: Partial<RunSpec> = {}): RunSpec => ({
  kind,
  provider,
  prompt: 'write hello.txt',
  cwd: '/home/x/project',
  ...(kind === 'executive' ? { ownMcpServers: [CEO_MCP] } : {}),
  ...more,
});

const KINDS: { name: string; spec: (provider: ProviderId) => RunSpec }[] = [
  { name: 'chat', spec: (p) => spec('chat', p) },
  { name: 'mutable worker', spec: (p) => spec('worker', p) },
  { name: 'read-only worker', spec: (p) => spec('worker', p, { readOnly: true }) },
  { name: 'one-shot', spec: (p) => spec('one-shot', p) },
  { name: 'executive', spec: (p) => spec('executive', p) },
];

/** What the adapter refuses, by design, and says why. */
function refusal(provider: ProviderId, kind: string): RegExp | undefined {
  const info = providerInfo(provider);
  if (kind === 'read-only worker' && !info.supports.readOnly) return /read-only/;
  if (kind === 'executive' && !info.supports.mcp) return /takes no MCP servers.*claude, codex/;
  return undefined;
}

for (const provider of PROVIDER_IDS) {
  for (const kind of KINDS) {
    test(`${provider} as a ${kind.name}: the settings' executable and command, its own MCP servers and skills, or the refusal its CLI needs`, () => {
      const request = runRequest(kind.spec(provider), sources());
      const build = () => adapterOf(provider).buildInvocation({ ...request, scratchDir: '/tmp/svc-run-test' });
      const refused = refusal(provider, kind.name);
      if (refused && provider === 'pi' && kind.name === 'read-only worker') {
        // Pi only narrows its tools: svc does not call that read-only, and a dispatch refuses it first
        // (READ_ONLY_UNSUPPORTED, test/modules/orchestration/workers.test.ts)
        assert.equal(providerInfo(provider).supports.readOnly, false);
        return;
      }
      if (refused) {
        assert.throws(build, refused);
        return;
      }
      const invocation = build();
      if (provider === 'custom') {
        // the command the settings give, whichever kind of run starts it
        assert.equal(invocation.command, '/opt/my-agent');
        assert.deepEqual(invocation.args, ['--print', 'write hello.txt']);
      } else {
        assert.equal(invocation.command, `/opt/bin/${provider}-cli`);
      }
    });
  }
}

test('what differs between the kinds: tools, who approves, the effort', () => {
  const on = sources({ provider: 'claude', effort: 'high', autoApprove: false });
  const chat = runRequest(spec('chat', 'claude', { canAsk: true }), on);
  assert.deepEqual([chat.autoApprove, chat.askPermissions, chat.mcpServers, chat.skills, chat.effort], [false, true, [USER_MCP], [SKILL], 'high']);
  // with nobody to ask, the CLI's own rules
  assert.equal(runRequest(spec('chat', 'claude'), on).askPermissions, false);
  const worker = runRequest(spec('worker', 'claude'), on);
  assert.deepEqual([worker.autoApprove, worker.readOnly, worker.mcpServers, worker.skills], [true, undefined, [USER_MCP], [SKILL]]);
  const readOnly = runRequest(spec('worker', 'claude', { readOnly: true }), on);
  assert.deepEqual([readOnly.autoApprove, readOnly.readOnly], [false, true]);
  const oneShot = runRequest(spec('one-shot', 'claude'), on);
  assert.deepEqual([oneShot.autoApprove, oneShot.mcpServers, oneShot.skills], [false, undefined, undefined]);
  const executive = runRequest(spec('executive', 'claude', { executable: '/opt/ceo-claude' }), on);
  assert.deepEqual([executive.autoApprove, executive.mcpOnly, executive.mcpServers, executive.skills, executive.executable], [true, true, [CEO_MCP], undefined, '/opt/ceo-claude']);
  // an effort is the agent provider's: another provider may not know its name
  assert.equal(runRequest(spec('worker', 'codex'), on).effort, undefined);
  // an empty model or system prompt is the CLI's own default
  assert.deepEqual([chat.model, chat.systemPrompt], [undefined, undefined]);
});

test('a model endpoint named by the run\'s model: its model and endpoint for the providers that speak its API, a refusal for the others', () => {
  const endpoints: Record<string, ReturnType<NonNullable<RunSources['endpoint']>>> = {
    local: { id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-chat', key: 'k', toolsWork: true },
    gw: { id: 'gw', name: 'Gateway', baseUrl: 'http://127.0.0.1:4000', api: 'anthropic', toolsWork: false },
    nokey: { id: 'nokey', name: 'No key', baseUrl: 'http://127.0.0.1:1/v1', api: 'openai-responses', toolsWork: null, unusable: 'its key\'s variable $X is not set' },
  };
  const withEndpoints: RunSources = { ...sources(), endpoint: (id) => endpoints[id] };
  const on = runRequest(spec('chat', 'opencode', { model: 'local/qwen3-coder:30b' }), withEndpoints);
  assert.deepEqual([on.model, on.endpoint, on.refusal], ['qwen3-coder:30b', { id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-chat', key: 'k' }, undefined]);
  // a provider's own provider/model and Pi's profiles are not endpoints
  assert.deepEqual([runRequest(spec('chat', 'opencode', { model: 'anthropic/claude-sonnet' }), withEndpoints).model, runRequest(spec('chat', 'opencode', { model: 'anthropic/claude-sonnet' }), withEndpoints).endpoint], ['anthropic/claude-sonnet', undefined]);
  // Pi names the endpoint as a provider of its models.json (svc writes it there): the model stays whole
  const pi = runRequest(spec('chat', 'pi', { model: 'local/qwen' }), withEndpoints);
  assert.deepEqual([pi.model, pi.endpoint?.id, pi.refusal], ['local/qwen', 'local', undefined]);
  assert.equal(runRequest(spec('chat', 'pi', { model: 'myprofile/qwen' }), withEndpoints).endpoint, undefined, 'a Pi profile is not an endpoint');
  assert.match(runRequest(spec('chat', 'claude', { model: 'local/qwen' }), withEndpoints).refusal ?? '', /speaks openai-chat, which claude cannot use: pick local\/qwen under opencode or pi/);
  // no tool calls: a run that needs them is refused, a summary is not
  assert.match(runRequest(spec('worker', 'claude', { model: 'gw/m' }), withEndpoints).refusal ?? '', /found no tool calls/);
  assert.equal(runRequest(spec('worker', 'claude', { model: 'gw/m', readOnly: true }), withEndpoints).refusal, undefined);
  assert.equal(runRequest(spec('one-shot', 'claude', { model: 'gw/m' }), withEndpoints).refusal, undefined);
  assert.equal(runRequest(spec('chat', 'codex', { model: 'nokey/m' }), withEndpoints).refusal, 'its key\'s variable $X is not set');
});
