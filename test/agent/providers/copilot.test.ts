// The Copilot ACP adapter, driven line by line with real `copilot --acp` conversations
// (@github/copilot 1.0.102, test/fixtures/protocols/copilot-acp-*.jsonl: {"dir":"in"|"out","msg":…}).
// "in" lines are fed to parseLine; the adapter's writes must equal the recorded "out" lines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { classifyRpcError } from '../../../src/agent/providers/acp/conversation.ts';
import { acpContentText } from '../../../src/agent/providers/acp/updates.ts';
import {
  copilotAdapter,
  INSTRUCTIONS_DIR,
  SYSTEM_PROMPT_FILE,
  type CopilotState,
} from '../../../src/agent/providers/copilot/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';
import { driveAcp, finalText, normalizeWrite, ofKind, recordedPrompt, recordedWrites, recording, type Drive as AcpDrive, type Rec } from './acp-recordings.ts';

const CWD = '/home/user/run/work';

function request(overrides: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Acceptance test prompt. scenario:text',
    cwd: CWD,
    executable: '/usr/local/bin/copilot',
    autoApprove: true,
    scratchDir: '/tmp/svc-run-3',
    ...overrides,
  };
}

type Drive = AcpDrive<CopilotState>;

const drive = (recs: Rec[], req: InvocationRequest, state?: CopilotState): Drive => driveAcp(copilotAdapter, recs, req, state);

/** The toolCallId of the recording's first tool_call (ids differ from one recording run to the next). */
function toolCallIdOf(recs: Rec[]): string {
  const line = recs.find((r) => JSON.stringify(r.msg).includes('"sessionUpdate":"tool_call"'));
  const params = line!.msg.params as { update: { toolCallId: string } };
  return params.update.toolCallId;
}

function toolCallTitleOf(recs: Rec[]): string {
  const line = recs.find((r) => JSON.stringify(r.msg).includes('"sessionUpdate":"tool_call"'));
  return (line!.msg.params as { update: { title: string } }).update.title;
}

/** The text of a recorded agent_message_chunk line, '' for any other line. */
function chunkText(r: Rec): string {
  const update = (r.msg.params as { update?: { sessionUpdate?: string; content?: { text?: string } } } | undefined)?.update;
  return r.dir === 'in' && update?.sessionUpdate === 'agent_message_chunk' ? (update.content?.text ?? '') : '';
}

function sessionIdOf(recs: Rec[]): string {
  const answer = recs.find((r) => r.dir === 'in' && (r.msg.result as { sessionId?: string } | undefined)?.sessionId);
  return (answer!.msg.result as { sessionId: string }).sessionId;
}

const USAGE_1 = { kind: 'usage', inputTokens: 100, outputTokens: 20, cachedTokens: 0, reasoningTokens: 0 };
const USAGE_2 = { kind: 'usage', inputTokens: 200, outputTokens: 40, cachedTokens: 0, reasoningTokens: 0 };

describe('copilot buildInvocation', () => {
  test('fresh run: ACP over interactive stdin; the prompt goes through JSON-RPC, not argv', () => {
    const inv = copilotAdapter.buildInvocation(request({ autoApprove: false }));
    assert.equal(inv.command, '/usr/local/bin/copilot');
    assert.deepEqual(inv.args, ['--acp']);
    assert.equal(inv.stdin, 'interactive');
    assert.equal(inv.stdinText, undefined);
    assert.deepEqual(inv.env, { COPILOT_ALLOW_ALL: undefined }, 'the service\'s COPILOT_ALLOW_ALL would allow every tool');
    assert.equal(inv.files, undefined);
  });

  test('autoApprove, model, effort and extra args; resume needs no flag (session/load)', () => {
    const inv = copilotAdapter.buildInvocation(
      request({ model: 'gpt-5.4', effort: 'high', resumeSessionId: 'd59b34c3', extraArgs: ['--no-auto-update'] }),
    );
    assert.deepEqual(inv.args, [
      '--acp',
      '--allow-all-tools',
      '--model',
      'gpt-5.4',
      '--reasoning-effort',
      'high',
      '--no-auto-update',
    ]);
  });

  test('system prompt: an instructions file in the scratch dir named by COPILOT_CUSTOM_INSTRUCTIONS_DIRS', () => {
    const inv = copilotAdapter.buildInvocation(request({ systemPrompt: 'You are terse.' }));
    const dir = join('/tmp/svc-run-3', INSTRUCTIONS_DIR);
    assert.deepEqual(inv.env, { COPILOT_CUSTOM_INSTRUCTIONS_DIRS: dir });
    assert.deepEqual(inv.files, [{ path: join(dir, SYSTEM_PROMPT_FILE), content: 'You are terse.', mode: 0o600 }]);
    assert.match(inv.files![0]!.path, /\/instructions\/[^/]+\.instructions\.md$/, 'copilot loads instructions/*.instructions.md');
  });

  test('adapter identity: live steer through session/cancel + session/prompt', () => {
    assert.equal(copilotAdapter.id, 'copilot');
    assert.equal(copilotAdapter.steerMode, 'live');
  });
});

