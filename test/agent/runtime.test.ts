// The agent runtime (src/agent/runtime.ts) without a server: a real bus and real provider processes,
// but tiny ones (`sh`): the `custom` provider runs a shell script whose behaviour the prompt picks,
// and `gemini` is a script that prints a recorded gemini stream. Stores are in memory. What is
// checked: queue order, stop with a non-empty queue, retry, fallback, steer, the records of a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../src/core/errors.ts';
import { EventBus, type BusEvent } from '../../src/events/bus.ts';
import { AgentRuntime, MAX_QUEUE, type RunEnd, type RuntimeDeps } from '../../src/agent/runtime.ts';
import { agentSettings, type AgentSettings } from '../../src/agent/settings.ts';
import { describeFailure } from '../../src/agent/failures.ts';
import { providerInfo, type ProviderId } from '../../src/agent/providers/registry.ts';
import type { ProviderSessionRepo, RunRepo } from '../../src/agent/runs.repo.ts';
import type { TraceRecorder } from '../../src/agent/traces.ts';
import type { RunCredentials } from '../../src/agent/run-credentials.ts';
import type { RunSink, StreamLine } from '../../src/protocol/stream-lines.ts';

const PROTOCOLS = new URL('../fixtures/protocols/', import.meta.url).pathname;

// $1 is the prompt; the other arguments are logged with it (one line per invocation).
const CUSTOM = `
p="$1"; shift
printf '%s|%s\\n' "$p" "$*" >> "$FAKE_DIR/custom.log"
case "$p" in
  hang*) echo "working on $p"; exec sleep 30 ;;
  mute*) exec sleep 30 ;;
  flaky*) n=$(cat "$FAKE_DIR/flaky" 2>/dev/null || echo 0); echo $((n + 1)) > "$FAKE_DIR/flaky"
          if [ "$n" -lt 1 ]; then echo "429 too many requests" >&2; exit 1; fi; echo "answer to $p" ;;
  limit*) echo "rate limit reached" >&2; exit 1 ;;
  auth*) echo "401 unauthorized" >&2; exit 1 ;;
  stale*) echo "No conversation found with session ID abc" >&2; exit 1 ;;
  quiet*) exit 0 ;;
  half*) echo "half an answer"; echo "429 too many requests" >&2; exit 1 ;;
  token*) echo "token=$SVC_RUN_TOKEN" ;;
  *) echo "answer to $p" ;;
esac
`;
const GEMINI = `#!/bin/sh
# one line per invocation: the prompt's newlines become spaces
{ printf '%s' "$*" | tr '\\n' ' '; echo; } >> "$FAKE_DIR/gemini.log"
cat '${PROTOCOLS}gemini-tool.jsonl'
`;
// Claude reads its prompt from stdin: `wait` prints the session line and waits (a steer can be written to it).
const CLAUDE = `#!/bin/sh
# one line per invocation: its arguments and the server it was pointed at
echo "$* base=$ANTHROPIC_BASE_URL" >> "$FAKE_DIR/claude.log"
read -r first
case "$first" in
  *wait*) head -n 1 '${PROTOCOLS}claude-thinking.jsonl'; exec sleep 30 ;;
  *flaky*) cat '${PROTOCOLS}claude-flaky.jsonl' ;;
  *) cat '${PROTOCOLS}claude-thinking.jsonl' ;;
esac
`;

function recordingSink() {
  const lines: StreamLine[] = [];
  let ended = 0;
  const sink: RunSink = { write: (line) => lines.push(line), end: () => ended++ };
  return { sink, lines, ended: () => ended, done: () => lines.find((l) => l.type === 'done') as Extract<StreamLine, { type: 'done' }> | undefined };
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(t: { after(fn: () => unknown): void }, agent: Partial<AgentSettings> = {}, deps: Partial<RuntimeDeps> = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-runtime-')));
  writeFileSync(join(dir, 'gemini'), GEMINI, { mode: 0o755 });
  writeFileSync(join(dir, 'claude'), CLAUDE, { mode: 0o755 });
  const bus = new EventBus();
  const events: BusEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const saved: { id: number; sessionId: string; role: string; content: string; meta?: Record<string, unknown> }[] = [];
  const moved: number[] = [];
  const sessions = new Map<string, string>();
  const forgotten: [string, string | undefined][] = [];
  const starts: Record<string, unknown>[] = [];
  const finishes: Record<string, unknown>[] = [];
  const traces: string[] = [];
  const outcomes: [ProviderId, unknown][] = [];
  const ends: RunEnd[] = [];
  const dropped: string[][] = [];
  let systemPrompts = 0;
  const settings: AgentSettings = {
    ...agentSettings.defaults,
    provider: 'custom',
    customCommand: ['sh', '-c', CUSTOM, 'fake', '{prompt}', '--model={model}', '--effort={effort}', '--cwd={cwd}', '--system={system}'],
    retries: 1,
    ...agent,
  };
  const runtime = new AgentRuntime({
    bus,
    transcript: {
      saveMessage: (m) => {
        const message = { id: saved.length + 1, ...m };
        saved.push(message);
        return { id: message.id };
      },
      moveToEnd: (id) => moved.push(id),
    },
    settings: () => settings,
    providerSessions: {
      get: (s: string, p: string) => sessions.get(`${s}/${p}`),
      set: (s: string, p: string, id: string) => sessions.set(`${s}/${p}`, id),
      forget: (s: string, p?: string) => {
        forgotten.push([s, p]);
        for (const key of [...sessions.keys()]) if (p === undefined ? key.startsWith(`${s}/`) : key === `${s}/${p}`) sessions.delete(key);
      },
    } as unknown as ProviderSessionRepo,
    runs: { start: (r: Record<string, unknown>) => starts.push(r), finish: (id: string, o: Record<string, unknown>) => finishes.push({ id, ...o }) } as unknown as RunRepo,
    recorder: { begin: (id: string) => traces.push(id), end: async () => 7 } as unknown as TraceRecorder,
    pidDir: dir,
    scratchRoot: dir,
    cwd: dir,
    executable: (provider) => join(dir, provider),
    systemPrompt: () => {
      systemPrompts++;
      return 'be brief';
    },
    baseEnv: () => ({ PATH: process.env.PATH, FAKE_DIR: dir }),
    onProviderOutcome: (provider, outcome) => outcomes.push([provider, outcome]),
    onRunEnd: (end) => ends.push(end),
    onDropped: (ids) => dropped.push([...ids]),
    retryBaseMs: 1,
    killGraceMs: 200,
    ...deps,
  });
  t.after(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const named = (name: string) => events.filter((e) => e.name === name).map((e) => e.payload as Record<string, any>);
  const log = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean) : []);
  return {
    dir, runtime, settings, events, named, saved, moved, sessions, forgotten, starts, finishes, traces, outcomes, ends, dropped,
    systemPrompts: () => systemPrompts,
    customLog: () => log('custom.log'),
    geminiLog: () => log('gemini.log'),
    claudeLog: () => log('claude.log'),
    /** Waits until `n` runs have ended. */
    runsDone: (n: number) => until(() => named('agent_done').length >= n, `${n} runs to end`),
  };
}

