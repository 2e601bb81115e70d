// The Pi adapter against its documented JSON event stream (test/fixtures/protocols/pi-*.jsonl,
// written from Pi's docs/json.md: the real `pi` is not installed here).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { piAdapter } from '../../../src/agent/providers/pi/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';
import { adapterHarness, liveText, ofKind } from '../../support/adapters.ts';

const request = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
  prompt: 'hello', cwd: '/work', executable: 'pi', autoApprove: true, scratchDir: '/tmp/x', ...over,
});
const { runFixture } = adapterHarness(piAdapter, request);

describe('pi buildInvocation', () => {
  test('print mode with JSON events; the prompt last', () => {
    const inv = piAdapter.buildInvocation(request());
    assert.deepEqual(inv.args, ['--print', '--mode', 'json', 'hello']);
    assert.equal(inv.stdin, 'close');
  });
  test('profile/model, thinking, system prompt, resume; a leading "-" is kept from being a flag', () => {
    const inv = piAdapter.buildInvocation(request({ model: 'local/qwen3', effort: 'high', systemPrompt: 'be brief', resumeSessionId: 'abc', prompt: '-v please' }));
    assert.deepEqual(inv.args, ['--print', '--mode', 'json', '--provider', 'local', '--model', 'qwen3', '--thinking', 'high', '--append-system-prompt', 'be brief', '--session', 'abc', ' -v please']);
    assert.deepEqual(piAdapter.buildInvocation(request({ model: 'gpt-5' })).args.slice(3, 5), ['--model', 'gpt-5']);
  });
});

describe('pi parseLine', () => {
  test('text: session id, live text deltas, usage, ok', () => {
    const run = runFixture('pi-text');
    assert.equal(ofKind(run.events, 'session')[0]!.providerSessionId, '5f0c9a2e-7b1d-4c3e-9a8f-2d6b1e4c7a90');
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
    assert.ok(ofKind(run.events, 'text_delta').length >= 4, 'streamed in pieces');
    assert.deepEqual(ofKind(run.events, 'usage')[0], { kind: 'usage', inputTokens: 20, outputTokens: 10, cachedTokens: 0, costUsd: 0.0003 });
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    assert.deepEqual(run.closing, []);
  });
  test('thinking is one block before the text', () => {
    const run = runFixture('pi-thinking');
    assert.deepEqual(ofKind(run.events, 'thinking'), [{ kind: 'thinking', text: 'The user wants a short answer. I will reply briefly.' }]);
    assert.equal(liveText(run.events), 'Hello after thinking. The answer is 42.');
  });
  test('tool: a command step with its output, text blocks joined', () => {
    const run = runFixture('pi-tool');
    assert.deepEqual(ofKind(run.events, 'step_start'), [{ kind: 'step_start', stepId: 'call_1', name: 'bash', step: 'command', input: { command: 'echo hello-from-tool' } }]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [{ kind: 'step_end', stepId: 'call_1', name: 'bash', ok: true, output: 'hello-from-tool\n' }]);
    assert.equal(liveText(run.events), 'I will run a shell command.\n\nThe tool finished. Its output was: hello-from-tool');
  });
  test('API errors are classified from the message', () => {
    const error = runFixture('pi-error');
    assert.deepEqual(ofKind(error.events, 'result').map((r) => [r.ok, r.failure]), [[false, 'server_error']]);
    const limited = runFixture('pi-ratelimit');
    assert.equal(ofKind(limited.events, 'result')[0]!.failure, 'rate_limit');
  });
  test('an unknown session: stale_session from stderr', () => {
    const run = runFixture('pi-stale-resume');
    assert.deepEqual(ofKind(run.closing, 'result').map((r) => r.failure), ['stale_session']);
  });
  test('malformed lines are ignored', () => {
    assert.deepEqual(piAdapter.parseLine(piAdapter.initialState(request()), 'not json {').events, []);
  });
});
