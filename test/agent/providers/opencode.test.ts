// The OpenCode adapter, line by line against real `opencode run --format json` output
// (opencode-ai 1.18.33, test/fixtures/protocols/opencode-*).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { opencodeAdapter, SYSTEM_PROMPT_FILE } from '../../../src/agent/providers/opencode/adapter.ts';
import type { InvocationRequest, NormalizedEvent } from '../../../src/agent/providers/types.ts';

const FIXTURES = new URL('../../fixtures/protocols/', import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

function stdoutLines(name: string): string[] {
  return fixture(`${name}.jsonl`).split('\n').filter((l) => l !== '');
}

/** The recording run appends `exit=<code>` as the last line of the .stderr file. */
function recordedExit(name: string): { code: number; stderr: string } {
  const text = fixture(`${name}.stderr`);
  const match = /exit=(\d+)\s*$/.exec(text);
  assert.ok(match, `${name}.stderr has no exit= line`);
  return { code: Number(match[1]), stderr: text.slice(0, match.index) };
}

function request(overrides: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Acceptance test prompt. scenario:text',
    cwd: '/home/user/run/work',
    executable: '/usr/local/bin/opencode',
    autoApprove: true,
    scratchDir: '/tmp/svc-run-1',
    ...overrides,
  };
}

/** Feeds lines through a fresh state, then `finish` with the given exit; returns all events. */
function runLines(lines: string[], exit: { code: number | null; stderr: string }, req = request()) {
  const state = opencodeAdapter.initialState(req);
  const events: NormalizedEvent[] = [];
  for (const line of lines) {
    const out = opencodeAdapter.parseLine(state, line);
    assert.equal(out.writes, undefined, 'opencode never writes to stdin after start');
    events.push(...out.events);
  }
  const closing = opencodeAdapter.finish(state, { code: exit.code, signal: null, stderr: exit.stderr });
  return { events, closing, all: [...events, ...closing] };
}

function runRecording(name: string, req = request()) {
  return runLines(stdoutLines(name), recordedExit(name), req);
}

function finalText(events: NormalizedEvent[]): string {
  return events.map((e) => (e.kind === 'text_delta' ? e.text : '')).join('');
}

function ofKind<K extends NormalizedEvent['kind']>(events: NormalizedEvent[], kind: K) {
  return events.filter((e): e is Extract<NormalizedEvent, { kind: K }> => e.kind === kind);
}

function summedUsage(events: NormalizedEvent[]) {
  const sum = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0, costUsd: 0 };
  for (const u of ofKind(events, 'usage')) {
    sum.inputTokens += u.inputTokens ?? 0;
    sum.outputTokens += u.outputTokens ?? 0;
    sum.reasoningTokens += u.reasoningTokens ?? 0;
    sum.cachedTokens += u.cachedTokens ?? 0;
    sum.costUsd += u.costUsd ?? 0;
  }
  return sum;
}

const TEXT_ANSWER = 'Hello from the fake model. This is a plain text answer.';
const TOOL_ANSWER = 'I will run a shell command.\n\nThe tool finished. Its output was: hello-from-tool';

