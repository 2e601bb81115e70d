// Gemini CLI adapter, fed line by line with real `gemini --output-format stream-json` 0.61.0 output.
// gemini-stale-*.stderr were recorded with the same CLI: `--resume <unknown uuid>` in a project with
// sessions (invalid identifier) and without any (no previous sessions); stdout was empty.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterHarness, fixtureLines, ofKind, liveText, shape, onlyResult } from '../../support/adapters.ts';
import { geminiAdapter, promptWithSystem } from '../../../src/agent/providers/gemini/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';

function request(over: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Acceptance test prompt.',
    cwd: '/work/project',
    executable: 'gemini',
    autoApprove: false,
    scratchDir: '/tmp/run-1',
    ...over,
  };
}

const { feed, runFixture } = adapterHarness(geminiAdapter, request);

describe('gemini buildInvocation', () => {
  test('fresh run: headless prompt, stream-json, CLI default approval, stdin closed', () => {
    const inv = geminiAdapter.buildInvocation(request({ prompt: '-dash first' }));
    assert.equal(inv.command, 'gemini');
    assert.deepEqual(inv.args, ['--prompt=-dash first', '--output-format', 'stream-json', '--approval-mode=default', '--skip-trust']);
    assert.equal(inv.stdin, 'close');
    // one process: gemini's self-relaunch would load its bundle twice on every run
    assert.deepEqual(inv.env, { GEMINI_CLI_NO_RELAUNCH: 'true' });
    assert.equal(inv.files, undefined);
    assert.equal(geminiAdapter.steerMode, 'interrupt-resume');
  });

  test('model, auto-approve, resume and extra args; effort is ignored', () => {
    const inv = geminiAdapter.buildInvocation(
      request({
        model: 'gemini-2.5-flash',
        effort: 'high',
        autoApprove: true,
        resumeSessionId: '6dc5fe0c-591f-42c1-a063-386c971302ec',
        extraArgs: ['--include-directories', '/data'],
      }),
    );
    assert.deepEqual(inv.args, [
      '--prompt=Acceptance test prompt.',
      '--output-format',
      'stream-json',
      '--model=gemini-2.5-flash',
      '--yolo',
      '--skip-trust',
      '--resume=6dc5fe0c-591f-42c1-a063-386c971302ec',
      '--include-directories',
      '/data',
    ]);
    assert.ok(!inv.args.some((a) => a.includes('high')));
  });

  test('not auto-approving, or read-only: the default approval mode, in a folder trusted for the run (untrusted, headless gemini exits 55)', () => {
    for (const overrides of [{ autoApprove: false }, { autoApprove: true, readOnly: true }]) {
      const { args } = geminiAdapter.buildInvocation(request(overrides));
      assert.ok(args.includes('--approval-mode=default') && args.includes('--skip-trust'), JSON.stringify(overrides));
      assert.ok(!args.includes('--yolo'), JSON.stringify(overrides));
    }
  });

  test('system prompt: a preamble of the first prompt, not GEMINI_SYSTEM_MD; not repeated on resume', () => {
    const fresh = geminiAdapter.buildInvocation(request({ systemPrompt: 'You are svc.' }));
    assert.equal(fresh.args[0], '--prompt=<system_instructions>\nYou are svc.\n</system_instructions>\n\nAcceptance test prompt.');
    assert.deepEqual(fresh.env, { GEMINI_CLI_NO_RELAUNCH: 'true' });
    assert.equal(fresh.files, undefined);
    const resumed = geminiAdapter.buildInvocation(request({ systemPrompt: 'You are svc.', resumeSessionId: 'abc' }));
    assert.equal(resumed.args[0], '--prompt=Acceptance test prompt.');
    assert.equal(promptWithSystem('p', undefined, false), 'p');
  });
});

