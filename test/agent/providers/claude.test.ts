// Claude Code adapter, fed line by line with real `claude` 2.1.197 output (test/fixtures/protocols).
// claude-stdin-*.jsonl were recorded with the same CLI and a local fake Anthropic API, driven the way
// this adapter drives it (--input-format stream-json --replay-user-messages): `steer` = two steers
// written while turn 1 streamed (merged into turn 2), `steer-midturn` = a steer written during a Bash
// call (injected into the same turn), `stale-resume` = `--resume` with an unknown id.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterHarness, fixtureLines, ofKind, liveText, shape } from '../../support/adapters.ts';
import { claudeAdapter, userMessageLine } from '../../../src/agent/providers/claude/adapter.ts';
import type { InvocationRequest, NormalizedEvent } from '../../../src/agent/providers/types.ts';

function request(over: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Acceptance test prompt.',
    cwd: '/work/project',
    executable: '/usr/bin/claude',
    autoApprove: false,
    scratchDir: '/tmp/run-1',
    ...over,
  };
}

/** The run's one result event (other closing events may come with it). */
function onlyResultOf(events: NormalizedEvent[]) {
  const results = ofKind(events, 'result');
  assert.equal(results.length, 1, 'exactly one result');
  return results[0]!;
}

const { feed, runFixture } = adapterHarness(claudeAdapter, request);

describe('claude buildInvocation', () => {
  test('fresh run: stream-json both ways, prompt only on stdin, CLI default approval', () => {
    const inv = claudeAdapter.buildInvocation(request());
    assert.equal(inv.command, '/usr/bin/claude');
    assert.deepEqual(inv.args, [
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--replay-user-messages',
    ]);
    assert.equal(inv.stdin, 'interactive');
    assert.deepEqual(inv.env, {});
    assert.equal(inv.files, undefined);
    assert.ok(!inv.args.includes('Acceptance test prompt.'));
  });

  test('model, effort, system prompt, auto-approve, resume and extra args', () => {
    const inv = claudeAdapter.buildInvocation(
      request({
        model: 'claude-sonnet-4-5',
        effort: 'high',
        systemPrompt: '-You are svc.\nBe brief.',
        autoApprove: true,
        resumeSessionId: '8c4f8ea1-d5eb-4b70-a9ab-febd7832be71',
        extraArgs: ['--max-turns', '5'],
      }),
    );
    assert.deepEqual(inv.args.slice(8), [
      '--dangerously-skip-permissions',
      '--model=claude-sonnet-4-5',
      '--effort=high',
      '--append-system-prompt=-You are svc.\nBe brief.',
      '--resume=8c4f8ea1-d5eb-4b70-a9ab-febd7832be71',
      '--max-turns',
      '5',
    ]);
    // Skipping permissions as root needs IS_SANDBOX=1.
    assert.deepEqual(inv.env, { IS_SANDBOX: '1' });
  });

  test('start writes the prompt as one stream-json user message; steering is live', () => {
    const req = request({ prompt: 'Say "hi"\nplease' });
    const out = claudeAdapter.start!(claudeAdapter.initialState(req), req);
    assert.deepEqual(out.events, []);
    assert.equal(out.closeStdin, undefined);
    assert.deepEqual(out.writes, [
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Say \\"hi\\"\\nplease"}]}}',
    ]);
    assert.equal(claudeAdapter.steerMode, 'live');
  });
});

