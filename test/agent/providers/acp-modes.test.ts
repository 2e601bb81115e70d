// Gemini CLI and OpenCode over the Agent Client Protocol (the shared client, src/agent/providers/acp/), as svc
// drives them when a person answers permission requests: replayed against their recordings
// (gemini-acp-permission-*, opencode-acp-permission-*, made by scripts/record-acp-permissions.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyRpcError } from '../../../src/agent/providers/acp/conversation.ts';
import { geminiAdapter } from '../../../src/agent/providers/gemini/adapter.ts';
import { opencodeAdapter } from '../../../src/agent/providers/opencode/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';
import { summarize } from '../../../src/modules/permissions/summary.ts';
import { driveAcp, finalText, normalizeWrite, ofKind, recordedPrompt, recordedWrites, recording, type Rec } from './acp-recordings.ts';

const CWD = '/home/user/run/work';
const FILE = `${CWD}/hello-from-tool.txt`;

function asking(recs: Rec[], executable: string, overrides: Partial<InvocationRequest> = {}): InvocationRequest {
  return { prompt: recordedPrompt(recs), cwd: CWD, executable, autoApprove: false, askPermissions: true, scratchDir: '/tmp/svc-run-4', ...overrides };
}

/** The recorder answered "Method not found: <method>"; svc answers "Method not found". */
const withoutErrorText = (w: Record<string, unknown>) => (w.error ? { ...w, error: { code: (w.error as { code: number }).code } } : w);