const s1 = 's1';

test('messages run one at a time in the order they were sent; each waits in the queue and moves behind the answers before it', async (t) => {
  const rt = setup(t);
  const sinks = [recordingSink(), recordingSink(), recordingSink()];
  const results = ['first', 'second', 'third'].map((prompt, i) => rt.runtime.submit({ prompt, sessionId: s1, sink: sinks[i]!.sink, requestId: `req-${i + 1}`, meta: { via: 'test' } }));
  assert.deepEqual(results, [{ requestId: 'req-1', queued: false }, { requestId: 'req-2', queued: true }, { requestId: 'req-3', queued: true }]);
  assert.deepEqual(rt.runtime.queued(), [
    { requestId: 'req-2', sessionId: s1, prompt: 'second', position: 1 },
    { requestId: 'req-3', sessionId: s1, prompt: 'third', position: 2 },
  ]);
  const status = rt.runtime.status();
  assert.equal(status.busy, true);
  assert.equal(status.pending, 2);
  assert.equal(status.active?.requestId, 'req-1');
  assert.equal(status.active?.sessionId, s1);
  assert.equal(status.active?.provider, 'custom');
  assert.deepEqual(rt.saved.map((m) => [m.role, m.content, m.meta]), [
    ['user', 'first', { via: 'test', requestId: 'req-1' }],
    ['user', 'second', { via: 'test', requestId: 'req-2' }],
    ['user', 'third', { via: 'test', requestId: 'req-3' }],
  ]);
  assert.deepEqual(rt.named('new_message').map((m) => [m.content, m.queued, m.requestId, m.role, m.sessionId]), [
    ['first', false, 'req-1', 'user', s1], ['second', true, 'req-2', 'user', s1], ['third', true, 'req-3', 'user', s1],
  ]);
  await rt.runsDone(3);
  assert.deepEqual(rt.customLog().map((l) => l.split('|')[0]), ['first', 'second', 'third']);
  assert.deepEqual(rt.moved, [1, 2, 3], 'each message moves to the end of the history when its turn comes');
  assert.deepEqual(rt.ends.map((e) => [e.requestId, e.status, e.sessionId]), [['req-1', 'ok', s1], ['req-2', 'ok', s1], ['req-3', 'ok', s1]]);
  assert.deepEqual(sinks.map((s) => [s.done()?.status, s.done()?.text, s.ended()]), [['ok', 'answer to first\n', 1], ['ok', 'answer to second\n', 1], ['ok', 'answer to third\n', 1]]);
  assert.deepEqual(sinks[0]!.lines.map((l) => l.type), ['text', 'done'], 'the answer streams, then done, last');
  assert.deepEqual(rt.runtime.status(), { busy: false, pending: 0, total: 0, sessions: {} });
  assert.deepEqual(rt.named('queue_update').at(-1), { pending: 0, total: 0, sessions: {}, active: false });
  assert.deepEqual(rt.named('queue_update').slice(0, 4).map((q) => [q.pending, q.active]), [[1, false], [0, true], [1, true], [2, true]]);
});

test('a run: its status events, its answer saved with the run facts, its records and trace', async (t) => {
  const issued: { runId: string; sessionId: string; ttl: number }[] = [];
  const revoked: string[] = [];
  const credentials = { issue: (id: { runId: string; sessionId: string }, ttl: number) => (issued.push({ ...id, ttl }), `tok-${id.runId}`), revoke: (id: string) => revoked.push(id) } as unknown as RunCredentials;
  const rt = setup(t, { model: 'm1', effort: 'high', retries: 2, maxRunSec: 100, fallback: ['gemini', 'custom'] }, { credentials });
  const sink = recordingSink();
  rt.runtime.submit({ prompt: 'token please', sessionId: s1, sink: sink.sink });
  await rt.runsDone(1);
  const [done] = rt.named('agent_done');
  const traceId = done!.traceId as string;
  assert.match(traceId, /^tr_/);
  assert.equal(done!.text, `token=tok-${traceId}\n`, 'the CLI gets the run credential');
  // every provider in the chain (the fallback without the duplicate), every retry, plus a minute
  assert.deepEqual(issued, [{ runId: traceId, sessionId: s1, ttl: 100 * 1000 * 2 * 3 + 60_000 }]);
  assert.ok(revoked.includes(traceId));
  assert.deepEqual(rt.customLog(), [`token please|--model=m1 --effort=high --cwd=${rt.dir} --system=be brief`]);
  assert.deepEqual(rt.named('agent_status').map((s) => [s.status, s.provider, s.model, s.traceId]), [['running', 'custom', 'm1', traceId], ['done', 'custom', undefined, traceId]]);
  assert.deepEqual(rt.named('agent_output').map((o) => [o.content, o.offset]), [[`token=tok-${traceId}\n`, 0]]);
  const answer = rt.saved.at(-1)!;
  assert.equal(answer.role, 'assistant');
  assert.equal(answer.content, done!.text);
  const meta = answer.meta as Record<string, unknown>;
  assert.ok(typeof meta.durationMs === 'number');
  assert.deepEqual({ ...meta, durationMs: 0 }, { traceId, requestId: done!.requestId, provider: 'custom', model: 'm1', status: 'ok', durationMs: 0, steps: [] });
  assert.equal(done!.messageId, answer.id);
  assert.equal(sink.done()?.messageId, answer.id);
  assert.deepEqual(rt.traces, [traceId]);
  assert.deepEqual(rt.starts.map((s) => ({ ...s, startedAt: 0 })), [{ id: traceId, chatSessionId: s1, requestId: done!.requestId, provider: 'custom', model: 'm1', startedAt: 0 }]);
  assert.deepEqual(rt.finishes, [{ id: traceId, status: 'ok', provider: 'custom', error: undefined, messageId: answer.id, usage: undefined, eventCount: 7 }]);
  assert.deepEqual(rt.outcomes, [['custom', { ok: true }]]);
  assert.equal(rt.systemPrompts(), 1);
});

