// The `custom` provider: a user-configured print-mode command whose stdout is the answer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { customAdapter } from '../../../src/agent/providers/custom/adapter.ts';
import type { InvocationRequest, NormalizedEvent } from '../../../src/agent/providers/types.ts';

function request(overrides: Partial<InvocationRequest> = {}): InvocationRequest {
  return {
    prompt: 'Summarise the repo',
    cwd: '/home/user/project',
    executable: 'mycli',
    autoApprove: false,
    scratchDir: '/tmp/svc-run-2',
    commandTemplate: ['mycli', '--print', '{prompt}'],
    ...overrides,
  };
}

function runStdout(stdout: string, exit: { code: number | null; signal?: string | null; stderr?: string }) {
  const state = customAdapter.initialState(request());
  // The runner splits stdout on "\n" and hands over each line without it (a trailing "\n" ends the last line).
  const lines = stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const events: NormalizedEvent[] = [];
  for (const line of lines) events.push(...customAdapter.parseLine(state, line).events);
  const closing = customAdapter.finish(state, {
    code: exit.code,
    signal: exit.signal ?? null,
    stderr: exit.stderr ?? '',
  });
  return { events, closing };
}

function joined(events: NormalizedEvent[]): string {
  return events.map((e) => (e.kind === 'text_delta' ? e.text : '')).join('');
}

describe('custom buildInvocation', () => {
  test('{prompt} in the template: the prompt is one argument, stdin closed', () => {
    const inv = customAdapter.buildInvocation(request());
    assert.equal(inv.command, 'mycli');
    assert.deepEqual(inv.args, ['--print', 'Summarise the repo']);
    assert.equal(inv.stdin, 'close');
    assert.equal(inv.stdinText, undefined);
    assert.deepEqual(inv.env, {});
  });

  test('no {prompt}: the prompt goes to stdin, then stdin is closed', () => {
    const inv = customAdapter.buildInvocation(request({ commandTemplate: ['mycli', '--quiet'] }));
    assert.deepEqual(inv.args, ['--quiet']);
    assert.equal(inv.stdin, 'write-close');
    assert.equal(inv.stdinText, 'Summarise the repo');
  });

  test('values are substituted per argument, never split or re-substituted', () => {
    const prompt = 'a b; rm -rf / $(whoami) "q" {model} {cwd}';
    const inv = customAdapter.buildInvocation(
      request({
        prompt,
        model: 'big-model',
        commandTemplate: ['mycli', '--model', '{model}', '--dir={cwd}', 'Task: {prompt}'],
      }),
    );
    assert.deepEqual(inv.args, ['--model', 'big-model', '--dir=/home/user/project', `Task: ${prompt}`]);
  });

  test('absent values drop the argument that uses them; present ones are kept', () => {
    const template = ['mycli', '-m', '{model}', '--resume={session}', '{session}', '--effort', '{effort}', '{prompt}'];
    const fresh = customAdapter.buildInvocation(request({ commandTemplate: template }));
    assert.deepEqual(fresh.args, ['-m', '--effort', 'Summarise the repo']);
    const full = customAdapter.buildInvocation(
      request({ commandTemplate: template, model: 'm1', resumeSessionId: 's1', effort: 'high' }),
    );
    assert.deepEqual(full.args, ['-m', 'm1', '--resume=s1', 's1', '--effort', 'high', 'Summarise the repo']);
    const emptyModel = customAdapter.buildInvocation(request({ commandTemplate: template, model: '' }));
    assert.deepEqual(emptyModel.args, fresh.args, 'an empty model counts as absent');
  });

  test('an empty prompt is still passed (only optional values are dropped)', () => {
    const inv = customAdapter.buildInvocation(request({ prompt: '' }));
    assert.deepEqual(inv.args, ['--print', '']);
  });

  test('{system} placeholder and unknown placeholders', () => {
    const inv = customAdapter.buildInvocation(
      request({ systemPrompt: 'Be brief.', commandTemplate: ['mycli', '--system', '{system}', '{other}', '{prompt}'] }),
    );
    assert.deepEqual(inv.args, ['--system', 'Be brief.', '{other}', 'Summarise the repo']);
  });

  test('extra args are appended verbatim', () => {
    const inv = customAdapter.buildInvocation(request({ extraArgs: ['--color', '{prompt}'] }));
    assert.deepEqual(inv.args, ['--print', 'Summarise the repo', '--color', '{prompt}']);
  });

  test('an empty template is rejected, naming the setting', () => {
    for (const commandTemplate of [undefined, [], [''], ['  ', '{prompt}']]) {
      assert.throws(() => customAdapter.buildInvocation(request({ commandTemplate })), /agent\.customCommand/);
    }
  });

  test('a command that is only an absent placeholder is rejected', () => {
    assert.throws(
      () => customAdapter.buildInvocation(request({ commandTemplate: ['{model}', '{prompt}'] })),
      /agent\.customCommand/,
    );
  });

  test('adapter identity: no live steer, no start', () => {
    assert.equal(customAdapter.id, 'custom');
    assert.equal(customAdapter.steerMode, 'interrupt-resume');
    assert.equal(customAdapter.start, undefined);
  });
});

describe('custom output', () => {
  test('every line is text, empty lines and spacing included; joined text equals stdout', () => {
    const stdout = 'First line\n\n  indented  \n{"type":"json is text too"}\n\tlast\n';
    const { events, closing } = runStdout(stdout, { code: 0 });
    assert.equal(joined(events), stdout);
    assert.deepEqual(events[1], { kind: 'text_delta', text: '\n' });
    assert.ok(events.every((e) => e.kind === 'text_delta'));
    assert.deepEqual(closing, [{ kind: 'result', ok: true }]);
  });

  test('no session event is ever emitted (resume unsupported)', () => {
    const { events, closing } = runStdout('session_id: abc\n{"session_id":"abc"}\n', { code: 0 });
    assert.ok([...events, ...closing].every((e) => e.kind !== 'session'));
  });

  test('non-zero exit: failure from stderr text when it tells one', () => {
    const { closing } = runStdout('partial\n', { code: 1, stderr: 'Error: 429 Too Many Requests\n' });
    assert.equal(closing.length, 1);
    const result = closing[0];
    assert.ok(result?.kind === 'result');
    assert.equal(result.ok, false);
    assert.equal(result.failure, 'rate_limit');
    assert.equal(result.message, 'exit code 1: Error: 429 Too Many Requests');
  });

  test('non-zero exit with unhelpful stderr is a crash', () => {
    const { closing } = runStdout('', { code: 2, stderr: 'boom\nsomething odd happened\n' });
    assert.deepEqual(closing, [
      { kind: 'result', ok: false, failure: 'crash', message: 'exit code 2: something odd happened' },
    ]);
  });

  test('killed by a signal without output', () => {
    const { closing } = runStdout('', { code: null, signal: 'SIGKILL' });
    assert.deepEqual(closing, [{ kind: 'result', ok: false, failure: 'crash', message: 'killed by SIGKILL: no output' }]);
  });
});
