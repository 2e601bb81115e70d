// The codex adapter's app-server mode (a person answers tool permissions), fed line by line with real
// `codex app-server` 0.169.0 output (scripts/record-codex-app-server.ts): the write and the shell command
// of the fake model, each approval answered allow or deny.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureLines, liveText, ofKind, shape } from '../../support/adapters.ts';
import { codexAdapter } from '../../../src/agent/providers/codex/adapter.ts';
import { execItem } from '../../../src/agent/providers/codex/app-server.ts';
import { summarize } from '../../../src/modules/permissions/summary.ts';
import type { AdapterOutput, InvocationRequest, NormalizedEvent } from '../../../src/agent/providers/types.ts';

function request(over: Partial<InvocationRequest> = {}): InvocationRequest {
  return { prompt: 'Do it.', cwd: '/work/project', executable: 'codex', autoApprove: false, askPermissions: true, scratchDir: '/tmp/run-1', ...over };
}

/** What svc writes, parsed (each write is one JSON-RPC message). */
const written = (outputs: AdapterOutput[]) => outputs.flatMap((o) => o.writes ?? []).map((line) => JSON.parse(line));

/** Runs a recording through the adapter, answering each approval as `allow` says; the answers' writes are kept. */
function drive(name: string, allow: boolean, req = request()) {
  const state = codexAdapter.initialState(req);
  const outputs: AdapterOutput[] = [codexAdapter.start!(state, req)];
  const answers: AdapterOutput[] = [];
  for (const line of fixtureLines(`${name}.jsonl`)) {
    const output = codexAdapter.parseLine(state, line);
    outputs.push(output);
    for (const event of ofKind(output.events, 'permission_request')) {
      answers.push(codexAdapter.answerPermission!(state, event.requestId, allow ? { allow: true } : { allow: false, reason: 'not now' }));
    }
  }
  const events: NormalizedEvent[] = outputs.flatMap((o) => o.events);
  return { state, outputs, answers, events, closing: codexAdapter.finish(state, { code: 0, signal: null, stderr: '' }) };
}

describe('codex app-server: when it is used', () => {
  test('a run that asks a person: `codex app-server` with the -c settings exec gets, stdin kept open', () => {
    const inv = codexAdapter.buildInvocation(request({ effort: 'high', systemPrompt: 'Be brief.', extraArgs: ['-c', 'service_tier="fast"'] }));
    assert.deepEqual(inv.args, ['app-server', '-c', 'model_reasoning_effort="high"', '-c', 'developer_instructions="Be brief."', '-c', 'service_tier="fast"']);
    assert.equal(inv.stdin, 'interactive');
  });

  test('auto-approving, read-only, MCP only, or nobody to ask: codex exec as before', () => {
    for (const over of [{ autoApprove: true }, { readOnly: true }, { mcpOnly: true }, { askPermissions: false }]) {
      assert.equal(codexAdapter.buildInvocation(request(over)).args[0], 'exec', JSON.stringify(over));
      assert.deepEqual(codexAdapter.start!(codexAdapter.initialState(request(over)), request(over)), { events: [] });
    }
  });
});

describe('codex app-server: the conversation', () => {
  test('initialize, then a thread that asks (untrusted, read-only sandbox), then the turn with the prompt', () => {
    const run = drive('codex-app-server-write-deny', false, request({ model: 'gpt-5.5', prompt: 'Write it.' }));
    const [init, initialized, start, turn] = written(run.outputs);
    assert.equal(init.method, 'initialize');
    assert.deepEqual(initialized, { method: 'initialized' });
    assert.deepEqual(start, { id: 2, method: 'thread/start', params: { cwd: '/work/project', approvalPolicy: 'untrusted', sandbox: 'read-only', model: 'gpt-5.5' } });
    const [session] = ofKind(run.events, 'session');
    assert.deepEqual(turn, { id: 3, method: 'turn/start', params: { threadId: session!.providerSessionId, input: [{ type: 'text', text: 'Write it.', text_elements: [] }] } });
  });

  test('resume: the thread is resumed by id with the same settings', () => {
    const req = request({ resumeSessionId: '01a1ff12-79a5-7782-b155-97814171d4a9' });
    const state = codexAdapter.initialState(req);
    codexAdapter.start!(state, req);
    const [, open] = written([codexAdapter.parseLine(state, JSON.stringify({ id: 1, result: {} }))]);
    assert.deepEqual(open, { id: 2, method: 'thread/resume', params: { threadId: '01a1ff12-79a5-7782-b155-97814171d4a9', cwd: '/work/project', approvalPolicy: 'untrusted', sandbox: 'read-only' } });
  });

  test('a thread codex does not know: the run ends as a stale session, stdin closed', () => {
    const req = request({ resumeSessionId: '01a1ff12-79a5-7782-b155-97814171d4a9' });
    const state = codexAdapter.initialState(req);
    codexAdapter.start!(state, req);
    codexAdapter.parseLine(state, JSON.stringify({ id: 1, result: {} }));
    const failed = codexAdapter.parseLine(state, JSON.stringify({ id: 2, error: { code: -32600, message: 'no rollout found for thread id 01a1ff12-79a5-7782-b155-97814171d4a9' } }));
    assert.equal(failed.closeStdin, true);
    assert.deepEqual(ofKind(failed.events, 'result').map((r) => [r.ok, r.failure]), [[false, 'stale_session']]);
    assert.deepEqual(codexAdapter.finish(state, { code: 0, signal: null, stderr: '' }), []);
  });

  test('codex gone before the turn ended: a crash even with exit 0', () => {
    const state = codexAdapter.initialState(request());
    const [result] = codexAdapter.finish(state, { code: 0, signal: null, stderr: '' });
    assert.deepEqual(result, { kind: 'result', ok: false, failure: 'crash', message: 'codex exited before the turn ended' });
  });

  test('questions other than approvals are answered "not handled", so codex never waits on svc', () => {
    const state = codexAdapter.initialState(request());
    const out = codexAdapter.parseLine(state, JSON.stringify({ id: 7, method: 'item/tool/requestUserInput', params: {} }));
    assert.deepEqual(out.events, []);
    assert.equal(written([out])[0].error.code, -32601);
  });
});