test('stop with a non-empty queue: the run ends stopped, every queued message is dropped and said so, nothing runs after', async (t) => {
  const rt = setup(t);
  const sinks = { a: recordingSink(), b: recordingSink(), c: recordingSink(), d: recordingSink() };
  rt.runtime.submit({ prompt: 'hang A', sessionId: s1, sink: sinks.a.sink, requestId: 'A' });
  rt.runtime.submit({ prompt: 'B', sessionId: s1, sink: sinks.b.sink, requestId: 'B' });
  rt.runtime.submit({ prompt: 'C', sessionId: s1, sink: sinks.c.sink, requestId: 'C' });
  rt.runtime.submit({ prompt: 'D', sessionId: 's2', sink: sinks.d.sink, requestId: 'D' });
  await until(() => rt.named('agent_output').length > 0, 'the first run to print');
  assert.deepEqual(rt.runtime.stop(), { stopped: true, cleared: 3 });
  assert.deepEqual(rt.runtime.queued(), []);
  assert.deepEqual(rt.dropped, [['B', 'C', 'D']]);
  for (const sink of [sinks.b, sinks.c, sinks.d]) {
    assert.deepEqual(sink.lines, [{ type: 'done', status: 'stopped', text: '', reason: 'removed from the queue by stop' }]);
    assert.equal(sink.ended(), 1);
  }
  const notes = rt.saved.filter((m) => m.role === 'system');
  assert.deepEqual(notes.map((m) => [m.sessionId, m.content, m.meta]), [
    [s1, '2 queued messages were not sent to the agent: stopped by user.', { kind: 'queue_dropped', count: 2 }],
    ['s2', 'A queued message was not sent to the agent: stopped by user.', { kind: 'queue_dropped', count: 1 }],
  ]);
  assert.deepEqual(rt.named('queue_update').at(-1), { pending: 0, total: 0, sessions: {}, active: true });
  await rt.runsDone(1);
  const done = sinks.a.done()!;
  assert.equal(done.status, 'stopped');
  assert.equal(done.reason, 'stopped by user');
  assert.equal(done.text, 'working on hang A\n');
  // what it had said is kept, marked as interrupted
  const answer = rt.saved.at(-1)!;
  assert.deepEqual([answer.role, answer.content, (answer.meta as Record<string, unknown>).interrupted, (answer.meta as Record<string, unknown>).status], ['assistant', 'working on hang A\n', true, 'stopped']);
  assert.deepEqual(rt.ends.map((e) => [e.requestId, e.status]), [['A', 'stopped']]);
  await until(() => !rt.runtime.status().busy, 'the runtime to be idle');
  assert.deepEqual(rt.runtime.status(), { busy: false, pending: 0, total: 0, sessions: {} });
  assert.deepEqual(rt.customLog().map((l) => l.split('|')[0]), ['hang A'], 'no queued message ran');
  assert.deepEqual(rt.outcomes, [], 'a stop is not a provider failure');
  // the runtime takes messages again, and stopping an idle runtime does nothing
  assert.deepEqual(rt.runtime.stop(), { stopped: false, cleared: 0 });
  assert.equal(rt.saved.filter((m) => m.role === 'system').length, 2);
  assert.deepEqual(rt.runtime.submit({ prompt: 'E', sessionId: s1, requestId: 'E' }), { requestId: 'E', queued: false });
  await rt.runsDone(2);
  assert.deepEqual(rt.ends.map((e) => e.status), ['stopped', 'ok']);
});

test('a stop before the CLI said anything records why there is no answer', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'mute', sessionId: s1 });
  await until(() => rt.customLog().length === 1, 'the CLI to start');
  rt.runtime.stop('enough');
  await rt.runsDone(1);
  const record = rt.saved.at(-1)!;
  assert.deepEqual([record.role, record.content], ['system', 'Stopped before Custom command answered: enough.']);
  assert.deepEqual(rt.named('agent_done')[0]!.reason, 'enough');
  assert.equal(rt.named('agent_status').at(-1)!.status, 'done');
});

test('a run that ends well without text leaves a record saying there was no answer', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'quiet', sessionId: s1 });
  await rt.runsDone(1);
  assert.deepEqual(rt.saved.slice(1).map((m) => [m.role, m.content]), [['system', 'Stopped before Custom command answered: no answer.']]);
  assert.equal(rt.named('agent_done')[0]!.status, 'ok');
  assert.equal(rt.named('agent_done')[0]!.reason, undefined);
});

test('retry: a transient failure is tried again after a pause that doubles; then the answer', async (t) => {
  const rt = setup(t, { retries: 1 });
  rt.runtime.submit({ prompt: 'flaky', sessionId: s1 });
  await rt.runsDone(1);
  const [retry] = rt.named('agent_retry');
  const message = 'exit code 1: 429 too many requests';
  assert.deepEqual(retry, { traceId: rt.named('agent_done')[0]!.traceId, provider: 'custom', attempt: 1, delayMs: 1, reason: describeFailure(providerInfo('custom'), 'rate_limit', message).summary, failure: 'rate_limit' });
  assert.equal(rt.named('agent_done')[0]!.status, 'ok');
  assert.equal(rt.customLog().length, 2);
  assert.deepEqual(rt.outcomes, [['custom', { ok: true }]]);
  assert.equal(rt.systemPrompts(), 1, 'the system prompt is made once per run');
});