describe('gemini over ACP', () => {
  const gemini = (recs: Rec[], overrides?: Partial<InvocationRequest>) => asking(recs, '/usr/local/bin/gemini', overrides);

  test('asked: `gemini --acp` on interactive stdin, the model as headless, no prompt or resume flag', () => {
    const recs = recording('gemini-acp-permission-allow');
    const inv = geminiAdapter.buildInvocation(gemini(recs, { model: 'gemini-2.5-flash', resumeSessionId: 's-1' }));
    assert.deepEqual(inv.args, ['--acp', '--model=gemini-2.5-flash', '--approval-mode=default', '--skip-trust']);
    assert.equal(inv.stdin, 'interactive');
    assert.equal(inv.files, undefined);
  });

  test('not asked (nobody to ask, or auto-approving): headless as before', () => {
    const recs = recording('gemini-acp-permission-allow');
    for (const overrides of [{ askPermissions: false }, { autoApprove: true }, { readOnly: true }]) {
      const inv = geminiAdapter.buildInvocation(gemini(recs, overrides));
      assert.equal(inv.stdin, 'close');
      assert.ok(inv.args.includes('--output-format'));
    }
  });

  test('allowed: held as an `edit` of the file, answered "allow once", the file written, the turn ends', () => {
    const recs = recording('gemini-acp-permission-allow');
    const d = driveAcp(geminiAdapter, recs, gemini(recs), undefined, { allow: true });
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    // gemini sends no rawInput: the input is what its diff block says, which reads as a new file
    const [asked] = ofKind(d.events, 'permission_request');
    assert.deepEqual(asked, { kind: 'permission_request', requestId: '0', tool: 'edit', input: { path: FILE, content: 'hello-from-tool\n' }, description: 'Writing to hello-from-tool.txt' });
    assert.deepEqual(summarize(asked!.tool, asked!.input, asked!.description), { title: 'Write hello-from-tool.txt', path: FILE, diff: '+hello-from-tool\n+' });
    // its only tool update is the completed one: the step starts and ends there
    assert.deepEqual(ofKind(d.events, 'step_end').map((e) => [e.name, e.ok]), [['Writing to hello-from-tool.txt', true]]);
    assert.match(finalText(d.events), /^I will write a file\.\n\nThe tool finished\. Its output was: Successfully created/);
    assert.deepEqual(ofKind(d.events, 'usage'), [{ kind: 'usage', inputTokens: 200, outputTokens: 40 }]);
    assert.deepEqual(d.events.at(-1), { kind: 'result', ok: true });
    assert.equal(d.closedAfter, recs.length - 1);
  });

  test('denied: answered "Reject"; the model reads that the call was canceled and the turn ends well', () => {
    const recs = recording('gemini-acp-permission-deny');
    const d = driveAcp(geminiAdapter, recs, gemini(recs), undefined, { allow: false });
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.equal(ofKind(d.events, 'step_start').length, 0);
    assert.match(finalText(d.events), /\n\nThe tool finished\. Its output was: Tool "write_file" was canceled by the user\.$/);
    assert.deepEqual(d.events.at(-1), { kind: 'result', ok: true });
  });

  test('the system prompt goes with the first prompt, MCP servers in session/new, untrusted', () => {
    const recs = recording('gemini-acp-permission-allow');
    const req = gemini(recs, {
      systemPrompt: 'Be brief.',
      mcpServers: [
        { name: 'files', transport: 'stdio', command: 'node', args: ['files.js'], env: { TOKEN: 't' } },
        { name: 'web', transport: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' } },
      ],
    });
    assert.equal(geminiAdapter.buildInvocation(req).env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH, undefined);
    const d = driveAcp(geminiAdapter, recs.slice(0, 4), req);
    const [, opened, prompt] = d.writes as { params: Record<string, any> }[];
    assert.deepEqual(opened!.params.mcpServers, [
      { name: 'files', command: 'node', args: ['files.js'], env: [{ name: 'TOKEN', value: 't' }] },
      { type: 'http', name: 'web', url: 'https://mcp.example/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
    ]);
    assert.match(prompt!.params.prompt[0].text, /^<system_instructions>\nBe brief\.\n<\/system_instructions>\n\nAcceptance test prompt/);
  });

  test('a resume id gemini cannot load is a stale session (the reason is in the error\'s data)', () => {
    const unknown = { code: -32603, message: 'Internal error', data: { details: 'Invalid session identifier "x".\n  Searched for sessions in …' } };
    assert.equal(classifyRpcError(unknown, 'session/load').failure, 'stale_session');
    // 0.61 over ACP does not find the sessions it made over ACP: the turn starts a fresh session
    const madeOverAcp = { code: -32603, message: 'Internal error', data: { details: 'No previous sessions found for this project.' } };
    assert.deepEqual(classifyRpcError(madeOverAcp, 'session/load'), { failure: 'stale_session', message: 'Internal error: No previous sessions found for this project.' });
  });
});

describe('opencode over ACP', () => {
  const opencode = (recs: Rec[], overrides?: Partial<InvocationRequest>) => asking(recs, '/usr/local/bin/opencode', overrides);

  test('asked: `opencode acp` with the same config (ask, instructions, MCP); the model and effort are not flags', () => {
    const recs = recording('opencode-acp-permission-allow');
    const inv = opencodeAdapter.buildInvocation(opencode(recs, { model: 'fake/fake-model', effort: 'high', systemPrompt: 'Be brief.', resumeSessionId: 'ses_1' }));
    assert.deepEqual(inv.args, ['acp']);
    assert.equal(inv.stdin, 'interactive');
    const config = JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT!);
    assert.deepEqual(config.permission, { edit: 'ask', bash: 'ask', webfetch: 'ask' });
    assert.deepEqual(config.instructions, ['/tmp/svc-run-4/opencode-system-prompt.md']);
  });

  test('not asked: headless as before', () => {
    const recs = recording('opencode-acp-permission-allow');
    const inv = opencodeAdapter.buildInvocation(opencode(recs, { askPermissions: false }));
    assert.deepEqual(inv.args, ['run', '--format', 'json', '--thinking']);
    assert.equal(inv.stdin, 'write-close');
  });

  test('allowed: held with opencode\'s {filepath, diff}, answered "once"; its fs request refused; the file written', () => {
    const recs = recording('opencode-acp-permission-allow');
    const d = driveAcp(opencodeAdapter, recs, opencode(recs), undefined, { allow: true });
    assert.deepEqual(d.writes.map(normalizeWrite).map(withoutErrorText), recordedWrites(recs).map(withoutErrorText));
    const [asked] = ofKind(d.events, 'permission_request');
    assert.equal(asked!.tool, 'edit');
    assert.equal(asked!.input.filepath, FILE);
    const summary = summarize(asked!.tool, asked!.input, asked!.description);
    assert.deepEqual([summary.title, summary.path], ['Write hello-from-tool.txt', FILE]);
    assert.match(summary.diff!, /\n\+hello-from-tool$/);
    assert.deepEqual(ofKind(d.events, 'step_end').map((e) => [e.name, e.ok, e.output]), [['write', true, 'Wrote file successfully.']]);
    assert.deepEqual(ofKind(d.events, 'usage'), [{ kind: 'usage', inputTokens: 100, outputTokens: 20 }]);
    assert.deepEqual(d.events.at(-1), { kind: 'result', ok: true });
  });

  test('denied: answered "reject"; the tool fails with opencode\'s words and the turn ends', () => {
    const recs = recording('opencode-acp-permission-deny');
    const d = driveAcp(opencodeAdapter, recs, opencode(recs), undefined, { allow: false });
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.deepEqual(ofKind(d.events, 'step_end').map((e) => [e.ok, e.output]), [[false, 'The user rejected permission to use this specific tool call.']]);
    assert.deepEqual(d.events.at(-1), { kind: 'result', ok: true });
  });

  test('the model and effort are session settings, made one after another before the prompt', () => {
    const recs = recording('opencode-acp-permission-allow');
    const req = opencode(recs, { model: 'fake/fake-model', effort: 'high' });
    const d = driveAcp(opencodeAdapter, recs.slice(0, 4), req);
    const sessionId = (recs[3]!.msg.result as { sessionId: string }).sessionId;
    const last = () => d.writes.at(-1) as { id: number; method: string; params: unknown };
    assert.deepEqual([last().method, last().params], ['session/set_config_option', { sessionId, configId: 'model', value: 'fake/fake-model' }]);
    const answer = (id: number) => opencodeAdapter.parseLine(d.state, JSON.stringify({ jsonrpc: '2.0', id, result: { configOptions: [] } })).writes!.map((w) => JSON.parse(w));
    const [effort] = answer(last().id);
    assert.deepEqual([effort.method, effort.params], ['session/set_config_option', { sessionId, configId: 'effort', value: 'high' }]);
    const [prompt] = answer(effort.id);
    assert.equal(prompt.method, 'session/prompt');
  });

  test('a model opencode does not offer fails the run as an invalid request', () => {
    const recs = recording('opencode-acp-permission-allow');
    const d = driveAcp(opencodeAdapter, recs.slice(0, 4), opencode(recs, { model: 'nope/none' }));
    const { id } = d.writes.at(-1) as { id: number };
    const out = opencodeAdapter.parseLine(d.state, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } }));
    assert.deepEqual(out.events.at(-1), { kind: 'result', ok: false, failure: 'invalid_request', message: 'Invalid params' });
    assert.equal(out.closeStdin, true);
  });

  test('a resume id opencode does not know is a stale session', () => {
    const error = { code: -32603, message: 'Internal error: OpenCode service failure', data: { service: 'session' } };
    assert.equal(classifyRpcError(error, 'session/load').failure, 'stale_session');
    assert.equal(classifyRpcError(error, 'session/prompt').failure, 'unknown');
  });
});
