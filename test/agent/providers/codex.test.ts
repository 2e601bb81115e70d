// Codex CLI adapter, fed line by line with real `codex exec --json` 0.169.0 output.
// codex-stale-resume.* was recorded with the same CLI: `exec … resume <unknown uuid> -- x`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterHarness, fixtureLines, ofKind, liveText, shape, onlyResult } from '../../support/adapters.ts';
import { parse as parseToml } from 'smol-toml';
import { classifyCodexError, codexAdapter, tomlString } from '../../../src/agent/providers/codex/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';

function request(over: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Acceptance test prompt.',
    cwd: '/work/project',
    executable: 'codex',
    autoApprove: false,
    scratchDir: '/tmp/run-1',
    ...over,
  };
}

const { feed, runFixture } = adapterHarness(codexAdapter, request);

describe('codex buildInvocation', () => {
  test('fresh run: exec --json, prompt as the last positional after --, stdin closed', () => {
    const inv = codexAdapter.buildInvocation(request({ prompt: '-starts with a dash' }));
    assert.equal(inv.command, 'codex');
    assert.deepEqual(inv.args, ['exec', '--json', '--skip-git-repo-check', '--', '-starts with a dash']);
    assert.equal(inv.stdin, 'close');
    assert.deepEqual(inv.env, {});
    assert.equal(codexAdapter.steerMode, 'interrupt-resume');
  });

  test('resume: every option before `resume <id>`, then the prompt', () => {
    const inv = codexAdapter.buildInvocation(
      request({
        resumeSessionId: '01a1ff12-79a5-7782-b155-97814171d4a9',
        model: 'gpt-5.5',
        effort: 'high',
        autoApprove: true,
        extraArgs: ['-c', 'service_tier="fast"'],
        prompt: 'What was the secret word?',
      }),
    );
    assert.deepEqual(inv.args, [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model=gpt-5.5',
      '-c',
      'model_reasoning_effort="high"',
      '-c',
      'service_tier="fast"',
      'resume',
      '01a1ff12-79a5-7782-b155-97814171d4a9',
      '--',
      'What was the secret word?',
    ]);
  });

  test('system prompt: -c developer_instructions as a TOML string that round-trips', () => {
    const system = 'Line one\n\t"quoted" \\ back\u0001slash\u007f and ünïcode';
    const inv = codexAdapter.buildInvocation(request({ systemPrompt: system }));
    const at = inv.args.indexOf('-c');
    assert.ok(at > 0);
    const setting = inv.args[at + 1]!;
    assert.ok(setting.startsWith('developer_instructions="'));
    assert.equal(parseToml(setting).developer_instructions, system);
    assert.equal(tomlString('plain'), '"plain"');
    assert.equal(inv.files, undefined, 'nothing is written, least of all into the project');
  });
});