test('retries run out: each pause doubles, then the failure is the answer, with what to do', async (t) => {
  const rt = setup(t, { retries: 3 }, { retryBaseMs: 2 });
  const sink = recordingSink();
  rt.runtime.submit({ prompt: 'limit', sessionId: s1, sink: sink.sink });
  await rt.runsDone(1);
  assert.deepEqual(rt.named('agent_retry').map((r) => [r.attempt, r.delayMs, r.failure]), [[1, 2, 'rate_limit'], [2, 4, 'rate_limit'], [3, 8, 'rate_limit']]);
  assert.equal(rt.customLog().length, 4);
  const message = 'exit code 1: rate limit reached';
  const report = describeFailure(providerInfo('custom'), 'rate_limit', message);
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual([done.status, done.error, done.failure, done.reason, done.text], ['error', report.summary, 'rate_limit', report.summary, '']);
  assert.deepEqual(rt.named('agent_fallback'), []);
  const record = rt.saved.at(-1)!;
  assert.deepEqual([record.role, record.content, (record.meta as Record<string, unknown>).failure], ['system', report.summary, 'rate_limit']);
  assert.deepEqual(rt.finishes.map((f) => [f.status, f.error]), [['error', `rate_limit: ${message}`]]);
  assert.deepEqual(rt.outcomes, [['custom', { ok: false, failure: 'rate_limit', message }]]);
  assert.deepEqual(rt.named('agent_status').at(-1)!.status, 'error');
  assert.deepEqual(rt.ends.map((e) => e.status), ['error']);
  assert.deepEqual([sink.done()?.status, sink.done()?.failure, sink.done()?.reason], ['error', 'rate_limit', report.summary]);
});

test('a failure that is not transient is not retried; the fallback provider answers, without the first one\'s model', async (t) => {
  const rt = setup(t, { model: 'm1', fallback: ['gemini'], retries: 3 });
  const sink = recordingSink();
  rt.runtime.submit({ prompt: 'auth', sessionId: s1, sink: sink.sink });
  await rt.runsDone(1);
  assert.equal(rt.customLog().length, 1, 'no retry of an auth failure');
  assert.deepEqual(rt.named('agent_retry'), []);
  const message = 'exit code 1: 401 unauthorized';
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual(rt.named('agent_fallback'), [{ traceId: done.traceId, from: 'custom', to: 'gemini', reason: describeFailure(providerInfo('custom'), 'auth', message).summary }]);
  assert.deepEqual(rt.outcomes, [['custom', { ok: false, failure: 'auth', message }], ['gemini', { ok: true }]]);
  const geminiArgs = rt.geminiLog()[0]!;
  assert.ok(!geminiArgs.includes('--model'), geminiArgs);
  assert.ok(geminiArgs.startsWith('--prompt=<system_instructions> be brief </system_instructions>  auth '), geminiArgs);
  assert.deepEqual([done.status, done.provider], ['ok', 'gemini']);
  assert.equal(done.text, 'I will run a shell command.\n\nThe tool finished. Its output was: <untrusted_context> Output: hello-from-tool Process Group PGID: 16402 </untrusted_context>');
  assert.equal(rt.sessions.get(`${s1}/gemini`), '29a7c498-38b8-4004-8bd3-4e26469c0b48', 'the provider session is kept to resume');
  // the steps and the usage of the run
  const tools = rt.named('agent_tool');
  assert.deepEqual(tools.map((e) => [e.name, e.step, e.status, e.input, e.output]), [
    ['run_shell_command', 'command', 'running', { command: 'echo hello-from-tool', description: 'Print a greeting' }, undefined],
    ['run_shell_command', 'command', 'ok', {}, 'hello-from-tool'],
  ]);
  assert.deepEqual(done.toolLog.map((s: Record<string, unknown>) => [s.name, s.step, s.status]), [['run_shell_command', 'command', 'ok']]);
  assert.deepEqual(done.usage, { inputTokens: 200, outputTokens: 40, cachedTokens: 0 });
  const offsets = rt.named('agent_output').map((o) => o.offset as number);
  const contents = rt.named('agent_output').map((o) => o.content as string);
  assert.deepEqual(offsets, contents.map((_, i) => contents.slice(0, i).join('').length), 'each chunk says where it starts');
  const answer = rt.saved.at(-1)!;
  const meta = answer.meta as Record<string, unknown>;
  assert.deepEqual([answer.role, meta.provider, meta.model, meta.usage], ['assistant', 'gemini', undefined, { inputTokens: 200, outputTokens: 40, cachedTokens: 0 }]);
  assert.deepEqual(meta.steps, [{ stepId: tools[0]!.stepId, name: 'run_shell_command', step: 'command', status: 'ok', summary: 'echo hello-from-tool' }]);
  assert.deepEqual(sink.lines.map((l) => l.type), [...contents.slice(0, 2).map(() => 'text'), 'tool', 'tool', ...contents.slice(2).map(() => 'text'), 'done']);
  assert.deepEqual(rt.finishes.map((f) => [f.provider, f.status, f.usage]), [['gemini', 'ok', { inputTokens: 200, outputTokens: 40, cachedTokens: 0 }]]);
  // the next run of this chat session resumes gemini's session
  rt.runtime.submit({ prompt: 'again', sessionId: s1, provider: 'gemini' });
  await rt.runsDone(2);
  assert.match(rt.geminiLog()[1]!, /--resume=29a7c498-38b8-4004-8bd3-4e26469c0b48/);
  assert.match(rt.geminiLog()[1]!, /^--prompt=again /, 'a resumed session does not repeat the system prompt');
});

test('a stale provider session is forgotten and the run tried once more with a fresh one, without a pause', async (t) => {
  const rt = setup(t, { retries: 3 });
  rt.runtime.submit({ prompt: 'stale', sessionId: s1 });
  await rt.runsDone(1);
  assert.equal(rt.customLog().length, 2);
  assert.deepEqual(rt.forgotten, [[s1, 'custom']]);
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual(rt.named('agent_retry'), [{ traceId: done.traceId, provider: 'custom', attempt: 1, delayMs: 0, reason: 'Custom command no longer knows the saved session; starting a fresh one', failure: 'stale_session' }]);
  assert.deepEqual([done.status, done.failure], ['error', 'stale_session']);
});