describe('claude parseLine on recordings', () => {
  test('text: session, live deltas (once), usage, result closes stdin', () => {
    const run = runFixture('claude-text');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.deepEqual(run.events[0], {
      kind: 'session',
      providerSessionId: '8f8e93b7-8f41-4c93-a94b-e8f65f0eb01e',
      model: 'claude-opus-4-8[1m]',
    });
    // The assistant line repeats the streamed text: it must not be emitted twice.
    assert.equal(ofKind(run.events, 'text_delta').length, 4);
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
    assert.deepEqual(ofKind(run.events, 'usage'), [
      { kind: 'usage', inputTokens: 100, outputTokens: 20, cachedTokens: 0, costUsd: 0.001 },
    ]);
    assert.deepEqual(onlyResultOf(run.events), {
      kind: 'result',
      ok: true,
      text: 'Hello from the fake model. This is a plain text answer.',
    });
    // Only the result line closes stdin.
    assert.deepEqual(
      run.outputs.map((o) => o.closeStdin === true),
      run.outputs.map((o, i) => i === 12 && o.closeStdin === true),
    );
    assert.equal(run.outputs[12]!.closeStdin, true);
    // stderr noise and exit 0 after a success result add nothing.
    assert.deepEqual(claudeAdapter.finish(run.state, { code: 0, signal: null, stderr: 'warning: noise\n' }), []);
    assert.deepEqual(run.closing, []);
  });

  test('thinking: one buffered thinking event before the text', () => {
    const run = runFixture('claude-thinking');
    assert.deepEqual(shape(run.events), ['session', 'thinking', 'text_delta', 'usage', 'result']);
    assert.deepEqual(ofKind(run.events, 'thinking'), [
      { kind: 'thinking', text: 'The user wants a short answer. I will think briefly, then reply with a greeting.' },
    ]);
    assert.equal(liveText(run.events), 'Hello after thinking. The answer is 42.');
  });

  test('tool: Bash step with the full input, its output, and blocks joined by a blank line', () => {
    const run = runFixture('claude-tool');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'step_start', 'step_end', 'text_delta', 'usage', 'result']);
    assert.deepEqual(ofKind(run.events, 'step_start'), [
      {
        kind: 'step_start',
        stepId: 'toolu_c40ac4cb1f050766',
        name: 'Bash',
        step: 'command',
        input: { command: 'echo hello-from-tool', description: 'Print a greeting' },
      },
    ]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: 'toolu_c40ac4cb1f050766', name: 'Bash', ok: true, output: 'hello-from-tool' },
    ]);
    assert.equal(liveText(run.events), 'I will run a shell command.\n\nThe tool finished. Its output was: hello-from-tool');
    assert.ok(ofKind(run.events, 'text_delta').some((e) => e.text === '\n\n'), 'separator is its own delta');
    assert.deepEqual(onlyResultOf(run.events), {
      kind: 'result',
      ok: true,
      text: 'The tool finished. Its output was: hello-from-tool',
    });
    assert.deepEqual(ofKind(run.events, 'usage'), [
      { kind: 'usage', inputTokens: 200, outputTokens: 40, cachedTokens: 0, costUsd: 0.002 },
    ]);
  });

  test('tool without partial messages: text from assistant blocks, same normalized run', () => {
    const partial = runFixture('claude-tool');
    const whole = runFixture('claude-tool-nopartial');
    assert.deepEqual(shape(whole.events), shape(partial.events));
    assert.equal(liveText(whole.events), liveText(partial.events));
    assert.deepEqual(ofKind(whole.events, 'step_start')[0]!.input, {
      command: 'echo hello-from-tool',
      description: 'Print a greeting',
    });
    assert.equal(ofKind(whole.events, 'step_end')[0]!.output, 'hello-from-tool');
    assert.equal(onlyResultOf(whole.events).text, onlyResultOf(partial.events).text);
  });

  test('write: Write is a file step and its result is ok', () => {
    const run = runFixture('claude-write');
    const start = ofKind(run.events, 'step_start');
    assert.deepEqual(start, [
      {
        kind: 'step_start',
        stepId: 'toolu_b126868e61d4f8e1',
        name: 'Write',
        step: 'file',
        input: { file_path: '/home/user/run/work/hello-from-tool.txt', content: 'hello-from-tool\n' },
      },
    ]);
    const end = ofKind(run.events, 'step_end');
    assert.equal(end.length, 1);
    assert.equal(end[0]!.ok, true);
    assert.match(end[0]!.output ?? '', /^File created successfully at: \/home\/user\/run\/work\/hello-from-tool\.txt/);
    assert.equal(onlyResultOf(run.events).ok, true);
  });

  const failures = [
    { name: 'claude-error', status: 500, failure: 'server_error', reason: 'server_error (HTTP 500)', prefix: 'API Error: 500' },
    { name: 'claude-ratelimit', status: 429, failure: 'rate_limit', reason: 'rate_limit (HTTP 429)', prefix: 'API Error: Request rejected (429)' },
    // The synthetic message says "server_error" for a 529: the status wins.
    { name: 'claude-overloaded', status: 529, failure: 'overloaded', reason: 'overloaded (HTTP 529)', prefix: 'API Error: 529' },
  ] as const;
  for (const f of failures) {
    test(`${f.name}: retries, a classified error and a failed result`, () => {
      const run = runFixture(f.name);
      assert.deepEqual(shape(run.events), ['session', 'provider_retry', 'provider_retry', 'error', 'usage', 'result']);
      const retries = ofKind(run.events, 'provider_retry');
      assert.deepEqual(
        retries.map((r) => [r.attempt, r.reason]),
        [
          [1, f.reason],
          [2, f.reason],
        ],
      );
      assert.ok(retries.every((r) => typeof r.delayMs === 'number' && r.delayMs > 400));
      const [error] = ofKind(run.events, 'error');
      assert.equal(error!.failure, f.failure);
      assert.equal(error!.httpStatus, f.status);
      const result = onlyResultOf(run.events);
      assert.equal(result.ok, false);
      assert.equal(result.failure, f.failure);
      assert.ok(result.message?.startsWith(f.prefix), result.message);
      assert.equal(result.text, undefined);
      // The synthetic error text is not part of the answer.
      assert.equal(ofKind(run.events, 'text_delta').length, 0);
      assert.deepEqual(run.closing, [], 'exit 1 after a structured result adds nothing');
    });
  }

  test('flaky: one retry, then a normal answer', () => {
    const run = runFixture('claude-flaky');
    assert.deepEqual(shape(run.events), ['session', 'provider_retry', 'text_delta', 'usage', 'result']);
    assert.equal(ofKind(run.events, 'provider_retry')[0]!.attempt, 1);
    assert.deepEqual(onlyResultOf(run.events), {
      kind: 'result',
      ok: true,
      text: 'Hello from the fake model. This is a plain text answer.',
    });
  });

  test('resume: both turns report the same session id, turn 2 answers from history', () => {
    const all = fixtureLines('claude-resume.jsonl');
    const secondInit = all.findIndex((l, i) => i > 0 && l.includes('"subtype":"init"'));
    const turn1 = feed(all.slice(0, secondInit));
    const turn2 = feed(all.slice(secondInit));
    const id = '8c4f8ea1-d5eb-4b70-a9ab-febd7832be71';
    assert.deepEqual(ofKind(turn1.events, 'session').map((s) => s.providerSessionId), [id]);
    assert.deepEqual(ofKind(turn2.events, 'session').map((s) => s.providerSessionId), [id]);
    assert.equal(onlyResultOf(turn1.events).text, 'Hello from the fake model. This is a plain text answer.');
    assert.equal(
      onlyResultOf(turn2.events).text,
      'Hello again from the fake model. I can see 1 earlier prompt(s) in this conversation; the previous one was: "Remember the secret word pineapple. scenario:text"',
    );
  });

  test('unknown resume id: structured stale_session result, no session event', () => {
    const run = runFixture('claude-stdin-stale-resume');
    assert.deepEqual(shape(run.events), ['usage', 'result']);
    const result = onlyResultOf(run.events);
    assert.equal(result.ok, false);
    assert.equal(result.failure, 'stale_session');
    assert.match(result.message ?? '', /No conversation found with session ID: 3f0c8a1e/);
    assert.equal(run.outputs[0]!.closeStdin, true);
  });
});