describe('codex parseLine on recordings', () => {
  test('text: thread id, the message as one delta, usage, result', () => {
    const run = runFixture('codex-text');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.deepEqual(run.events[0], { kind: 'session', providerSessionId: '01a1ff12-6603-7003-a4ef-3aa7e19eaf80' });
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
    assert.deepEqual(ofKind(run.events, 'usage'), [
      { kind: 'usage', inputTokens: 100, cachedTokens: 0, outputTokens: 20, reasoningTokens: 0 },
    ]);
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    // "Reading additional input from stdin..." on stderr and exit 0 add nothing.
    assert.deepEqual(run.closing, []);
  });

  test('thinking: the reasoning item is one thinking event, reasoning tokens reported', () => {
    const run = runFixture('codex-thinking');
    assert.deepEqual(shape(run.events), ['session', 'thinking', 'text_delta', 'usage', 'result']);
    assert.deepEqual(ofKind(run.events, 'thinking'), [
      { kind: 'thinking', text: 'The user wants a short answer. I will think briefly, then reply with a greeting.' },
    ]);
    assert.equal(liveText(run.events), 'Hello after thinking. The answer is 42.');
    assert.equal(ofKind(run.events, 'usage')[0]!.reasoningTokens, 10);
  });

  test('tool: command step from item.started to item.completed with exit code and output', () => {
    const run = runFixture('codex-tool');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'step_start', 'step_end', 'text_delta', 'usage', 'result']);
    assert.deepEqual(ofKind(run.events, 'step_start'), [
      {
        kind: 'step_start',
        stepId: 'item_1',
        name: 'command_execution',
        step: 'command',
        input: { command: "/bin/bash -lc 'echo hello-from-tool'" },
      },
    ]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: 'item_1', name: 'command_execution', ok: true, exitCode: 0, output: 'hello-from-tool\n' },
    ]);
    assert.equal(
      liveText(run.events),
      'I will run a shell command.\n\nThe tool finished. Its output was: Chunk ID: 77f0ed Wall time: 0.0000 seconds Process exited with code 0 Original token count: 4 Output: hello-from-tool',
    );
    assert.deepEqual(ofKind(run.events, 'usage').map((u) => [u.inputTokens, u.outputTokens]), [[200, 40]]);
  });

  test('write: file_change step lists the changed file', () => {
    const run = runFixture('codex-write');
    assert.deepEqual(ofKind(run.events, 'step_start'), [
      {
        kind: 'step_start',
        stepId: 'item_1',
        name: 'file_change',
        step: 'file',
        input: { changes: [{ path: '/home/user/run/work/hello-from-tool.txt', kind: 'add' }] },
      },
    ]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: 'item_1', name: 'file_change', ok: true, output: 'add /home/user/run/work/hello-from-tool.txt' },
    ]);
  });

  const failures = [
    { name: 'codex-error', failure: 'server_error', status: undefined, text: /^We’re currently experiencing high demand/ },
    { name: 'codex-ratelimit', failure: 'rate_limit', status: 429, text: /^exceeded retry limit, last status: 429/ },
    { name: 'codex-overloaded', failure: 'overloaded', status: 503, text: /^unexpected status 503 Service Unavailable/ },
  ] as const;
  for (const f of failures) {
    test(`${f.name}: reconnect notice, classified error, failed result`, () => {
      const run = runFixture(f.name);
      assert.deepEqual(shape(run.events), ['session', 'provider_retry', 'error', 'result']);
      const [retry] = ofKind(run.events, 'provider_retry');
      assert.equal(retry!.attempt, 1);
      assert.match(retry!.reason, f.text);
      const [error] = ofKind(run.events, 'error');
      assert.equal(error!.failure, f.failure);
      assert.equal(error!.httpStatus, f.status);
      const [result] = ofKind(run.events, 'result');
      assert.equal(result!.ok, false);
      assert.equal(result!.failure, f.failure);
      assert.match(result!.message ?? '', f.text);
      assert.deepEqual(run.closing, [], 'exit 1 after turn.failed adds nothing');
    });
  }

  test('network down: each "Reconnecting... waiting for network" is a numbered retry, not an error', () => {
    const run = feed(fixtureLines('codex-network-down.jsonl'));
    assert.deepEqual(shape(run.events), ['session', 'provider_retry', 'provider_retry', 'provider_retry']);
    const retries = ofKind(run.events, 'provider_retry');
    assert.deepEqual(retries.map((r) => r.attempt), [1, 2, 3]);
    assert.equal(retries[0]!.reason, 'waiting for the network: Connection failed: error sending request');
    assert.ok(retries.every((r) => r.offline), 'each says the network is down: the runner bounds that wait');
    assert.equal(run.state.lastError, undefined, 'waiting is not a failure');
  });

  test('flaky: request retries are invisible, the run is clean', () => {
    const run = runFixture('codex-flaky');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.equal(ofKind(run.events, 'result')[0]!.ok, true);
  });

  test('resume: both turns carry the same thread id; usage as printed', () => {
    const all = fixtureLines('codex-resume.jsonl');
    const second = all.findIndex((l, i) => i > 0 && l.includes('thread.started'));
    const turn1 = feed(all.slice(0, second));
    const turn2 = feed(all.slice(second));
    const id = '01a1ff12-79a5-7782-b155-97814171d4a9';
    assert.deepEqual(ofKind(turn1.events, 'session'), [{ kind: 'session', providerSessionId: id }]);
    assert.deepEqual(ofKind(turn2.events, 'session'), [{ kind: 'session', providerSessionId: id }]);
    assert.equal(
      liveText(turn2.events),
      'Hello again from the fake model. I can see 1 earlier prompt(s) in this conversation; the previous one was: "Remember the secret word pineapple. scenario:text"',
    );
    assert.deepEqual(ofKind(turn2.events, 'usage').map((u) => [u.inputTokens, u.outputTokens]), [[200, 40]]);
  });

  test('unknown resume id: stderr only, classified stale_session', () => {
    const run = runFixture('codex-stale-resume');
    assert.deepEqual(run.events, []);
    assert.deepEqual(run.closing, [
      {
        kind: 'result',
        ok: false,
        failure: 'stale_session',
        message:
          'exit code 1: Error: thread/resume: thread/resume failed: no rollout found for thread id 3f0c8a1e-1111-4222-8333-944455556666 (code -32600)',
      },
    ]);
  });

  test('config rejected before any output: a crash with the reason', () => {
    const run = runFixture('codex-tool-wirechat');
    const result = onlyResult(run.closing);
    assert.equal(result.ok, false);
    assert.equal(result.failure, 'crash');
    assert.match(result.message ?? '', /wire_api = "chat"` is no longer supported/);
  });
});

describe('codex robustness', () => {
  test('malformed, empty, non-JSON and unknown lines yield nothing', () => {
    const state = codexAdapter.initialState(request());
    for (const line of ['', 'Reading additional input from stdin...', '{"type":"item.completed"', '[]', '{"type":"turn.started"}', '{"type":"item.completed","item":"x"}', '{"type":"item.completed","item":{"type":"todo_list","items":[]}}', '{"type":"something.new"}']) {
      assert.deepEqual(codexAdapter.parseLine(state, line), { events: [] }, JSON.stringify(line));
    }
  });

  test('half a line yields nothing; the joined line is parsed', () => {
    const line = fixtureLines('codex-text.jsonl')[2]!;
    const state = codexAdapter.initialState(request());
    const cut = 25;
    assert.deepEqual(codexAdapter.parseLine(state, line.slice(0, cut)).events, []);
    assert.deepEqual(codexAdapter.parseLine(state, line.slice(cut)).events, []);
    assert.equal(liveText(codexAdapter.parseLine(state, line).events), 'Hello from the fake model. This is a plain text answer.');
  });

  test('killed during a command: the step is closed and the run is a crash', () => {
    const lines = fixtureLines('codex-tool.jsonl');
    const run = feed(lines.slice(0, 4));
    assert.equal(ofKind(run.events, 'step_start').length, 1);
    assert.deepEqual(codexAdapter.finish(run.state, { code: null, signal: 'SIGTERM', stderr: '' }), [
      { kind: 'step_end', stepId: 'item_1', name: 'command_execution', ok: false },
      { kind: 'result', ok: false, failure: 'crash', message: 'killed by SIGTERM' },
    ]);
  });

  test('died after a fatal error line but before turn.failed: the error decides', () => {
    const lines = fixtureLines('codex-ratelimit.jsonl').slice(0, 4);
    const run = feed(lines);
    const result = onlyResult(codexAdapter.finish(run.state, { code: 1, signal: null, stderr: 'Reading additional input from stdin...\n' }));
    assert.equal(result.failure, 'rate_limit');
  });

  test('failed command, MCP call, web search and non-fatal error items', () => {
    const lines = [
      '{"type":"item.started","item":{"id":"c1","type":"command_execution","command":"false","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"c1","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}}',
      '{"type":"item.started","item":{"id":"m1","type":"mcp_tool_call","server":"docs","tool":"lookup","arguments":{"q":"x"},"result":null,"error":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"m1","type":"mcp_tool_call","server":"docs","tool":"lookup","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}],"structured_content":null},"error":null,"status":"completed"}}',
      '{"type":"item.completed","item":{"id":"w1","type":"web_search","query":"node test","action":{"type":"search","query":"node test"}}}',
      '{"type":"item.completed","item":{"id":"e1","type":"error","message":"Model metadata for `gpt-x` not found."}}',
    ];
    const { events } = feed(lines);
    assert.deepEqual(
      ofKind(events, 'step_start').map((e) => [e.stepId, e.name, e.step]),
      [
        ['c1', 'command_execution', 'command'],
        ['m1', 'docs.lookup', 'tool'],
        ['w1', 'web_search', 'search'],
      ],
    );
    assert.deepEqual(
      ofKind(events, 'step_end').map((e) => [e.stepId, e.ok, e.exitCode, e.output]),
      [
        ['c1', false, 1, ''],
        ['m1', true, undefined, 'found'],
        ['w1', true, undefined, undefined],
      ],
    );
    assert.deepEqual(ofKind(events, 'error'), [
      { kind: 'error', failure: 'unknown', message: 'Model metadata for `gpt-x` not found.' },
    ]);
  });

  test('error classification from codex wordings', () => {
    assert.equal(classifyCodexError('thread not found: 01a0017c-0500-79e2-86cd-ca460f69b1a8').failure, 'stale_session');
    assert.equal(classifyCodexError('{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}').message, 'Incorrect API key provided');
    assert.equal(classifyCodexError('unexpected status 401 Unauthorized: Missing bearer').failure, 'auth');
    assert.equal(classifyCodexError("You've hit your usage limit. Try again later.").failure, 'rate_limit');
    assert.equal(classifyCodexError('something odd').failure, 'unknown');
  });
});