test('steer: a CLI without live input is interrupted and resumed with the steer prompt', async (t) => {
  const rt = setup(t);
  assert.throws(() => rt.runtime.steer('x'), (err: unknown) => err instanceof AppError && err.status === 409 && err.code === 'NOT_RUNNING' && err.message === 'Nothing is running to steer; send the text as a message instead.');
  const first = recordingSink();
  const steered = recordingSink();
  rt.runtime.submit({ prompt: 'hang first', sessionId: s1, sink: first.sink, requestId: 'R1' });
  rt.runtime.submit({ prompt: 'later', sessionId: s1, requestId: 'R2' });
  await until(() => rt.named('agent_output').length > 0, 'the first run to print');
  const traceId = rt.named('agent_output')[0]!.traceId;
  assert.equal(rt.runtime.steer('go left', steered.sink), 'resumed');
  assert.throws(() => rt.runtime.steer('again'), (err: unknown) => err instanceof AppError && err.code === 'NOT_RUNNING', 'a run being steered cannot be steered again');
  assert.deepEqual(rt.named('steer_started'), [{ prompt: 'go left', traceId }]);
  assert.deepEqual(rt.saved.at(-1), { id: rt.saved.length, sessionId: s1, role: 'user', content: 'go left', meta: { steer: true, traceId } });
  assert.deepEqual(rt.runtime.queued().map((q) => q.prompt), ['go left', 'later'], 'the steer runs next, before what was queued');
  assert.match(rt.runtime.queued()[0]!.requestId, /^req_/, 'the steer has a request id of its own');
  await rt.runsDone(3);
  assert.deepEqual([first.done()?.status, first.done()?.reason], ['stopped', 'steered']);
  assert.deepEqual([steered.done()?.status, steered.done()?.text], ['ok', 'answer to go left\n']);
  assert.deepEqual(rt.customLog().map((l) => l.split('|')[0]), ['hang first', 'go left', 'later']);
  assert.deepEqual(rt.moved, [1, 2], 'the steer prompt was saved by steer and is not moved');
});

test('the queue by hand: drop one message, run another now (interrupting the run)', async (t) => {
  const rt = setup(t);
  const b = recordingSink();
  rt.runtime.submit({ prompt: 'hang A', sessionId: s1, requestId: 'A' });
  rt.runtime.submit({ prompt: 'B', sessionId: s1, requestId: 'B', sink: b.sink });
  rt.runtime.submit({ prompt: 'C', sessionId: s1, requestId: 'C' });
  rt.runtime.submit({ prompt: 'D', sessionId: 's2', requestId: 'D' });
  assert.equal(rt.runtime.dropQueued('nope'), false);
  assert.equal(rt.runtime.runQueuedNow('nope'), false);
  assert.equal(rt.runtime.dropQueued('B'), true);
  assert.deepEqual(rt.dropped, [['B']]);
  assert.deepEqual(b.lines, [{ type: 'done', status: 'stopped', text: '', reason: 'removed from the queue' }]);
  assert.equal(b.ended(), 1);
  assert.deepEqual(rt.saved.at(-1), { id: rt.saved.length, sessionId: s1, role: 'system', content: 'A queued message was not sent to the agent: removed from the queue.', meta: { kind: 'queue_dropped', count: 1 } });
  assert.deepEqual(rt.named('queue_update').at(-1), { pending: 2, total: 2, sessions: { s1: 1, s2: 1 }, active: true });
  assert.equal(rt.runtime.runQueuedNow('D'), true);
  assert.deepEqual(rt.runtime.queued().map((q) => [q.requestId, q.position]), [['D', 1], ['C', 2]]);
  await rt.runsDone(3);
  assert.deepEqual(rt.ends.map((e) => [e.requestId, e.status]), [['A', 'stopped'], ['D', 'ok'], ['C', 'ok']]);
  assert.equal(rt.named('agent_done')[0]!.reason, 'interrupted by a queued message run now');
  // with nothing running, a queued message run now just runs
  rt.runtime.submit({ prompt: 'hang E', sessionId: s1, requestId: 'E' });
  rt.runtime.submit({ prompt: 'F', sessionId: s1, requestId: 'F' });
  rt.runtime.stop();
  assert.equal(rt.runtime.runQueuedNow('F'), false, 'stop emptied the queue');
});

test("the chat's queue count is the shown session's own: another session's waiting turn (a wakeup) is not queued in it", async (t) => {
  let shown = s1;
  const rt = setup(t, {}, { activeSession: () => shown });
  const last = () => rt.named('queue_update').at(-1)!;
  // another chat session's run, and its wakeup waiting behind it
  rt.runtime.submit({ prompt: 'hang in the other chat', sessionId: 'other', requestId: 'A' });
  rt.runtime.submit({ prompt: 'wakeup of the other chat', sessionId: 'other', requestId: 'W', meta: { wakeup: 1 } });
  assert.deepEqual(last(), { pending: 0, total: 1, sessions: { other: 1 }, active: true });
  // one message of the shown chat waits: one queued there, whatever else waits
  rt.runtime.submit({ prompt: 'mine', sessionId: s1, requestId: 'M' });
  assert.deepEqual(last(), { pending: 1, total: 2, sessions: { other: 1, [s1]: 1 }, active: true });
  assert.deepEqual(rt.runtime.status().pending, 1);
  assert.deepEqual([rt.runtime.status().total, rt.runtime.status().sessions], [2, { other: 1, [s1]: 1 }]);
  // the other chat shown: its count
  shown = 'other';
  const before = rt.named('queue_update').length;
  rt.runtime.announceQueue();
  assert.equal(rt.named('queue_update').length, before + 1);
  assert.deepEqual(last(), { pending: 1, total: 2, sessions: { other: 1, [s1]: 1 }, active: true });
  rt.runtime.stop();
  await rt.runsDone(1);
  // nothing waits: nothing to tell again
  const after = rt.named('queue_update').length;
  rt.runtime.announceQueue();
  assert.equal(rt.named('queue_update').length, after);
});