describe('copilot ACP conversation', () => {
  test('stages: initialize → session/new → session/prompt → close stdin', () => {
    const recs = recording('copilot-acp-text');
    const req = request({ prompt: recordedPrompt(recs) });
    const state = copilotAdapter.initialState(req);
    const started = copilotAdapter.start!(state, req);
    assert.deepEqual(started.events, []);
    assert.equal(started.writes?.length, 1);
    assert.deepEqual(JSON.parse(started.writes![0]!), {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'svc', version: '0.1.0' },
      },
    });
    const ins = recs.filter((r) => r.dir === 'in').map((r) => JSON.stringify(r.msg));
    const afterInit = copilotAdapter.parseLine(state, ins[0]!);
    assert.deepEqual(afterInit.writes?.map((w) => JSON.parse(w)), [
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: CWD, mcpServers: [] } },
    ]);
    const sessionIndex = ins.findIndex((l) => l.includes('"id":2,"result"'));
    for (const line of ins.slice(1, sessionIndex)) assert.deepEqual(copilotAdapter.parseLine(state, line), { events: [] });
    const afterNew = copilotAdapter.parseLine(state, ins[sessionIndex]!);
    const sessionId = sessionIdOf(recs);
    assert.deepEqual(afterNew.events, [{ kind: 'session', providerSessionId: sessionId }]);
    assert.deepEqual(afterNew.writes?.map((w) => JSON.parse(w)), [
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/prompt',
        params: {
          sessionId,
          prompt: [{ type: 'text', text: 'Acceptance test prompt. scenario:text' }],
        },
      },
    ]);
    assert.equal(afterNew.closeStdin, undefined);
    const rest = ins.slice(sessionIndex + 1).map((l) => copilotAdapter.parseLine(state, l));
    assert.ok(rest.slice(0, -1).every((o) => !o.closeStdin && !o.writes?.length), 'nothing to write mid-turn');
    const last = rest[rest.length - 1]!;
    assert.equal(last.closeStdin, true);
    assert.deepEqual(last.events, [USAGE_1, { kind: 'result', ok: true }]);
    assert.deepEqual(copilotAdapter.finish(state, { code: 0, signal: null, stderr: '' }), []);
  });

  test('text: the streamed chunks are the answer; writes match the recording', () => {
    const recs = recording('copilot-acp-text');
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.equal(finalText(d.events), 'Hello from the fake model. This is a plain text answer.');
    assert.deepEqual(
      d.events.filter((e) => e.kind !== 'text_delta'),
      [{ kind: 'session', providerSessionId: sessionIdOf(recs) }, USAGE_1, { kind: 'result', ok: true }],
    );
  });

  test('thinking: thought chunks are buffered into one thinking event before the answer', () => {
    const recs = recording('copilot-acp-thinking');
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    const thinking = ofKind(d.events, 'thinking');
    assert.deepEqual(thinking, [
      { kind: 'thinking', text: 'The user wants a short answer. I will think briefly, then reply with a greeting.' },
    ]);
    assert.ok(d.events.indexOf(thinking[0]!) < d.events.findIndex((e) => e.kind === 'text_delta'));
    assert.equal(finalText(d.events), 'Hello after thinking. The answer is 42.');
  });

  const toolAnswer =
    'I will run a shell command.\n\nThe tool finished. Its output was: hello-from-tool <shellId: 0 completed with exit code 0>';

  test('tool (no --allow-all-tools): the permission request is answered "allow once"', () => {
    const recs = recording('copilot-acp-tool');
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    const stepId = toolCallIdOf(recs);
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.deepEqual(d.writes[3], { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } });
    const steps = d.events.filter((e) => e.kind === 'step_start' || e.kind === 'step_end');
    assert.deepEqual(steps, [
      {
        kind: 'step_start',
        stepId,
        name: 'Print a greeting',
        step: 'command',
        input: { command: 'echo hello-from-tool', description: 'Print a greeting' },
      },
      {
        kind: 'step_end',
        stepId,
        name: 'Print a greeting',
        ok: true,
        output: 'hello-from-tool\n<shellId: 0 completed with exit code 0>',
        exitCode: 0,
      },
    ]);
    assert.equal(finalText(d.events), toolAnswer);
    assert.deepEqual(ofKind(d.events, 'usage'), [USAGE_2]);
    assert.deepEqual(ofKind(d.events, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('tool with --allow-all-tools: no permission request, same steps', () => {
    const recs = recording('copilot-acp-tool-allowall');
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.equal(d.writes.length, 3);
    assert.deepEqual(
      ofKind(d.events, 'step_end').map((e) => [e.ok, e.exitCode]),
      [[true, 0]],
    );
    assert.equal(finalText(d.events), toolAnswer);
  });

  test('without autoApprove the permission request is rejected', () => {
    const recs = recording('copilot-acp-tool');
    const d = drive(recs, request({ prompt: recordedPrompt(recs), autoApprove: false }));
    assert.deepEqual(d.writes[3], { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'reject_once' } } });
  });

  for (const name of ['copilot-acp-write', 'copilot-acp-write-allowall']) test(`${name}: an edit step with diff-only content falls back to rawOutput; the "Info:" notice is not text`, () => {
    const recs = recording(name);
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    const stepId = toolCallIdOf(recs);
    // The title names the step ("Creating <path>"; the recorder's path redaction varies between runs).
    const title = toolCallTitleOf(recs);
    assert.match(title, /^Creating .*hello-from-tool\.txt$/);
    assert.deepEqual(d.writes.map(normalizeWrite), recordedWrites(recs));
    assert.equal(d.writes.length, name.endsWith('allowall') ? 3 : 4);
    const steps = d.events.filter((e) => e.kind === 'step_start' || e.kind === 'step_end');
    assert.deepEqual(steps, [
      {
        kind: 'step_start',
        stepId,
        name: title,
        step: 'file',
        input: { path: '/home/user/run/work/hello-from-tool.txt', file_text: 'hello-from-tool\n' },
      },
      {
        kind: 'step_end',
        stepId,
        name: title,
        ok: true,
        output: 'Created file /home/user/run/work/hello-from-tool.txt with 16 characters',
      },
    ]);
    assert.equal(
      finalText(d.events),
      'I will write a file.\n\nThe tool finished. Its output was: Created file /home/user/run/work/hello-from-tool.txt with 16 characters',
    );
    assert.deepEqual(ofKind(d.events, 'error'), []);
  });

  test('error: retry notices become provider_retry, the final "Error:" notice fails the turn (server_error)', () => {
    const recs = recording('copilot-acp-error');
    const d = drive(recs, request({ prompt: recordedPrompt(recs) }));
    assert.equal(finalText(d.events), '', 'copilot notices are not the answer');
    assert.deepEqual(
      ofKind(d.events, 'provider_retry').map((e) => e.attempt),
      [1, 2, 3, 4, 5],
    );
    const message =
      'Failed to get response from the AI model; retried 5 times (total retry wait time: 5.00 seconds) Last error: 500 Fake internal server error';
    assert.deepEqual(ofKind(d.events, 'error'), [{ kind: 'error', failure: 'server_error', message, httpStatus: 500 }]);
    assert.deepEqual(ofKind(d.events, 'result'), [{ kind: 'result', ok: false, failure: 'server_error', message }]);
    assert.deepEqual(ofKind(d.events, 'usage'), []);
    assert.ok(d.closedAfter !== undefined);
  });

  // Captured from copilot 1.0.102 --acp with the fake API answering 429 (the error notice differs only in the status).
  test('rate limit: "Last error: 429" is rate_limit', () => {
    const recs = recording('copilot-acp-error');
    const swapped = recs.map((r) =>
      JSON.parse(JSON.stringify(r).replace('Last error: 500 Fake internal server error', 'Last error: 429 Fake ratelimit')) as Rec,
    );
    const d = drive(swapped, request({ prompt: recordedPrompt(recs) }));
    assert.deepEqual(ofKind(d.events, 'result'), [
      {
        kind: 'result',
        ok: false,
        failure: 'rate_limit',
        message: 'Failed to get response from the AI model; retried 5 times (total retry wait time: 5.00 seconds) Last error: 429 Fake ratelimit',
      },
    ]);
  });

  test('resume: session/load with the id from turn 1, history replay muted, same session id', () => {
    const recs = recording('copilot-acp-resume');
    const starts = recs.flatMap((r, i) => (r.dir === 'out' && r.msg.method === 'initialize' ? [i] : []));
    assert.equal(starts.length, 2, 'two processes');
    const turn1 = recs.slice(0, starts[1]);
    const turn2 = recs.slice(starts[1]);
    const first = drive(turn1, request({ prompt: recordedPrompt(turn1) }));
    const sessionId = ofKind(first.events, 'session')[0]!.providerSessionId;
    assert.equal(sessionId, sessionIdOf(turn1));

    const second = drive(turn2, request({ prompt: recordedPrompt(turn2), resumeSessionId: sessionId }));
    assert.deepEqual(second.writes.map(normalizeWrite), recordedWrites(turn2));
    assert.deepEqual(second.writes[1], {
      jsonrpc: '2.0',
      id: 2,
      method: 'session/load',
      params: { sessionId, cwd: CWD, mcpServers: [] },
    });
    assert.deepEqual(ofKind(second.events, 'session'), [{ kind: 'session', providerSessionId: sessionId }]);
    const text = finalText(second.events);
    assert.ok(text.startsWith('Hello again from the fake model.'), text);
    assert.ok(text.includes('pineapple'));
    assert.ok(!text.includes('This is a plain text answer'), 'the replayed turn-1 answer is muted');
    assert.deepEqual(ofKind(second.events, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('stale resume: session/load answered -32002 → stale_session, stdin closed', () => {
    const req = request({ resumeSessionId: '00000000-0000-0000-0000-000000000000' });
    const state = copilotAdapter.initialState(req);
    copilotAdapter.start!(state, req);
    const init = recording('copilot-acp-text').find((r) => r.dir === 'in')!;
    const load = copilotAdapter.parseLine(state, JSON.stringify(init.msg));
    assert.equal(JSON.parse(load.writes![0]!).method, 'session/load');
    // Captured from copilot 1.0.102 --acp.
    const answer = copilotAdapter.parseLine(
      state,
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource not found: Session 00000000-0000-0000-0000-000000000000 not found","data":{"uri":"Session 00000000-0000-0000-0000-000000000000 not found"}}}',
    );
    const message = 'Resource not found: Session 00000000-0000-0000-0000-000000000000 not found';
    assert.deepEqual(answer, {
      events: [
        { kind: 'error', failure: 'stale_session', message },
        { kind: 'result', ok: false, failure: 'stale_session', message },
      ],
      closeStdin: true,
    });
    assert.deepEqual(copilotAdapter.finish(state, { code: 0, signal: null, stderr: '' }), []);
  });

  test('steer: session/cancel + a new session/prompt; the cancelled answer does not end the run', () => {
    const recs = recording('copilot-acp-cancel');
    const cancelAt = recs.findIndex((r) => r.dir === 'out' && r.msg.method === 'session/cancel');
    const req = request({ prompt: recordedPrompt(recs) });
    const before = drive(recs.slice(0, cancelAt), req);
    assert.equal(finalText(before.events), 'chunk 1/20. chunk 2/20. chunk 3/20. ');
    const steered = copilotAdapter.steer!(before.state, 'Acceptance test prompt after cancel. scenario:text');
    const steerWrites = (steered.writes ?? []).map((w) => JSON.parse(w) as Record<string, unknown>);
    // The recorder sent the new prompt once `cancelled` arrived; copilot 1.0.102 also accepts it right
    // after the cancel (checked separately), which is what the adapter does.
    assert.deepEqual(steerWrites, recs.filter((r) => r.dir === 'out').slice(-2).map((r) => r.msg));
    const after = recs.slice(cancelAt + 1).filter((r) => r.dir === 'in');
    const outs = after.map((r) => copilotAdapter.parseLine(before.state, JSON.stringify(r.msg)));
    const events = outs.flatMap((o) => o.events);
    const cancelledAnswer = outs[after.findIndex((r) => (r.msg.result as { stopReason?: string })?.stopReason === 'cancelled')]!;
    assert.deepEqual(cancelledAnswer, { events: [] }, 'no result, stdin stays open');
    assert.deepEqual(ofKind(events, 'result'), [{ kind: 'result', ok: true }]);
    assert.equal(outs[outs.length - 1]!.closeStdin, true);
    // Chunks of the cancelled turn (however many arrived before `cancelled`), a blank line, the new answer.
    const cancelledAt = recs.findIndex((r) => (r.msg.result as { stopReason?: string })?.stopReason === 'cancelled');
    const chunkTexts = (rs: Rec[]) => rs.map(chunkText).join('');
    assert.ok(chunkTexts(recs.slice(0, cancelledAt)).startsWith('chunk 1/20. chunk 2/20. chunk 3/20. '));
    assert.equal(
      finalText([...before.events, ...events]),
      `${chunkTexts(recs.slice(0, cancelledAt))}\n\n${chunkTexts(recs.slice(cancelledAt))}`,
    );
    assert.ok(finalText(events).endsWith('\n\nHello from the fake model. This is a plain text answer.'));
  });

  test('steer during a tool: the cancelled answer ends the open step and counts its usage; the new prompt finishes', () => {
    const recs = recording('copilot-acp-cancel-permission');
    const cancelAt = recs.findIndex((r) => r.dir === 'out' && r.msg.method === 'session/cancel');
    const before = drive(recs.slice(0, cancelAt), request({ prompt: recordedPrompt(recs) }));
    // Auto-approving, the adapter answered the permission request at once (the recorder held it).
    assert.deepEqual(before.writes[3], { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } });
    const steered = copilotAdapter.steer!(before.state, 'Acceptance test prompt after cancel. scenario:text');
    assert.deepEqual(
      (steered.writes ?? []).map((w) => JSON.parse(w).method),
      ['session/cancel', 'session/prompt'],
    );
    const outs = recs
      .slice(cancelAt + 1)
      .filter((r) => r.dir === 'in')
      .map((r) => copilotAdapter.parseLine(before.state, JSON.stringify(r.msg)));
    const events = [...before.events, ...outs.flatMap((o) => o.events)];
    const stepId = toolCallIdOf(recs);
    assert.deepEqual(ofKind(events, 'step_end'), [{ kind: 'step_end', stepId, name: 'Print a greeting', ok: false }]);
    assert.deepEqual(ofKind(events, 'usage'), [USAGE_1, USAGE_2], 'the cancelled prompt used tokens too');
    assert.deepEqual(ofKind(events, 'result'), [{ kind: 'result', ok: true }]);
    assert.ok(finalText(events).startsWith('I will run a shell command.\n\nHello again from the fake model.'));
  });

  test('bad-session: recorded JSON-RPC errors are classified', () => {
    const errors = recording('copilot-acp-bad-session')
      .filter((r) => r.dir === 'in' && r.msg.error)
      .map((r) => r.msg.error as Record<string, unknown>);
    assert.equal(errors.length, 3);
    const [promptError, loadError, methodError] = errors;
    assert.equal(classifyRpcError(promptError, 'session/prompt').failure, 'stale_session');
    assert.equal(classifyRpcError(loadError, 'session/load').failure, 'stale_session');
    assert.equal(classifyRpcError(methodError, 'session/prompt').failure, 'invalid_request');
  });

  test('steer before the session exists goes with the first prompt; after the end it is refused', () => {
    const recs = recording('copilot-acp-text');
    const req = request({ prompt: 'first' });
    const state = copilotAdapter.initialState(req);
    copilotAdapter.start!(state, req);
    assert.deepEqual(copilotAdapter.steer!(state, 'also this'), { events: [] });
    const ins = recs.filter((r) => r.dir === 'in').map((r) => JSON.stringify(r.msg));
    const writes = ins.flatMap((l) => copilotAdapter.parseLine(state, l).writes ?? []).map((w) => JSON.parse(w));
    const prompt = writes.find((w) => w.method === 'session/prompt');
    assert.deepEqual(prompt.params.prompt, [
      { type: 'text', text: 'first' },
      { type: 'text', text: 'also this' },
    ]);
    assert.deepEqual(copilotAdapter.steer!(state, 'too late'), { events: [] });
  });
});

describe('copilot permissions asked of a person (askPermissions)', () => {
  const asking = (recs: Rec[], overrides: Partial<InvocationRequest> = {}) =>
    request({ prompt: recordedPrompt(recs), autoApprove: false, askPermissions: true, ...overrides });
  const permissionAt = (recs: Rec[]) => recs.findIndex((r) => r.msg.method === 'session/request_permission');

  test('command line: nothing is allowed up front, COPILOT_ALLOW_ALL is removed', () => {
    const inv = copilotAdapter.buildInvocation(request({ autoApprove: false, askPermissions: true }));
    assert.deepEqual(inv.args, ['--acp']);
    assert.deepEqual(inv.env, { COPILOT_ALLOW_ALL: undefined });
  });

  for (const [name, allow, optionId] of [
    ['copilot-acp-write', true, 'allow_once'],
    ['copilot-acp-write-deny', false, 'reject_once'],
  ] as const) {
    test(`${name}: the request is held as a permission_request, then answered "${optionId}"`, () => {
      const recs = recording(name);
      const at = permissionAt(recs);
      const d = drive(recs.slice(0, at + 1), asking(recs));
      assert.equal(d.writes.length, 3, 'initialize, session/new, session/prompt: the request is not answered yet');
      const [asked] = ofKind(d.events, 'permission_request');
      assert.deepEqual(asked, {
        kind: 'permission_request',
        requestId: '0',
        tool: 'edit',
        input: (recs[at]!.msg.params as { toolCall: { rawInput: Record<string, unknown> } }).toolCall.rawInput,
        description: 'Create file',
      });
      assert.match(String(asked!.input.fileName), /hello-from-tool\.txt$/);
      assert.match(String(asked!.input.diff), /\+hello-from-tool/);

      const answered = copilotAdapter.answerPermission!(d.state, '0', allow ? { allow: true } : { allow: false, reason: 'not now' });
      const reply = { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId } } };
      assert.deepEqual(answered.writes!.map((w) => JSON.parse(w)), [reply]);
      assert.deepEqual(recs[at + 1]!.msg, reply, 'as recorded');
      assert.deepEqual(copilotAdapter.answerPermission!(d.state, '0', { allow: true }), { events: [] }, 'answered once');

      const rest = recs.slice(at + 1).filter((r) => r.dir === 'in').map((r) => copilotAdapter.parseLine(d.state, JSON.stringify(r.msg)));
      const events = rest.flatMap((o) => o.events);
      assert.deepEqual(ofKind(events, 'step_end').map((e) => e.ok), [allow]);
      assert.deepEqual(ofKind(events, 'result'), [{ kind: 'result', ok: true }]);
      // a rejected call ends copilot's turn without asking the model again: no answer text, and its notice is not one
      if (!allow) assert.equal(finalText(events), '');
    });
  }

  test('read-only or auto-approving: requests are answered at once, never held', () => {
    const recs = recording('copilot-acp-write');
    for (const [overrides, optionId] of [
      [{ readOnly: true }, 'reject_once'],
      [{ autoApprove: true }, 'allow_once'],
    ] as const) {
      const d = drive(recs, asking(recs, overrides));
      assert.deepEqual(ofKind(d.events, 'permission_request'), []);
      assert.deepEqual(d.writes[3], { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId } } });
    }
  });

  test('a steer while a request is held: it is answered "cancelled" (ACP), and a later answer writes nothing', () => {
    const recs = recording('copilot-acp-cancel-permission');
    const d = drive(recs.slice(0, permissionAt(recs) + 1), asking(recs));
    assert.equal(ofKind(d.events, 'permission_request').length, 1);
    const steered = copilotAdapter.steer!(d.state, 'do something else');
    const writes = steered.writes!.map((w) => JSON.parse(w));
    assert.deepEqual(writes.map((w) => w.method ?? w.result.outcome.outcome), ['session/cancel', 'cancelled', 'session/prompt']);
    assert.equal(writes[1].id, 0);
    assert.deepEqual(copilotAdapter.answerPermission!(d.state, '0', { allow: true }), { events: [] });
  });
});