describe('codex app-server: approvals', () => {
  test('write, denied: held as a file_change request with the new file, answered "decline"; the model reads the refusal', () => {
    const run = drive('codex-app-server-write-deny', false);
    const [asked] = ofKind(run.events, 'permission_request');
    assert.equal(asked!.tool, 'file_change');
    assert.match(String(asked!.input.path), /\/work\/hello-from-tool\.txt$/);
    assert.deepEqual([asked!.input.kind, asked!.input.content], ['add', 'hello-from-tool\n']);
    assert.deepEqual(summarize(asked!.tool, asked!.input).title, 'Write hello-from-tool.txt');
    assert.deepEqual(written(run.answers), [{ id: 0, result: { decision: 'decline' } }]);
    assert.deepEqual(codexAdapter.answerPermission!(run.state, asked!.requestId, { allow: true }), { events: [] }, 'answered once');
    assert.deepEqual(ofKind(run.events, 'step_end').map((s) => [s.name, s.ok]), [['file_change', false]]);
    assert.match(liveText(run.events), /^I will write a file\.\n\nThe tool finished\. Its output was: patch rejected by user$/);
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'step_start', 'permission_request', 'step_end', 'usage', 'text_delta', 'usage', 'result']);
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    assert.equal(run.outputs.find((o) => ofKind(o.events, 'result').length > 0)!.closeStdin, true, 'the turn ended: stdin closed');
    assert.deepEqual(run.closing, []);
  });

  test('write, allowed: answered "accept", the change is applied', () => {
    const run = drive('codex-app-server-write-allow', true);
    assert.deepEqual(written(run.answers), [{ id: 0, result: { decision: 'accept' } }]);
    assert.deepEqual(ofKind(run.events, 'step_end').map((s) => [s.name, s.ok]), [['file_change', true]]);
    assert.match(liveText(run.events), /Success\. Updated the following files: A hello-from-tool\.txt$/);
  });

  test('a shell command, denied: held as a command_execution request with the command and its folder', () => {
    const run = drive('codex-app-server-tool-deny', false);
    const [asked] = ofKind(run.events, 'permission_request');
    assert.equal(asked!.tool, 'command_execution');
    assert.equal(asked!.input.command, "/bin/bash -lc 'echo hello-from-tool'");
    assert.equal(summarize(asked!.tool, asked!.input).command, "/bin/bash -lc 'echo hello-from-tool'");
    assert.deepEqual(ofKind(run.events, 'step_end').map((s) => [s.name, s.ok]), [['command_execution', false]]);
    assert.match(liveText(run.events), /rejected by user/);
  });

  test('a shell command, allowed: it runs; usage is each model call\'s', () => {
    const run = drive('codex-app-server-tool-allow', true);
    const [end] = ofKind(run.events, 'step_end');
    assert.deepEqual([end!.ok, end!.exitCode, end!.output], [true, 0, 'hello-from-tool\n']);
    assert.deepEqual(ofKind(run.events, 'usage').map((u) => [u.inputTokens, u.outputTokens]), [[100, 20], [100, 20]]);
  });

  test("another thread's notifications (a sub-agent's) are not this run's", () => {
    const run = drive('codex-app-server-tool-allow', true);
    const other = { method: 'turn/completed', params: { threadId: 'another', turn: { status: 'failed', error: { message: 'x' } } } };
    assert.deepEqual(codexAdapter.parseLine(run.state, JSON.stringify(other)), { events: [] });
  });
});

describe('codex app-server: items in exec\'s shape', () => {
  test('reasoning, MCP calls and web searches', () => {
    assert.deepEqual(execItem({ type: 'reasoning', id: 'r', summary: ['a'], content: ['b'] }), { type: 'reasoning', id: 'r', text: 'a\n\nb' });
    assert.deepEqual(execItem({ type: 'mcpToolCall', id: 'm', status: 'completed', server: 's', tool: 't', arguments: { q: 1 }, error: null, result: { content: [{ type: 'text', text: 'ok' }], structuredContent: null } }), {
      type: 'mcp_tool_call', id: 'm', status: 'completed', server: 's', tool: 't', arguments: { q: 1 }, error: null,
      result: { content: [{ type: 'text', text: 'ok' }], structured_content: null },
    });
    assert.deepEqual(execItem({ type: 'webSearch', id: 'w', query: 'q', action: {} }), { type: 'web_search', id: 'w', query: 'q', action: {} });
    assert.equal(execItem({ type: 'userMessage', id: 'u' }), undefined);
  });
});