test('clearing a chat session stops its work and saves nothing for it; other sessions are left alone', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'hang A', sessionId: s1, requestId: 'A' });
  rt.runtime.submit({ prompt: 'B', sessionId: s1, requestId: 'B' });
  rt.runtime.stopSessionWork('elsewhere', 'cleared');
  assert.equal(rt.runtime.status().pending, 1, 'work of another session is not stopped');
  await until(() => rt.named('agent_output').length > 0, 'the run to print');
  const before = rt.saved.length;
  rt.runtime.stopSessionWork(s1, 'the chat session was cleared');
  await rt.runsDone(1);
  await until(() => !rt.runtime.status().busy, 'idle');
  assert.equal(rt.saved.length, before, 'no answer, no note about the dropped message');
  assert.equal(rt.ends.length, 0, 'nobody acts on a run whose session is gone');
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual([done.status, done.reason], ['stopped', 'the chat session was cleared']);
  assert.ok(!('messageId' in done), 'no message id: nothing was saved');
  assert.deepEqual(rt.dropped, [['B']]);
  // a queued message of the session is enough to stop
  rt.runtime.submit({ prompt: 'hang C', sessionId: 's2', requestId: 'C' });
  rt.runtime.submit({ prompt: 'D', sessionId: s1, requestId: 'D' });
  rt.runtime.stopSessionWork(s1, 'deleted');
  assert.deepEqual(rt.runtime.status().pending, 0);
  await rt.runsDone(2);
  assert.equal(rt.named('agent_done')[1]!.reason, 'deleted');
  assert.deepEqual(rt.ends.map((e) => [e.requestId, e.status]), [['C', 'stopped']]);
});

test('admission: at most 100 waiting messages; nothing after close', async (t) => {
  const rt = setup(t);
  assert.equal(MAX_QUEUE, 100);
  rt.runtime.submit({ prompt: 'hang', sessionId: s1 });
  for (let i = 0; i < 100; i++) rt.runtime.submit({ prompt: `q${i}`, sessionId: s1 });
  assert.equal(rt.runtime.status().pending, 100);
  assert.throws(() => rt.runtime.submit({ prompt: 'one too many', sessionId: s1 }), (err: unknown) => err instanceof AppError && err.status === 429 && err.code === 'QUEUE_FULL' && err.message === '100 messages are already waiting; stop or wait for the agent.');
  assert.equal(rt.saved.filter((m) => m.content === 'one too many').length, 0, 'a refused message is not saved');
  rt.runtime.dropQueued(rt.runtime.queued()[0]!.requestId);
  assert.doesNotThrow(() => rt.runtime.admit());
  await until(() => rt.customLog().length === 1, 'the CLI to start');
  await rt.runtime.close();
  assert.throws(() => rt.runtime.admit(), (err: unknown) => err instanceof AppError && err.status === 503 && err.code === 'SHUTTING_DOWN' && err.message === 'The server is shutting down.');
  assert.equal(rt.named('agent_done')[0]!.reason, 'the server is shutting down');
  assert.deepEqual(rt.customLog().map((l) => l.split('|')[0]), ['hang'], 'closing runs nothing that was queued');
});

test('a run that fails inside svc (not the CLI) still ends: done with the error, and the queue goes on', async (t) => {
  let calls = 0;
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  t.after(() => {
    console.error = original;
  });
  const revoked: string[] = [];
  const credentials = { issue: (id: { runId: string }) => `tok-${id.runId}`, revoke: (id: string) => revoked.push(id) } as unknown as RunCredentials;
  const rt = setup(t, {}, {
    credentials,
    systemPrompt: () => {
      if (++calls === 1) throw new Error('boom');
      return '';
    },
  });
  const sink = recordingSink();
  rt.runtime.submit({ prompt: 'first', sessionId: s1, sink: sink.sink, requestId: 'A' });
  rt.runtime.submit({ prompt: 'second', sessionId: s1, requestId: 'B' });
  await rt.runsDone(2);
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual([done.status, done.error, done.reason, done.requestId, done.text], ['error', 'internal error: boom', 'internal error: boom', 'A', '']);
  assert.deepEqual([sink.done()?.status, sink.done()?.reason, sink.ended()], ['error', 'internal error: boom', 1]);
  assert.deepEqual(rt.named('agent_status').filter((s) => s.traceId === done.traceId).map((s) => s.status), ['running', 'error']);
  assert.deepEqual(rt.ends.map((e) => [e.requestId, e.status]), [['A', 'error'], ['B', 'ok']]);
  assert.ok(rt.ends[0]!.durationMs >= 0 && rt.ends[0]!.durationMs < 10_000, `durationMs ${rt.ends[0]!.durationMs}`);
  assert.ok(revoked.includes(done.traceId), 'the run credential is revoked although the run never reached its end');
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as unknown[])[0], 'svc: agent run failed unexpectedly:');
  assert.equal(((errors[0] as unknown[])[1] as Error).message, 'boom');
});

test('a steer waiting to resume that is stopped or dropped is not noted as an unsent queued message (it is in the history as the user said it)', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'hang one', sessionId: s1 });
  await until(() => rt.named('agent_output').length === 1, 'the first run to print');
  assert.equal(rt.runtime.steer('go left'), 'resumed');
  assert.deepEqual(rt.runtime.stop('halt'), { stopped: true, cleared: 1 });
  await rt.runsDone(1);
  rt.runtime.submit({ prompt: 'hang two', sessionId: s1 });
  await until(() => rt.named('agent_output').length === 2, 'the second run to print');
  assert.equal(rt.runtime.steer('go right'), 'resumed');
  assert.equal(rt.runtime.dropQueued(rt.runtime.queued()[0]!.requestId), true);
  await rt.runsDone(2);
  assert.equal(rt.dropped.length, 2, 'both steers were dropped');
  assert.deepEqual(rt.saved.filter((m) => m.meta?.kind === 'queue_dropped'), []);
  assert.deepEqual(rt.customLog().map((l) => l.split('|')[0]), ['hang one', 'hang two'], 'neither steer ran');
});

test('a fresh conversation: the provider sessions of a chat session are forgotten, and clients told', (t) => {
  const rt = setup(t);
  rt.sessions.set(`${s1}/gemini`, 'x');
  rt.runtime.forgetProviderSessions('other');
  assert.deepEqual(rt.named('session_reset'), []);
  rt.runtime.resetProviderSession(s1);
  assert.deepEqual(rt.forgotten, [['other', undefined], [s1, undefined]]);
  assert.equal(rt.sessions.size, 0);
  assert.deepEqual(rt.named('session_reset'), [{ sessionId: s1 }]);
});