describe('copilot edge cases', () => {
  function promptingState(): CopilotState {
    const recs = recording('copilot-acp-text');
    const promptAt = recs.findIndex((r) => r.dir === 'out' && r.msg.method === 'session/prompt');
    return drive(recs.slice(0, promptAt + 1), request()).state;
  }

  function update(u: Record<string, unknown>): string {
    return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } });
  }

  function feed(state: CopilotState, lines: string[]) {
    const outs = lines.map((l) => copilotAdapter.parseLine(state, l));
    return { outs, events: outs.flatMap((o) => o.events) };
  }

  const promptAnswer = '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}';

  test('malformed, partial and unrelated lines give no events and never throw', () => {
    const state = promptingState();
    const noise = [
      '',
      'garbage',
      '{"jsonrpc":"2.0","method":"session/update"',
      '[1]',
      'null',
      '{"jsonrpc":"2.0","method":"session/update","params":null}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"}}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call"}}}',
      '{"jsonrpc":"2.0","id":99,"result":{}}',
      '{"jsonrpc":"2.0","id":"x","result":{}}',
      '{"jsonrpc":"2.0","method":"some/notification","params":{}}',
      update({ sessionUpdate: 'plan', entries: [] }),
      update({ sessionUpdate: 'usage_update', used: 1, size: 2 }),
    ];
    for (const line of noise) assert.deepEqual(copilotAdapter.parseLine(state, line).events, [], line);
    const { events } = feed(state, [update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } }), promptAnswer]);
    assert.equal(finalText(events), 'ok');
    assert.deepEqual(ofKind(events, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('unknown agent requests get a JSON-RPC "method not found" answer', () => {
    const state = promptingState();
    const out = copilotAdapter.parseLine(state, '{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"path":"/x"}}');
    assert.deepEqual(out.writes?.map((w) => JSON.parse(w)), [
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  test('content shapes: string, text block, content wrappers; diffs carry no text', () => {
    assert.equal(acpContentText('plain'), 'plain');
    assert.equal(acpContentText({ type: 'text', text: 'block' }), 'block');
    assert.equal(
      acpContentText([
        { type: 'content', content: { type: 'text', text: 'a' } },
        { type: 'diff', path: '/x', oldText: '', newText: 'y' },
        { type: 'text', text: 'b' },
      ]),
      'a\nb',
    );
    assert.equal(acpContentText([{ type: 'diff', path: '/x' }]), undefined);
    assert.equal(acpContentText(42), undefined);
  });

  test('an answer that merely starts with "Error: " stays text when the message continues', () => {
    const state = promptingState();
    const { events } = feed(state, [
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Error: the file ' } }),
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'does not exist.' } }),
      promptAnswer,
    ]);
    assert.equal(finalText(events), 'Error: the file does not exist.');
    assert.deepEqual(ofKind(events, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('tool failures: status failed, non-zero shell exit, a subagent task, a step left open', () => {
    const state = promptingState();
    const { events } = feed(state, [
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read x', kind: 'read', status: 'pending', rawInput: { path: '/x' } }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed', content: 'no such file' }),
      update({ sessionUpdate: 'tool_call', toolCallId: 't2', title: 'Run false', kind: 'execute', status: 'pending', rawInput: { command: 'false' } }),
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't2',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '<shellId: 1 completed with exit code 1>' } }],
        rawOutput: { contents: [{ type: 'shell_exit', exitCode: 1 }] },
      }),
      update({ sessionUpdate: 'tool_call', toolCallId: 't3', title: 'Explore', kind: 'other', status: 'pending', rawInput: { agent_type: 'explore', prompt: 'p' } }),
      update({ sessionUpdate: 'tool_call', toolCallId: 't4', title: 'Web', kind: 'fetch', status: 'in_progress', rawInput: {} }),
      promptAnswer,
    ]);
    assert.deepEqual(
      ofKind(events, 'step_start').map((e) => [e.stepId, e.step]),
      [
        ['t1', 'tool'],
        ['t2', 'command'],
        ['t3', 'subagent'],
        ['t4', 'search'],
      ],
    );
    assert.deepEqual(ofKind(events, 'step_end'), [
      { kind: 'step_end', stepId: 't1', name: 'Read x', ok: false, output: 'no such file' },
      { kind: 'step_end', stepId: 't2', name: 'Run false', ok: false, output: '<shellId: 1 completed with exit code 1>', exitCode: 1 },
      { kind: 'step_end', stepId: 't3', name: 'Explore', ok: false },
      { kind: 'step_end', stepId: 't4', name: 'Web', ok: false },
    ]);
  });

  test('a JSON-RPC error answering the prompt: error + failed result, classified from the message', () => {
    const state = promptingState();
    const { outs, events } = feed(state, [
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error: 503 Service Unavailable"}}',
    ]);
    assert.deepEqual(events, [
      { kind: 'error', failure: 'overloaded', message: 'Internal error: 503 Service Unavailable', httpStatus: 503 },
      { kind: 'result', ok: false, failure: 'overloaded', message: 'Internal error: 503 Service Unavailable' },
    ]);
    assert.equal(outs[0]!.closeStdin, true);
  });

  test('authentication required on session/new fails the run as auth', () => {
    const req = request();
    const state = copilotAdapter.initialState(req);
    copilotAdapter.start!(state, req);
    const init = recording('copilot-acp-text').find((r) => r.dir === 'in')!;
    copilotAdapter.parseLine(state, JSON.stringify(init.msg));
    const out = copilotAdapter.parseLine(state, '{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}}');
    assert.deepEqual(ofKind(out.events, 'result'), [{ kind: 'result', ok: false, failure: 'auth', message: 'Authentication required' }]);
    assert.equal(out.closeStdin, true);
  });

  test('cancelled and refusal stop reasons are not ok', () => {
    for (const [stopReason, message] of [
      ['cancelled', 'cancelled'],
      ['refusal', 'the model refused'],
    ]) {
      const state = promptingState();
      const { events } = feed(state, [`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"${stopReason}"}}`]);
      assert.deepEqual(events, [{ kind: 'result', ok: false, failure: 'unknown', message }]);
    }
  });

  test('exit before the prompt was answered: a crash even with status 0; stderr when it tells more', () => {
    const early = copilotAdapter.initialState(request());
    assert.deepEqual(copilotAdapter.finish(early, { code: 0, signal: null, stderr: '' }), [
      { kind: 'result', ok: false, failure: 'crash', message: 'copilot exited before answering the prompt' },
    ]);
    const state = promptingState();
    feed(state, [update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } })]);
    assert.deepEqual(copilotAdapter.finish(state, { code: 1, signal: null, stderr: 'Error: 429 Too Many Requests\n' }), [
      { kind: 'thinking', text: 'hmm' },
      { kind: 'result', ok: false, failure: 'rate_limit', message: 'exit code 1: Error: 429 Too Many Requests' },
    ]);
  });
});