describe('gemini parseLine on recordings', () => {
  test('text: session with model, assistant deltas, usage, result', () => {
    const run = runFixture('gemini-text');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.deepEqual(run.events[0], {
      kind: 'session',
      providerSessionId: 'e207bd79-42df-4d4d-b119-1d4bc0296b49',
      model: 'gemini-2.5-flash',
    });
    assert.equal(ofKind(run.events, 'text_delta').length, 4);
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
    assert.deepEqual(ofKind(run.events, 'usage'), [{ kind: 'usage', inputTokens: 100, outputTokens: 20, cachedTokens: 0 }]);
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    // The prompt echo (role user) is not answer text.
    assert.ok(!liveText(run.events).includes('Acceptance test prompt'));
    // stderr warnings and exit 0 after a success result add nothing.
    assert.deepEqual(run.closing, []);
  });

  test('thinking: gemini prints no thoughts, only the answer', () => {
    const run = runFixture('gemini-thinking');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.equal(liveText(run.events), 'Hello after thinking. The answer is 42.');
  });

  test('tool: shell step with its parameters and output; text blocks around it joined', () => {
    const run = runFixture('gemini-tool');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'step_start', 'step_end', 'text_delta', 'usage', 'result']);
    const id = 'run_shell_command__run_shell_command_1795280770250_0';
    assert.deepEqual(ofKind(run.events, 'step_start'), [
      {
        kind: 'step_start',
        stepId: id,
        name: 'run_shell_command',
        step: 'command',
        input: { command: 'echo hello-from-tool', description: 'Print a greeting' },
      },
    ]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: id, name: 'run_shell_command', ok: true, output: 'hello-from-tool' },
    ]);
    assert.equal(
      liveText(run.events),
      'I will run a shell command.\n\nThe tool finished. Its output was: <untrusted_context> Output: hello-from-tool Process Group PGID: 16402 </untrusted_context>',
    );
    assert.deepEqual(ofKind(run.events, 'usage'), [{ kind: 'usage', inputTokens: 200, outputTokens: 40, cachedTokens: 0 }]);
  });

  test('auto model: the routed model is reported once the stats name it', () => {
    const run = runFixture('gemini-tool-automodel');
    assert.deepEqual(ofKind(run.events, 'session'), [
      { kind: 'session', providerSessionId: 'aad17035-7bea-4d4f-983e-c40845df98f5' },
      { kind: 'session', providerSessionId: 'aad17035-7bea-4d4f-983e-c40845df98f5', model: 'gemini-3.8-flash' },
    ]);
    assert.deepEqual(ofKind(run.events, 'usage').map((u) => [u.inputTokens, u.outputTokens]), [[300, 60]]);
  });

  test('write: write_file is a file step without output', () => {
    const run = runFixture('gemini-write');
    assert.deepEqual(ofKind(run.events, 'step_start'), [
      {
        kind: 'step_start',
        stepId: 'write_file__write_file_1795280772731_0',
        name: 'write_file',
        step: 'file',
        input: { file_path: '/home/user/run/work/hello-from-tool.txt', content: 'hello-from-tool\n' },
      },
    ]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: 'write_file__write_file_1795280772731_0', name: 'write_file', ok: true },
    ]);
  });

  const failures = [
    { name: 'gemini-error', failure: 'server_error', text: /Fake internal error/ },
    { name: 'gemini-ratelimit', failure: 'rate_limit', text: /Fake quota exceeded/ },
    { name: 'gemini-overloaded', failure: 'overloaded', text: /Fake model overloaded/ },
  ] as const;
  for (const f of failures) {
    test(`${f.name}: error at once, failed result at exit`, () => {
      const run = runFixture(f.name);
      assert.deepEqual(shape(run.events), ['session', 'usage', 'error']);
      assert.equal(ofKind(run.events, 'error')[0]!.failure, f.failure);
      assert.equal(ofKind(run.events, 'result').length, 0, 'the result waits for the exit code');
      const result = onlyResult(run.closing);
      assert.equal(result.ok, false);
      assert.equal(result.failure, f.failure);
      assert.match(result.message ?? '', f.text);
    });
  }

  test('the exit code (HTTP status mod 256) classifies a message without a status', () => {
    const line = JSON.stringify({
      type: 'result',
      status: 'error',
      error: { type: 'unknown', message: '[API Error: boom]' },
      stats: { total_tokens: 0, input_tokens: 0, output_tokens: 0, cached: 0 },
    });
    const expectations: [number, string][] = [
      [247, 'overloaded'],
      [173, 'rate_limit'],
      [244, 'server_error'],
      [145, 'auth'],
      [1, 'unknown'],
    ];
    for (const [code, failure] of expectations) {
      const run = feed([line]);
      assert.equal(ofKind(run.events, 'error')[0]!.failure, 'unknown');
      const result = onlyResult(geminiAdapter.finish(run.state, { code, signal: null, stderr: '' }));
      assert.equal(result.failure, failure, `exit ${code}`);
    }
  });

  test('flaky: retries are only on stderr, the run is clean', () => {
    const run = runFixture('gemini-flaky');
    assert.deepEqual(shape(run.events), ['session', 'text_delta', 'usage', 'result']);
    assert.deepEqual(run.closing, []);
  });

  test('resume: same session id in both turns, turn 2 answers from history', () => {
    const all = fixtureLines('gemini-resume.jsonl');
    const second = all.findIndex((l, i) => i > 0 && l.includes('"type":"init"'));
    const turn1 = feed(all.slice(0, second));
    const turn2 = feed(all.slice(second));
    const id = '6dc5fe0c-591f-42c1-a063-386c971302ec';
    assert.deepEqual(ofKind(turn1.events, 'session').map((s) => s.providerSessionId), [id]);
    assert.deepEqual(ofKind(turn2.events, 'session').map((s) => s.providerSessionId), [id]);
    assert.equal(liveText(turn1.events), 'Hello from the fake model. This is a plain text answer.');
    assert.equal(
      liveText(turn2.events),
      'Hello again from the fake model. I can see 1 earlier prompt(s) in this conversation; the previous one was: "Remember the secret word pineapple. scenario:text"',
    );
  });

  for (const name of ['gemini-stale-resume', 'gemini-stale-nosessions']) {
    test(`${name}: exit 42 with the resume error on stderr → stale_session`, () => {
      const run = runFixture(name);
      assert.deepEqual(run.events, []);
      const result = onlyResult(run.closing);
      assert.equal(result.failure, 'stale_session');
      assert.match(result.message ?? '', /^exit code 42: Error resuming session: (Invalid session identifier|No previous sessions found)/);
    });
  }
});