test('thinking is streamed as numbered thinking steps, and kept out of the saved steps', async (t) => {
  const rt = setup(t);
  const sink = recordingSink();
  rt.runtime.submit({ prompt: 'think', sessionId: s1, provider: 'claude', sink: sink.sink });
  await rt.runsDone(1);
  const done = rt.named('agent_done')[0]!;
  assert.equal(done.status, 'ok');
  const thinking = rt.named('agent_tool').filter((e) => e.step === 'thinking');
  assert.ok(thinking.length >= 1);
  assert.deepEqual(thinking.map((e) => [e.stepId, e.name, e.status]), thinking.map((_, i) => [`${done.traceId}-thinking-${i + 1}`, 'thinking', 'ok']));
  assert.deepEqual(sink.lines.filter((l) => l.type === 'thinking').map((l) => (l as { content: string }).content), thinking.map((e) => e.output));
  assert.deepEqual((rt.saved.at(-1)!.meta as Record<string, unknown>).steps, []);
  assert.equal(thinking[0]!.output, 'The user wants a short answer. I will think briefly, then reply with a greeting.');
  assert.deepEqual(done.usage, { inputTokens: 100, outputTokens: 20, cachedTokens: 0, costUsd: 0.001 });
});

test('steer: a CLI that takes input mid-run gets the prompt live, and the steer stream follows the same run', async (t) => {
  const rt = setup(t);
  const first = recordingSink();
  const steered = recordingSink();
  rt.runtime.submit({ prompt: 'wait', sessionId: s1, provider: 'claude', sink: first.sink });
  await until(() => rt.sessions.has(`${s1}/claude`), 'the CLI to start its session');
  assert.equal(rt.runtime.steer('also this', steered.sink), 'live');
  assert.deepEqual(rt.runtime.queued(), []);
  assert.equal(rt.runtime.status().busy, true);
  rt.runtime.stop();
  await rt.runsDone(1);
  assert.equal(first.done()?.status, 'stopped');
  assert.deepEqual(steered.done(), first.done(), 'both streams end with the same run');
  assert.equal(steered.ended(), 1);
});

test('a CLI that retries on its own is reported as such; the run goes on', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'flaky', sessionId: s1, provider: 'claude' });
  await rt.runsDone(1);
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual(rt.named('agent_retry'), [{ traceId: done.traceId, provider: 'claude', attempt: 1, delayMs: 571, reason: 'Claude Code is retrying on its own: server_error (HTTP 500)' }]);
  assert.equal(done.status, 'ok');
});

test('a stop during the pause before a retry ends the run at once, and the first reason given is kept', async (t) => {
  const rt = setup(t, { retries: 2 }, { retryBaseMs: 60_000 });
  rt.runtime.submit({ prompt: 'limit', sessionId: s1 });
  await until(() => rt.named('agent_retry').length === 1, 'the first retry to be announced');
  const started = Date.now();
  rt.runtime.stop('first reason');
  rt.runtime.stop('second reason');
  await rt.runsDone(1);
  assert.ok(Date.now() - started < 10_000, 'the pause is cut short');
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual([done.status, done.reason], ['stopped', 'first reason']);
  assert.equal(rt.customLog().length, 1, 'no retry after the stop');
  assert.deepEqual(rt.named('agent_fallback'), []);
});

test('the status of a run in progress shows its output so far', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'hang S', sessionId: s1, requestId: 'S' });
  await until(() => rt.named('agent_output').length > 0, 'the run to print');
  const { active } = rt.runtime.status();
  assert.deepEqual({ ...active!, startedAt: 0 }, { traceId: rt.named('agent_output')[0]!.traceId, provider: 'custom', sessionId: s1, requestId: 'S', startedAt: 0, output: 'working on hang S\n', steps: [] });
  assert.ok(active!.startedAt <= Date.now());
});

test('a request id of its own, a failure kept over a half answer, raw lines published, a missing CLI with its install command', async (t) => {
  const rt = setup(t, { retries: 0 });
  // a request id of its own; nothing dropped when stopping an idle runtime
  const { requestId } = rt.runtime.submit({ prompt: 'half', sessionId: s1 });
  assert.match(requestId, /^req_/);
  await rt.runsDone(1);
  assert.deepEqual(rt.runtime.stop(), { stopped: false, cleared: 0 });
  assert.deepEqual(rt.dropped, []);
  // a failed run keeps the failure as its record, not the half answer
  const record = rt.saved.at(-1)!;
  assert.equal(record.role, 'system');
  assert.match(record.content, /usage limit/);
  const done = rt.named('agent_done')[0]!;
  assert.ok(done.durationMs >= 0 && done.durationMs < 60_000, String(done.durationMs));
  // the raw lines of the CLI are published for the trace
  assert.ok(rt.named('provider_line').some((l) => l.traceId === done.traceId && l.stream === 'stdout' && l.line === 'half an answer'));
  // a CLI that is not installed: the answer says how to install it
  rt.runtime.submit({ prompt: 'x', sessionId: s1, provider: 'codex' });
  await rt.runsDone(2);
  const missing = rt.named('agent_done')[1]!;
  assert.equal(missing.failure, 'cli_missing');
  assert.match(String(missing.fix), /^npm install -g /);
  assert.equal((rt.saved.at(-1)!.meta as Record<string, unknown>).fix, missing.fix);
});

test('run a queued message now when it is first in line; stop a session with work in a mixed queue', async (t) => {
  const rt = setup(t);
  rt.runtime.submit({ prompt: 'hang A', sessionId: 's2', requestId: 'A' });
  rt.runtime.submit({ prompt: 'B', sessionId: 's2', requestId: 'B' });
  rt.runtime.submit({ prompt: 'C', sessionId: s1, requestId: 'C' });
  assert.equal(rt.runtime.runQueuedNow('B'), true, 'the first waiting message');
  await rt.runsDone(1);
  assert.equal(rt.named('agent_done')[0]!.reason, 'interrupted by a queued message run now');
  rt.runtime.submit({ prompt: 'hang D', sessionId: 's2', requestId: 'D' });
  rt.runtime.submit({ prompt: 'E', sessionId: 's2', requestId: 'E' });
  rt.runtime.submit({ prompt: 'F', sessionId: s1, requestId: 'F' });
  await until(() => rt.runtime.status().active?.requestId === 'D', 'D to run');
  rt.runtime.stopSessionWork(s1, 'cleared');
  assert.deepEqual(rt.runtime.queued(), [], 'one queued message of the session is enough to stop');
  await until(() => !rt.runtime.status().busy, 'idle');
  const discarded = rt.named('agent_done').find((d) => d.requestId === 'D')!;
  assert.equal(discarded.reason, 'cleared');
});

