// The Pi adapter against what the real `pi --print --mode json` (0.74.2) printed against the fake model
// (test/fixtures/protocols/pi-*.jsonl, recorded by scripts/record-pi.ts; see docs/protocols/pi.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { piAdapter } from '../../../src/agent/providers/pi/adapter.ts';
import type { InvocationRequest } from '../../../src/agent/providers/types.ts';
import { adapterHarness, fixtureLines, liveText, ofKind } from '../../support/adapters.ts';
import { piInfo, piPackageFor } from '../../../src/agent/providers/pi/info.ts';

const request = (over: Partial<InvocationRequest> = {}): InvocationRequest => ({
  prompt: 'hello', cwd: '/work', executable: 'pi', autoApprove: true, scratchDir: '/tmp/x', ...over,
});
const { feed, runFixture } = adapterHarness(piAdapter, request);

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
  test('not auto-approving, or read-only: its reading tools only (pi never asks before a tool)', () => {
    for (const over of [{ autoApprove: false }, { readOnly: true }]) {
      assert.deepEqual(piAdapter.buildInvocation(request(over)).args, ['--print', '--mode', 'json', '--tools', 'read,grep,find,ls', 'hello']);
    }
  });
});

const lines = (name: string) => fixtureLines(`${name}.jsonl`).filter(Boolean);