describe('claude live steering over stdin', () => {
  const req = request({ prompt: 'first prompt' });

  test('steers queued during a turn run as one more turn; stdin closes after it', () => {
    const lines = fixtureLines('claude-stdin-steer.jsonl').filter((l) => l);
    const state = claudeAdapter.initialState(req);
    claudeAdapter.start!(state, req);
    // The recording's steers were written while turn 1 streamed (after its first block started).
    const steerAt = lines.findIndex((l) => l.includes('content_block_start'));
    const before = feed(lines.slice(0, steerAt + 1), req, state);
    const s1 = claudeAdapter.steer!(state, 'steer one');
    const s2 = claudeAdapter.steer!(state, 'steer two');
    assert.deepEqual(s1.writes, [userMessageLine('steer one')]);
    assert.deepEqual(s2.writes, [userMessageLine('steer two')]);
    const after = feed(lines.slice(steerAt + 1), req, state);
    const outputs = [...before.outputs, ...after.outputs];
    const events = outputs.flatMap((o) => o.events);
    const resultLines = lines.map((l, i) => (l.includes('"type":"result"') ? i : -1)).filter((i) => i >= 0);
    assert.equal(resultLines.length, 2);
    // Turn 1's result keeps stdin open (the steers are waiting); turn 2's closes it.
    assert.equal(outputs[resultLines[0]!]!.closeStdin, undefined);
    assert.equal(outputs[resultLines[1]!]!.closeStdin, true);
    assert.equal(ofKind(events, 'session').length, 1, 'the per-turn init lines repeat one session');
    assert.deepEqual(onlyResultOf(events), {
      kind: 'result',
      ok: true,
      text: 'Reply 18: I saw 1 user texts; last=first prompt\n\nReply 19: I saw 3 user texts; last=steer two',
    });
    assert.equal(liveText(events), 'Reply 18: I saw 1 user texts; last=first prompt\n\nReply 19: I saw 3 user texts; last=steer two');
    // total_cost_usd is cumulative (0.000175, then 0.00035): each usage carries its own turn's cost.
    const usage = ofKind(events, 'usage');
    assert.deepEqual(usage.map((u) => [u.inputTokens, u.outputTokens]), [[10, 5], [10, 5]]);
    assert.ok(Math.abs(usage[0]!.costUsd! - 0.000175) < 1e-12);
    assert.ok(Math.abs(usage[1]!.costUsd! - 0.000175) < 1e-12);
    // After stdin closed nothing can be delivered.
    assert.deepEqual(claudeAdapter.steer!(state, 'too late').writes, []);
  });

  test('a steer taken inside the running turn does not keep stdin open', () => {
    const midReq = request({ prompt: 'run it scenario:tool' });
    const lines = fixtureLines('claude-stdin-steer-midturn.jsonl').filter((l) => l);
    const state = claudeAdapter.initialState(midReq);
    claudeAdapter.start!(state, midReq);
    const toolCall = lines.findIndex((l) => l.includes('"type":"assistant"') && l.includes('"type":"tool_use"'));
    const before = feed(lines.slice(0, toolCall + 1), midReq, state);
    claudeAdapter.steer!(state, 'steer one');
    const after = feed(lines.slice(toolCall + 1), midReq, state);
    const outputs = [...before.outputs, ...after.outputs];
    const events = outputs.flatMap((o) => o.events);
    assert.equal(outputs.filter((o) => o.closeStdin).length, 1);
    assert.equal(outputs.at(-1)!.closeStdin, true, 'the only result closes stdin');
    assert.equal(onlyResultOf(events).ok, true);
    assert.deepEqual(
      ofKind(events, 'step_end').map((e) => [e.stepId, e.ok, e.output]),
      [['toolu_2', true, 'hi']],
    );
  });

  test('without the replay echo, a queued steer is assumed taken by the next turn', () => {
    const lines = fixtureLines('claude-stdin-steer.jsonl').filter((l) => l && !l.includes('"isReplay":true'));
    const state = claudeAdapter.initialState(req);
    claudeAdapter.start!(state, req);
    const steerAt = lines.findIndex((l) => l.includes('content_block_start'));
    const before = feed(lines.slice(0, steerAt + 1), req, state);
    claudeAdapter.steer!(state, 'steer one');
    const after = feed(lines.slice(steerAt + 1), req, state);
    const closes = [...before.outputs, ...after.outputs].map((o) => o.closeStdin === true);
    assert.equal(closes.filter(Boolean).length, 1);
    assert.equal(closes.lastIndexOf(true), lines.length - 1);
  });

  test('process ends while a steer is still queued: finish reports the last turn', () => {
    const lines = fixtureLines('claude-text.jsonl').filter((l) => l);
    const state = claudeAdapter.initialState(req);
    claudeAdapter.start!(state, req);
    feed(lines.slice(0, 5), req, state);
    claudeAdapter.steer!(state, 'never taken');
    const run = feed(lines.slice(5), req, state);
    assert.equal(ofKind(run.events, 'result').length, 0, 'stdin kept open, no result yet');
    const closing = claudeAdapter.finish(state, { code: 0, signal: null, stderr: '' });
    assert.deepEqual(closing, [
      { kind: 'result', ok: true, text: 'Hello from the fake model. This is a plain text answer.' },
    ]);
  });
});