test('a run of many steps: the saved record keeps the bounded log (100 steps and how many more); a step that ends without output has none', async (t) => {
  let script = '';
  const rt = setup(t, { provider: 'gemini' }, { executable: () => script });
  const stream = [{ type: 'init', session_id: 'g-many', model: 'gemini-2.5-flash' }];
  for (let i = 1; i <= 105; i++) {
    stream.push({ type: 'tool_use', tool_name: 'read_file', tool_id: `t${i}`, parameters: { file_path: `f${i}.txt` } } as never);
    stream.push({ type: 'tool_result', tool_id: `t${i}`, status: 'success', ...(i === 1 ? {} : { output: `out ${i}` }) } as never);
  }
  stream.push({ type: 'message', role: 'assistant', content: 'read them all', delta: true } as never);
  stream.push({ type: 'result', status: 'success', stats: {} } as never);
  writeFileSync(join(rt.dir, 'many.jsonl'), stream.map((l) => JSON.stringify(l)).join('\n') + '\n');
  script = join(rt.dir, 'gemini-many');
  writeFileSync(script, `#!/bin/sh\ncat '${join(rt.dir, 'many.jsonl')}'\n`, { mode: 0o755 });
  rt.runtime.submit({ prompt: 'read', sessionId: s1 });
  await rt.runsDone(1);
  const ends = rt.named('agent_tool').filter((e) => e.status === 'ok');
  assert.equal(ends.length, 105, 'every step is streamed live');
  assert.ok(!('output' in ends[0]!), 'no output key for a step that ended without output');
  assert.equal(ends[1]!.output, 'out 2');
  const steps = (rt.saved.at(-1)!.meta as { steps: Record<string, unknown>[] }).steps;
  assert.equal(steps.length, 101);
  assert.deepEqual(steps[0], { stepId: 't1', name: 'read_file', step: 'tool', status: 'ok', summary: 'f1.txt' });
  assert.deepEqual(steps[99], { stepId: 't100', name: 'read_file', step: 'tool', status: 'ok', summary: 'f100.txt' });
  assert.deepEqual(steps[100], { stepId: 'dropped', name: '5 more steps not logged', step: 'tool', status: 'ok', summary: '' });
  assert.deepEqual(rt.named('agent_done')[0]!.toolLog.length, 101);
});

test('the effort setting goes to the chosen provider only, not to a fallback (effort names differ between CLIs)', async (t) => {
  const rt = setup(t, { effort: 'high', fallback: ['custom'], provider: 'gemini' }, { executable: (provider) => (provider === 'gemini' ? '/nonexistent/gemini' : 'unused') });
  rt.runtime.submit({ prompt: 'plain', sessionId: s1 });
  await rt.runsDone(1);
  assert.deepEqual(rt.named('agent_fallback').map((f) => [f.from, f.to]), [['gemini', 'custom']]);
  assert.equal(rt.named('agent_done')[0]!.provider, 'custom');
  assert.match(rt.customLog()[0]!, /^plain\|/);
  assert.ok(!rt.customLog()[0]!.includes('--effort'), rt.customLog()[0]);
  rt.settings.provider = 'custom';
  rt.runtime.submit({ prompt: 'again', sessionId: s1 });
  await rt.runsDone(2);
  assert.match(rt.customLog()[1]!, /^again\|.*--effort=high/, 'the chosen provider gets it');
});

test('a stop that lands once the provider has answered keeps the answer as it is, not stopped', async (t) => {
  const rt: ReturnType<typeof setup> = setup(t, {}, {
    // called synchronously once the attempt ended well: the latest a stop can land before the run is recorded
    onProviderOutcome: (_provider, outcome) => {
      if (outcome.ok) rt.runtime.stop('too late');
    },
  });
  rt.runtime.submit({ prompt: 'plain', sessionId: s1 });
  await rt.runsDone(1);
  const done = rt.named('agent_done')[0]!;
  assert.deepEqual([done.status, done.text, done.reason], ['ok', 'answer to plain\n', undefined]);
  assert.equal((rt.saved.at(-1)!.meta as Record<string, unknown>).interrupted, undefined);
});

test('a model endpoint\'s model goes on to a fallback provider that can use the endpoint; one that cannot runs its default', async (t) => {
  const gateway = { id: 'gw', name: 'Gateway', baseUrl: 'http://127.0.0.1:4000', api: 'anthropic' as const, toolsWork: true };
  // custom cannot use an endpoint: refused before it starts; claude speaks its API and takes the model; gemini gets its default
  const rt = setup(t, { model: 'gw/qwen3', fallback: ['claude'] }, { endpoint: (id) => (id === 'gw' ? gateway : undefined) });
  rt.runtime.submit({ prompt: 'hello', sessionId: s1, sink: recordingSink().sink });
  await rt.runsDone(1);
  assert.deepEqual(rt.customLog(), [], 'custom never started');
  const [claudeRun] = rt.claudeLog();
  assert.match(claudeRun ?? '', /--model=qwen3 .*base=http:\/\/127\.0\.0\.1:4000$/);
  assert.equal(rt.named('agent_done')[0]!.provider, 'claude');
  // claude missing: the fallback gemini cannot use the endpoint, and runs its default model
  let dir = '';
  const other = setup(t, { model: 'gw/qwen3', provider: 'claude', fallback: ['gemini'], retries: 0 }, { endpoint: (id) => (id === 'gw' ? gateway : undefined), executable: (p) => (p === 'claude' ? '/nonexistent/claude' : join(dir, p)) });
  dir = other.dir;
  other.runtime.submit({ prompt: 'hello', sessionId: s1, sink: recordingSink().sink });
  await other.runsDone(1);
  assert.equal(other.named('agent_done')[0]!.provider, 'gemini');
  assert.equal(other.geminiLog().length, 1);
  assert.ok(!other.geminiLog()[0]!.includes('--model'), other.geminiLog()[0]);
});