describe('pi parseLine', () => {
  test('text: session id, live text deltas, usage, one ok result', () => {
    const run = runFixture('pi-text');
    assert.deepEqual(ofKind(run.events, 'session'), [{ kind: 'session', providerSessionId: '01a20cbe-8dc4-7151-8dbd-5b8239ee4543' }]);
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
    assert.equal(ofKind(run.events, 'text_delta').length, 4, 'streamed in pieces');
    assert.deepEqual(ofKind(run.events, 'usage'), [{ kind: 'usage', inputTokens: 100, outputTokens: 20, cachedTokens: 0, costUsd: 0 }]);
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    assert.deepEqual(run.closing, []);
  });
  test('thinking: one block, before the text (pi sends thinking_end only after the text)', () => {
    const run = runFixture('pi-thinking');
    const thinking = 'The user wants a short answer. I will think briefly, then reply with a greeting.';
    assert.deepEqual(ofKind(run.events, 'thinking'), [{ kind: 'thinking', text: thinking }]);
    assert.ok(run.events.findIndex((e) => e.kind === 'thinking') < run.events.findIndex((e) => e.kind === 'text_delta'));
    assert.equal(liveText(run.events), 'Hello after thinking. The answer is 42.');
  });
  test('tool: a command step with its output, text blocks joined', () => {
    const run = runFixture('pi-tool');
    const stepId = 'call_98c50aa341869ae9';
    assert.deepEqual(ofKind(run.events, 'step_start'), [{ kind: 'step_start', stepId, name: 'bash', step: 'command', input: { command: 'echo hello-from-tool' } }]);
    assert.deepEqual(ofKind(run.events, 'step_end'), [{ kind: 'step_end', stepId, name: 'bash', ok: true, output: 'hello-from-tool\n' }]);
    assert.equal(liveText(run.events), 'I will run a shell command.\n\nThe tool finished. Its output was: hello-from-tool');
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
  });
  test('API error: pi retries once on its own and exits 0; one failed result, classified from "<status> <message>"', () => {
    const error = runFixture('pi-error');
    assert.deepEqual(ofKind(error.events, 'provider_retry'), [{ kind: 'provider_retry', attempt: 1, reason: '500 Fake internal server error', delayMs: 100 }]);
    assert.deepEqual(ofKind(error.events, 'result'), [{ kind: 'result', ok: false, failure: 'server_error', message: '500 Fake internal server error' }]);
    assert.deepEqual(error.closing, []);
    assert.equal(ofKind(error.events, 'error')[0]!.httpStatus, 500);
    const limited = runFixture('pi-ratelimit');
    assert.deepEqual(ofKind(limited.events, 'result').map((r) => [r.ok, r.failure]), [[false, 'rate_limit']]);
  });
  test("a failed call that pi's retry recovers ends ok, with the retry reported", () => {
    const run = runFixture('pi-flaky');
    assert.equal(ofKind(run.events, 'provider_retry').length, 1);
    assert.deepEqual(ofKind(run.events, 'result'), [{ kind: 'result', ok: true }]);
    assert.equal(liveText(run.events), 'Hello from the fake model. This is a plain text answer.');
  });
  test('a failed call without a retry (retry disabled): the failure at exit 0', () => {
    const untilFirstEnd = lines('pi-error').slice(0, lines('pi-error').findIndex((l) => l.startsWith('{"type":"agent_end"')) + 1);
    const run = feed(untilFirstEnd);
    assert.deepEqual(ofKind(run.events, 'result'), []);
    assert.deepEqual(ofKind(piAdapter.finish(run.state, { code: 0, signal: null, stderr: '' }), 'result').map((r) => r.failure), ['server_error']);
  });
  test('resume: the second run keeps the session id and the model saw the first prompt', () => {
    const all = lines('pi-resume');
    const second = all.findIndex((l, i) => i > 0 && l.startsWith('{"type":"session"'));
    const [one, two] = [feed(all.slice(0, second)), feed(all.slice(second))];
    const ids = [one, two].map((r) => ofKind(r.events, 'session')[0]!.providerSessionId);
    assert.equal(ids[0], '01a20cbe-d3ea-7693-bd55-cbcade906edb');
    assert.equal(ids[1], ids[0]);
    assert.match(liveText(two.events), /^Hello again from the fake model\. I can see 1 earlier prompt\(s\).*pineapple/);
  });
  test('an unknown session: stale_session from stderr', () => {
    const run = runFixture('pi-stale-resume');
    assert.deepEqual(run.events, []);
    assert.deepEqual(ofKind(run.closing, 'result').map((r) => r.failure), ['stale_session']);
  });
  test('a session of another working directory: pi asks whether to fork and exits 0 with nothing; stale_session', () => {
    const run = runFixture('pi-resume-othercwd');
    assert.deepEqual(run.events, []);
    assert.deepEqual(run.closing, [{ kind: 'result', ok: false, failure: 'stale_session', message: 'Session found in different project: /tmp/svc-record-pi-MbrLAk/work' }]);
  });
  test("pi's own start-up failures: no key for its default model (auth), a provider models.json lacks (invalid_request)", () => {
    const nokey = runFixture('pi-nokey');
    assert.equal(ofKind(nokey.events, 'session').length, 1);
    assert.deepEqual(nokey.closing, [{ kind: 'result', ok: false, failure: 'auth', message: 'exit code 1: No API key found for the selected model.' }]);
    const provider = runFixture('pi-unknown-provider');
    assert.deepEqual(ofKind(provider.closing, 'result').map((r) => [r.ok, r.failure]), [[false, 'invalid_request']]);
  });
  test('the trace keeps a streaming event without the message it repeats twice; other lines as printed', () => {
    const all = lines('pi-text');
    const delta = all.find((l) => l.includes('"type":"text_delta"'))!;
    assert.ok(delta.includes('"partial"') && delta.includes('"message"'));
    assert.deepEqual(JSON.parse(piAdapter.traceLine!(delta)), { type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'Hello from the ' } });
    const traced = all.map((l) => piAdapter.traceLine!(l)).join('\n').length;
    assert.ok(traced < all.join('\n').length / 2, `the text run's trace shrinks by more than half (${traced} characters)`);
    for (const line of all.filter((l) => !l.includes('"type":"message_update"'))) assert.equal(piAdapter.traceLine!(line), line);
    assert.equal(piAdapter.traceLine!('not json {'), 'not json {');
  });
  test('malformed lines are ignored', () => {
    assert.deepEqual(piAdapter.parseLine(piAdapter.initialState(request()), 'not json {').events, []);
  });
});

test('the Pi to install is one that runs on this Node: 0.74.2 before Node 22.19, the newest from then on', () => {
  assert.equal(piPackageFor('20.20.2'), '@earendil-works/pi-coding-agent@0.74.2');
  assert.equal(piPackageFor('22.18.0'), '@earendil-works/pi-coding-agent@0.74.2');
  assert.equal(piPackageFor('22.19.0'), '@earendil-works/pi-coding-agent');
  assert.equal(piPackageFor('24.1.0'), '@earendil-works/pi-coding-agent');
  // the command svc prints here follows the Node it runs on
  assert.equal(piInfo.install.command, `npm install -g ${piPackageFor(process.versions.node)}`);
});