describe('claude robustness', () => {
  test('malformed, empty, non-JSON and non-object lines yield nothing', () => {
    const state = claudeAdapter.initialState(request());
    for (const line of ['', '   ', 'not json', '{"type":', '[1,2,3]', '"text"', 'null', '{"type":"unknown_kind"}', '{}', '{"type":"assistant"}', '{"type":"user","message":{"content":"x"}}', '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":5}}}']) {
      assert.deepEqual(claudeAdapter.parseLine(state, line), { events: [] }, JSON.stringify(line));
    }
  });

  test('half a line yields nothing; the joined line is parsed', () => {
    const resultLine = fixtureLines('claude-text.jsonl')[12]!;
    const cut = Math.floor(resultLine.length / 2);
    const state = claudeAdapter.initialState(request());
    assert.deepEqual(claudeAdapter.parseLine(state, resultLine.slice(0, cut)).events, []);
    assert.deepEqual(claudeAdapter.parseLine(state, resultLine.slice(cut)).events, []);
    assert.equal(ofKind(claudeAdapter.parseLine(state, resultLine).events, 'result').length, 1);
  });

  test('finish without a result: stderr decides, running steps are closed', () => {
    const lines = fixtureLines('claude-tool.jsonl');
    const toolCall = lines.findIndex((l) => l.includes('"type":"assistant"') && l.includes('"type":"tool_use"'));
    const run = feed(lines.slice(0, toolCall + 1));
    const closing = claudeAdapter.finish(run.state, { code: null, signal: 'SIGKILL', stderr: '' });
    assert.deepEqual(closing, [
      { kind: 'step_end', stepId: 'toolu_c40ac4cb1f050766', name: 'Bash', ok: false },
      { kind: 'result', ok: false, failure: 'crash', message: 'killed by SIGKILL' },
    ]);

    const stale = claudeAdapter.finish(claudeAdapter.initialState(request()), {
      code: 1,
      signal: null,
      stderr: 'No conversation found with session ID: abc\n',
    });
    assert.deepEqual(stale, [
      { kind: 'result', ok: false, failure: 'stale_session', message: 'exit code 1: No conversation found with session ID: abc' },
    ]);
    const clean = claudeAdapter.finish(claudeAdapter.initialState(request()), { code: 0, signal: null, stderr: '' });
    assert.deepEqual(clean, [{ kind: 'result', ok: true }]);
  });

  test('sub-agent text is not part of the answer, its tool calls are steps', () => {
    const state = claudeAdapter.initialState(request());
    const lines = [
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"look","prompt":"find it"}}]},"parent_tool_use_id":null}',
      '{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"sub-agent chatter"}]},"parent_tool_use_id":"t1"}',
      '{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"WebSearch","input":{"query":"q"}}]},"parent_tool_use_id":"t1"}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"found"}]}]},"parent_tool_use_id":"t1"}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"done","is_error":true}]},"parent_tool_use_id":null}',
    ];
    const { events } = feed(lines, request(), state);
    assert.equal(liveText(events), '');
    assert.deepEqual(
      ofKind(events, 'step_start').map((e) => [e.stepId, e.step]),
      [
        ['t1', 'subagent'],
        ['t2', 'search'],
      ],
    );
    assert.deepEqual(
      ofKind(events, 'step_end').map((e) => [e.stepId, e.ok, e.output]),
      [
        ['t2', true, 'found'],
        ['t1', false, 'done'],
      ],
    );
  });
});