describe('opencode buildInvocation', () => {
  test('fresh run: json format, thinking shown, prompt verbatim on stdin (never an argument)', () => {
    const prompt = 'Say "hi" to\nthe user';
    const inv = opencodeAdapter.buildInvocation(request({ prompt, autoApprove: false }));
    assert.equal(inv.command, '/usr/local/bin/opencode');
    assert.deepEqual(inv.args, ['run', '--format', 'json', '--thinking']);
    assert.equal(inv.stdin, 'write-close');
    assert.equal(inv.stdinText, prompt);
    // not auto-approving: edits, commands and fetches ask, which `run` rejects (opencode's defaults ask for nothing)
    assert.deepEqual(JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT ?? ''), { permission: { edit: 'ask', bash: 'ask', webfetch: 'ask' } });
    assert.equal(inv.files, undefined);
    assert.equal(opencodeAdapter.buildInvocation(request({ prompt })).env.OPENCODE_CONFIG_CONTENT, undefined, 'auto-approving: --auto, no permission config');
  });

  test('autoApprove, model, effort, resume and extra args', () => {
    const inv = opencodeAdapter.buildInvocation(
      request({
        autoApprove: true,
        model: 'anthropic/claude-sonnet-4-5',
        effort: 'high',
        resumeSessionId: 'ses_e00ec4f47ffeqTg3nq7hwJ8y6n',
        extraArgs: ['--agent', 'build'],
      }),
    );
    assert.deepEqual(inv.args, [
      'run',
      '--format',
      'json',
      '--thinking',
      '--auto',
      '-m',
      'anthropic/claude-sonnet-4-5',
      '--variant',
      'high',
      '--session',
      'ses_e00ec4f47ffeqTg3nq7hwJ8y6n',
      '--agent',
      'build',
    ]);
    assert.equal(inv.stdinText, 'Acceptance test prompt. scenario:text');
  });

  test('system prompt: a scratch-dir file named by OPENCODE_CONFIG_CONTENT instructions', () => {
    const inv = opencodeAdapter.buildInvocation(request({ systemPrompt: 'You are terse.' }));
    const path = join('/tmp/svc-run-1', SYSTEM_PROMPT_FILE);
    assert.deepEqual(inv.files, [{ path, content: 'You are terse.', mode: 0o600 }]);
    assert.deepEqual(JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT ?? ''), { instructions: [path] });
    assert.ok(!inv.args.some((a) => a.includes('You are terse.')));
    // Nothing outside the scratch dir: the user's config and project stay untouched.
    assert.ok(inv.files?.every((f) => f.path.startsWith('/tmp/svc-run-1/')));
  });

  test('adapter identity', () => {
    assert.equal(opencodeAdapter.id, 'opencode');
    assert.equal(opencodeAdapter.steerMode, 'interrupt-resume');
    // only an ACP run (a person answers permission requests: acp-modes.test.ts) has a conversation to start
    assert.deepEqual(opencodeAdapter.start!(opencodeAdapter.initialState(request()), request()), { events: [] });
  });
});