describe('gemini robustness', () => {
  test('malformed, empty, non-JSON and unknown lines yield nothing', () => {
    const state = geminiAdapter.initialState(request());
    for (const line of ['', 'YOLO mode is enabled. All tool calls will be automatically approved.', '{"type":"message","role":"assistant","content":"x"', '[{"type":"init"}]', '{"type":"message","role":"user","content":"prompt echo"}', '{"type":"tool_result","tool_id":"never-started","status":"success"}', '{"type":"new_kind"}']) {
      assert.deepEqual(geminiAdapter.parseLine(state, line), { events: [] }, JSON.stringify(line));
    }
  });

  test('half a line yields nothing; the joined line is parsed', () => {
    const line = fixtureLines('gemini-text.jsonl')[2]!;
    const state = geminiAdapter.initialState(request());
    const cut = Math.floor(line.length / 2);
    assert.deepEqual(geminiAdapter.parseLine(state, line.slice(0, cut)).events, []);
    assert.deepEqual(geminiAdapter.parseLine(state, line.slice(cut)).events, []);
    assert.equal(liveText(geminiAdapter.parseLine(state, line).events), 'Hello from the ');
  });

  test('failed tool, error lines, and a kill during a tool call', () => {
    const lines = [
      '{"type":"init","session_id":"s1","model":"gemini-2.5-flash"}',
      '{"type":"tool_use","tool_name":"google_web_search","tool_id":"w1","parameters":{"query":"q"}}',
      '{"type":"tool_result","tool_id":"w1","status":"error","error":{"type":"TOOL_EXECUTION_ERROR","message":"network down"}}',
      '{"type":"error","severity":"warning","message":"Agent execution blocked: nope"}',
      '{"type":"tool_use","tool_name":"run_shell_command","tool_id":"c1","parameters":{"command":"sleep 100"}}',
    ];
    const run = feed(lines);
    assert.deepEqual(ofKind(run.events, 'step_end'), [
      { kind: 'step_end', stepId: 'w1', name: 'google_web_search', ok: false, output: 'network down' },
    ]);
    assert.deepEqual(ofKind(run.events, 'error'), [{ kind: 'error', failure: 'unknown', message: 'Agent execution blocked: nope' }]);
    assert.deepEqual(geminiAdapter.finish(run.state, { code: null, signal: 'SIGTERM', stderr: '' }), [
      { kind: 'step_end', stepId: 'c1', name: 'run_shell_command', ok: false },
      { kind: 'result', ok: false, failure: 'crash', message: 'killed by SIGTERM' },
    ]);
  });

  test('fatal auth exit without output', () => {
    const closing = geminiAdapter.finish(geminiAdapter.initialState(request()), {
      code: 41,
      signal: null,
      stderr: 'Error authenticating: FatalAuthenticationError: consent could not be obtained\n',
    });
    assert.equal(onlyResult(closing).failure, 'auth');
  });
});