// claude-permission-{allow,deny}.jsonl: claude 2.1.197 with --permission-prompt-tool stdio (as root,
// without IS_SANDBOX), the fake model's `write` scenario; the recorder answered the can_use_tool
// control request with an allow (the file was written) or a deny with a reason (no file).
describe('claude tool permissions asked of a person', () => {
  test('without auto-approve, a run that can ask opens the stdio channel; auto-approve and read-only do not', () => {
    assert.ok(claudeAdapter.buildInvocation(request({ askPermissions: true })).args.includes('--permission-prompt-tool=stdio'));
    const auto = claudeAdapter.buildInvocation(request({ askPermissions: true, autoApprove: true })).args;
    assert.ok(auto.includes('--dangerously-skip-permissions') && !auto.some((a) => a.startsWith('--permission-prompt-tool')));
    assert.ok(!claudeAdapter.buildInvocation(request({ askPermissions: true, readOnly: true })).args.some((a) => a.startsWith('--permission-prompt-tool')));
    assert.ok(!claudeAdapter.buildInvocation(request()).args.some((a) => a.startsWith('--permission-prompt-tool')), 'nobody to ask: the CLI\'s own rules');
  });

  test('a can_use_tool request is a permission_request; an allow sends the asked input back, a deny its reason', () => {
    for (const name of ['claude-permission-allow', 'claude-permission-deny']) {
      const lines = fixtureLines(`${name}.jsonl`);
      const at = lines.findIndex((l) => l.includes('"control_request"'));
      const { state, events } = feed(lines.slice(0, at + 1), request({ askPermissions: true }));
      const [asked] = ofKind(events, 'permission_request');
      assert.ok(asked, name);
      assert.equal(asked.tool, 'Write');
      assert.match(String(asked.input.file_path), /hello-from-tool\.txt$/);
      assert.equal(asked.input.content, 'hello-from-tool\n');
      assert.equal(asked.description, 'hello-from-tool.txt');
      const requestId = JSON.parse(lines[at]!).request_id;
      assert.equal(asked.requestId, requestId);
      const allow = claudeAdapter.answerPermission!(state, requestId, { allow: true });
      assert.deepEqual(JSON.parse(allow.writes![0]!), { type: 'control_response', response: { subtype: 'success', request_id: requestId, response: { behavior: 'allow', updatedInput: asked.input } } });
      const deny = claudeAdapter.answerPermission!(claudeAdapter.initialState(request()), requestId, { allow: false, reason: 'not now' });
      assert.deepEqual(JSON.parse(deny.writes![0]!).response.response, { behavior: 'deny', message: 'not now' });
    }
  });

  test('what the model read after each answer: the tool ran, or the deny\'s reason as its result', () => {
    const allowed = runFixture('claude-permission-allow');
    assert.match(onlyResultOf([...allowed.events, ...allowed.closing]).text ?? '', /File created successfully/);
    const denied = runFixture('claude-permission-deny');
    assert.match(onlyResultOf([...denied.events, ...denied.closing]).text ?? '', /the user said no: not now/);
    const end = ofKind(denied.events, 'step_end').find((e) => e.name === 'Write');
    assert.equal(end?.ok, false, 'the denied call is a failed step');
  });
});