describe('opencode recordings', () => {
  test('text: session, the whole text part, usage, result', () => {
    const { events, closing } = runRecording('opencode-text');
    assert.deepEqual(events, [
      { kind: 'session', providerSessionId: 'ses_e00ecb4daffe1IBZvaUyQPvqGz' },
      { kind: 'text_delta', text: TEXT_ANSWER },
      { kind: 'usage', inputTokens: 100, outputTokens: 20, reasoningTokens: 0, cachedTokens: 0, costUsd: 0 },
      { kind: 'result', ok: true },
    ]);
    assert.deepEqual(closing, [], 'the result came from the output; finish adds nothing');
  });

  test('thinking: the reasoning part is thinking, the text stays text', () => {
    const { all } = runRecording('opencode-thinking');
    assert.deepEqual(ofKind(all, 'thinking'), [
      {
        kind: 'thinking',
        text: 'The user wants a short answer. I will think briefly, then reply with a greeting.',
      },
    ]);
    assert.equal(finalText(all), 'Hello after thinking. The answer is 42.');
    assert.ok(
      all.findIndex((e) => e.kind === 'thinking') < all.findIndex((e) => e.kind === 'text_delta'),
      'thinking precedes the answer',
    );
    assert.deepEqual(ofKind(all, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('thinking without --thinking: no reasoning line, so no thinking event', () => {
    const { all } = runRecording('opencode-thinking-nothinkingflag');
    assert.deepEqual(ofKind(all, 'thinking'), []);
    assert.equal(finalText(all), 'Hello after thinking. The answer is 42.');
  });

  const toolVariants: [string, string, string][] = [
    ['opencode-tool', 'call_e8b686c173563d42', 'ses_e00ec9b0fffeQsrY4sMduoIPJd'],
    ['opencode-tool-anthropic', 'toolu_e6acd8de420b5cf3', 'ses_e00ec1a11ffeunXGhgBRa3xm51'],
    ['opencode-tool-google', '7ApJqgu9NtzdZwMZ', 'ses_e00ec0b89ffeAD269uhIWUaM5R'],
    ['opencode-tool-openai-responses', 'call_92d9226c5a1f9196', 'ses_e00ec2815ffeCTu6A6kIMNNOKF'],
  ];
  for (const [name, callId, sessionId] of toolVariants) {
    test(`${name}: one tool_use line gives step_start + step_end; pre-tool text stays text`, () => {
      const { all } = runRecording(name);
      assert.deepEqual(ofKind(all, 'session'), [{ kind: 'session', providerSessionId: sessionId }]);
      const steps = all.filter((e) => e.kind === 'step_start' || e.kind === 'step_end');
      assert.deepEqual(steps, [
        { kind: 'step_start', stepId: callId, name: 'bash', step: 'command', input: { command: 'echo hello-from-tool' } },
        { kind: 'step_end', stepId: callId, name: 'bash', ok: true, output: 'hello-from-tool\n', exitCode: 0 },
      ]);
      assert.equal(finalText(all), TOOL_ANSWER);
      assert.deepEqual(ofKind(all, 'thinking'), [], 'text before a tool is not reclassified as thinking');
      assert.deepEqual(summedUsage(all), {
        inputTokens: 200,
        outputTokens: 40,
        reasoningTokens: 0,
        cachedTokens: 0,
        costUsd: 0,
      });
      assert.deepEqual(ofKind(all, 'result'), [{ kind: 'result', ok: true }], 'tool-calls step is not the end');
      assert.equal(all[all.length - 1]?.kind, 'result');
    });
  }

  test('write: the write tool is a file step with its input and output', () => {
    const { all } = runRecording('opencode-write');
    const steps = all.filter((e) => e.kind === 'step_start' || e.kind === 'step_end');
    assert.deepEqual(steps, [
      {
        kind: 'step_start',
        stepId: 'call_429e2985cbf57376',
        name: 'write',
        step: 'file',
        input: { filePath: '/home/user/run/work/hello-from-tool.txt', content: 'hello-from-tool\n' },
      },
      { kind: 'step_end', stepId: 'call_429e2985cbf57376', name: 'write', ok: true, output: 'Wrote file successfully.' },
    ]);
    assert.equal(finalText(all), 'I will write a file.\n\nThe tool finished. Its output was: Wrote file successfully.');
  });

  const errorScenarios: [string, string, number, string][] = [
    ['opencode-error', 'server_error', 500, 'Fake internal server error'],
    ['opencode-ratelimit', 'rate_limit', 429, 'Fake rate limit reached. Please try again later.'],
    ['opencode-overloaded', 'overloaded', 503, 'Fake server overloaded'],
  ];
  for (const [name, failure, status, message] of errorScenarios) {
    test(`${name}: the error line is classified from statusCode ${status}; the run fails`, () => {
      const { events, closing } = runRecording(name);
      assert.equal(events.length, 2);
      assert.equal(events[0]?.kind, 'session');
      assert.deepEqual(events[1], { kind: 'error', failure, message, httpStatus: status });
      assert.deepEqual(closing, [{ kind: 'result', ok: false, failure, message }]);
    });
  }

  test('flaky: the failed title call is silent; the run is a clean text run', () => {
    const { all } = runRecording('opencode-flaky');
    assert.deepEqual(ofKind(all, 'error'), []);
    assert.equal(finalText(all), TEXT_ANSWER);
    assert.deepEqual(ofKind(all, 'result'), [{ kind: 'result', ok: true }]);
  });

  test('resume: turn 2 (with --session) reports the same session and sees turn 1', () => {
    const lines = stdoutLines('opencode-resume');
    assert.equal(lines.length, 6, 'two invocations of three lines each');
    const turn1 = runLines(lines.slice(0, 3), { code: 0, stderr: '' });
    const sessionEvent = ofKind(turn1.all, 'session')[0];
    assert.ok(sessionEvent);
    const inv = opencodeAdapter.buildInvocation(request({ resumeSessionId: sessionEvent.providerSessionId }));
    assert.deepEqual(inv.args.slice(-2), ['--session', 'ses_e00ec4f47ffeqTg3nq7hwJ8y6n']);
    const turn2 = runLines(lines.slice(3), { code: 0, stderr: '' }, request({ resumeSessionId: sessionEvent.providerSessionId }));
    assert.deepEqual(ofKind(turn2.all, 'session'), [sessionEvent]);
    assert.equal(
      finalText(turn2.all),
      'Hello again from the fake model. I can see 1 earlier prompt(s) in this conversation; the previous one was: ""Remember the secret word pineapple. scenario:text""',
    );
    assert.deepEqual(ofKind(turn2.all, 'result'), [{ kind: 'result', ok: true }]);
  });
});

describe('opencode edge cases', () => {
  const text = stdoutLines('opencode-text');

  test('malformed, partial, noise and non-object lines give no events and never throw', () => {
    const state = opencodeAdapter.initialState(request());
    const noise = [
      '',
      '   ',
      'not json',
      '{"type":"text"',
      text[1]!.slice(0, 80),
      '[1,2,3]',
      '42',
      'null',
      '"text"',
      '{"type":"text"}',
      '{"type":"text","part":"nope"}',
      '{"type":"tool_use","part":{"tool":"bash"}}',
      '{"type":"tool_use","part":{"tool":"bash","callID":"c1","state":null}}',
      '{"type":"step_finish","part":null}',
      '{"type":"something_new","part":{"text":"x"}}',
      '{"type":"done","reason":"idle","rejected":[]}',
      '\u001b[31mcolour\u001b[0m',
    ];
    for (const line of noise) {
      assert.deepEqual(opencodeAdapter.parseLine(state, line).events, [], JSON.stringify(line));
    }
    // The state is unharmed: the real lines still parse completely afterwards.
    const events = text.flatMap((l) => opencodeAdapter.parseLine(state, l).events);
    assert.equal(finalText(events), TEXT_ANSWER);
    assert.equal(ofKind(events, 'session').length, 1);
  });

  test('a part printed twice is emitted once', () => {
    const { all } = runLines([text[0]!, text[1]!, text[1]!, text[2]!], { code: 0, stderr: '' });
    assert.equal(finalText(all), TEXT_ANSWER);
  });

  function toolLine(tool: string, state: Record<string, unknown>, callID = 'call_1'): string {
    return JSON.stringify({ type: 'tool_use', sessionID: 'ses_x', part: { type: 'tool', tool, callID, state, id: `prt_${callID}` } });
  }

  test('tool failures: status error and non-zero exit are not ok', () => {
    const { events } = runLines(
      [
        toolLine('read', { status: 'error', input: { filePath: '/nope' }, error: 'File not found: /nope' }, 'c1'),
        toolLine('bash', { status: 'completed', input: { command: 'false' }, output: '', metadata: { exit: 1 } }, 'c2'),
      ],
      { code: 0, stderr: '' },
    );
    const ends = ofKind(events, 'step_end');
    assert.deepEqual(ends, [
      { kind: 'step_end', stepId: 'c1', name: 'read', ok: false, output: 'File not found: /nope' },
      { kind: 'step_end', stepId: 'c2', name: 'bash', ok: false, output: '', exitCode: 1 },
    ]);
    assert.equal(ofKind(events, 'step_start')[0]?.step, 'tool');
  });

  test('step kinds: task is a subagent, webfetch/websearch are searches, edit is a file', () => {
    const kinds = ['task', 'webfetch', 'websearch', 'edit', 'glob'].map((tool, i) => {
      const { events } = runLines([toolLine(tool, { status: 'completed', input: {}, output: 'x' }, `c${i}`)], {
        code: 0,
        stderr: '',
      });
      return ofKind(events, 'step_start')[0]?.step;
    });
    assert.deepEqual(kinds, ['subagent', 'search', 'search', 'file', 'tool']);
  });

  test('a running tool line opens the step; the completed line only closes it', () => {
    const { events } = runLines(
      [
        toolLine('task', { status: 'running', input: { description: 'd' } }),
        toolLine('task', { status: 'completed', input: { description: 'd' }, output: '<task_result>DONE</task_result>' }),
      ],
      { code: 0, stderr: '' },
    );
    assert.deepEqual(
      events.map((e) => e.kind),
      ['session', 'step_start', 'step_end'],
    );
  });

  test('killed while a tool runs: the open step is ended not ok, then the exit decides', () => {
    const { closing } = runLines([toolLine('task', { status: 'running', input: { description: 'd' } }, 'c9')], {
      code: null,
      stderr: '',
    });
    assert.deepEqual(closing[0], { kind: 'step_end', stepId: 'c9', name: 'task', ok: false });
    assert.equal(closing[1]?.kind, 'result');
    assert.equal(closing[1]?.kind === 'result' && closing[1].ok, false);
  });

  test('usage with cache reads and cost', () => {
    const line = JSON.stringify({
      type: 'step_finish',
      sessionID: 'ses_x',
      part: { reason: 'tool-calls', cost: 0.0125, tokens: { input: 10, output: 20, reasoning: 5, cache: { read: 7, write: 2 } } },
    });
    const usage = ofKind(runLines([line], { code: 0, stderr: '' }).events, 'usage');
    assert.deepEqual(usage, [
      { kind: 'usage', inputTokens: 10, outputTokens: 20, reasoningTokens: 5, cachedTokens: 7, costUsd: 0.0125 },
    ]);
  });

  test('an error before the stop step makes the run fail (no ok result)', () => {
    const errorLine = stdoutLines('opencode-error')[0]!;
    const { all } = runLines([text[0]!, errorLine, text[1]!, text[2]!], { code: 1, stderr: '' });
    assert.deepEqual(ofKind(all, 'result'), [
      { kind: 'result', ok: false, failure: 'server_error', message: 'Fake internal server error' },
    ]);
  });

  test('error lines without a status: auth by name, unknown otherwise', () => {
    // Captured from opencode 1.18.33 with `-m nope/nomodel`.
    const unknownModel =
      '{"type":"error","timestamp":1795283351108,"sessionID":"ses_e00c60f95ffePQtF9JqKu1CjoO","error":{"name":"UnknownError","data":{"message":"Unexpected server error. Check server logs for details.","ref":"err_20d45406"}}}';
    const auth = JSON.stringify({
      type: 'error',
      sessionID: 'ses_y',
      error: { name: 'ProviderAuthError', data: { providerID: 'anthropic', message: 'Invalid credentials' } },
    });
    const a = runLines([unknownModel], { code: 1, stderr: '' });
    assert.deepEqual(ofKind(a.all, 'result'), [
      { kind: 'result', ok: false, failure: 'unknown', message: 'Unexpected server error. Check server logs for details.' },
    ]);
    const b = runLines([auth], { code: 1, stderr: '' });
    assert.deepEqual(ofKind(b.all, 'error'), [{ kind: 'error', failure: 'auth', message: 'Invalid credentials' }]);
  });

  test('stale resume: "Session not found" on stderr (coloured) with no stdout', () => {
    // Captured from opencode 1.18.33: `run --session ses_doesnotexist123`, exit 1, empty stdout.
    const stderr = '\u001b[91m\u001b[1mError: \u001b[0mSession not found\n';
    const resumed = runLines([], { code: 1, stderr }, request({ resumeSessionId: 'ses_doesnotexist123' }));
    assert.deepEqual(resumed.closing, [
      { kind: 'result', ok: false, failure: 'stale_session', message: 'exit code 1: Error: Session not found' },
    ]);
  });

  test('no structured output: exit 0 is ok, a bare non-zero exit is a crash', () => {
    assert.deepEqual(runLines([], { code: 0, stderr: '' }).closing, [{ kind: 'result', ok: true }]);
    assert.deepEqual(runLines([], { code: 139, stderr: 'Segmentation fault\n' }).closing, [
      { kind: 'result', ok: false, failure: 'crash', message: 'exit code 139: Segmentation fault' },
    ]);
  });
});
