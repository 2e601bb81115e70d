import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentServer, isAlive, type AgentTestServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { getJson, sendJson } from '../../support/server.ts';

const agentEvents = (sse: SseConnection, traceId: string) => sse.messages.map((m) => m.data).filter((d) => d.traceId === traceId);

async function until(check: () => boolean, timeoutMs = 10_000) {
  await untilAsync(async () => check(), timeoutMs);
}

async function untilAsync(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('agent runs through the real server (fake CLIs replaying recordings)', () => {
  let server: AgentTestServer;
  before(async () => {
    server = await startAgentServer();
  });
  after(() => server.close());

  test('GET /api/runtime mid-run: the active run with its output so far and its steps, which later chunks continue', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'slow tool run scenario:tool delay:150' });
    // poll until the run has streamed some text and started its tool, and is still going
    let snapshot: any;
    for (const start = Date.now(); !snapshot; await new Promise((r) => setTimeout(r, 20))) {
      assert.ok(Date.now() - start < 20_000, 'the run never showed output and a step');
      const active = (await getJson(`${server.url}/api/runtime`)).body.agent.active;
      if (active?.output && active.steps.length) snapshot = active;
    }
    const lines = await stream.done;
    sse.close();
    const done = lines.at(-1);
    assert.equal(done.status, 'ok');
    assert.equal(snapshot.traceId, done.traceId);
    assert.equal(snapshot.provider, 'claude');
    assert.equal(snapshot.steps[0].name, 'Bash');
    assert.match(JSON.stringify(snapshot.steps[0].input), /echo hello-from-tool/);
    // the snapshot plus the chunks that start at or after its end rebuild the whole streamed output
    const chunks = agentEvents(sse, done.traceId).filter((e) => e.event === 'agent_output');
    const whole = chunks.map((e) => e.content).join('');
    assert.ok(whole.startsWith(snapshot.output) && snapshot.output.length < whole.length, `a proper prefix: ${JSON.stringify(snapshot.output)}`);
    const later = chunks.filter((e) => e.offset >= snapshot.output.length);
    assert.equal(snapshot.output + later.map((e) => e.content).join(''), whole);
    assert.match(whole, /The tool finished/);
    assert.equal((await getJson(`${server.url}/api/runtime`)).body.agent.active, undefined, 'nothing active after the run');
  });

  test('the NDJSON stream, the SSE events and the trace file agree', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'run the tool scenario:tool' });
    assert.equal(stream.status, 200);
    const lines = await stream.done;
    const done = lines.at(-1);
    assert.equal(done.type, 'done');
    assert.equal(done.status, 'ok');
    assert.match(done.text, /hello-from-tool/);
    const traceId = done.traceId;
    const tools = lines.filter((l) => l.type === 'tool');
    assert.equal(tools[0].status, 'running');
    assert.equal(tools[0].name, 'Bash');
    assert.match(JSON.stringify(tools[0].input), /echo hello-from-tool/);
    assert.equal(tools.at(-1).status, 'ok');
    assert.match(tools.at(-1).output, /hello-from-tool/);
    assert.ok(lines.every((l) => ['thinking', 'text', 'tool', 'done'].includes(l.type)));

    await until(() => agentEvents(sse, traceId).some((e) => e.event === 'agent_status' && e.status === 'done'));
    sse.close();
    const events = agentEvents(sse, traceId);
    const text = (list: any[], field: string) => list.map((e) => e[field]).join('');
    // live text: the same chunks on SSE and in the stream
    assert.equal(text(events.filter((e) => e.event === 'agent_output'), 'content'), text(lines.filter((l) => l.type === 'text'), 'content'));
    // each chunk says where it starts in the run's output: the offsets run on without gaps
    let expected = 0;
    for (const chunk of events.filter((e) => e.event === 'agent_output')) {
      assert.equal(chunk.offset, expected);
      expected += chunk.content.length;
    }
    const sseDone = events.find((e) => e.event === 'agent_done');
    assert.equal(sseDone.text, done.text);
    assert.equal(sseDone.toolLog[0].name, 'Bash');
    assert.equal(sseDone.toolLog[0].status, 'ok');
    assert.ok(sseDone.usage.outputTokens > 0);
    assert.deepEqual(events.filter((e) => e.event === 'agent_tool').map((e) => e.status), tools.map((t) => t.status));
    assert.ok(!events.some((e) => e.event === 'provider_line'), 'raw lines stay internal');

    // the trace holds the same public events, with a timestamp and the trace id, plus raw lines and how the CLI exited
    const trace = readFileSync(join(server.home, 'traces', `${traceId}.ndjson`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(trace.every((l) => typeof l.ts === 'number' && l.traceId === traceId));
    const internal = ['provider_line', 'provider_exit'];
    assert.ok(!events.some((e) => e.event === 'provider_exit'), 'the exit stays internal');
    assert.deepEqual(trace.filter((l) => l.event === 'provider_exit').map((l) => [l.code, l.signal]), [[0, null]], 'the CLI exited 0');
    const publicInTrace = trace.filter((l) => !internal.includes(l.event)).map((l) => l.event);
    assert.deepEqual(publicInTrace, events.map((e) => e.event));
    const recorded = readFileSync(new URL('../../fixtures/protocols/claude-tool.jsonl', import.meta.url), 'utf8').trim().split('\n');
    assert.equal(trace.filter((l) => l.event === 'provider_line' && l.stream === 'stdout').length, recorded.length, 'every stdout line of the recording');

    const summary = await getJson(`${server.url}/api/traces/${traceId}`);
    assert.equal(summary.status, 200);
    assert.equal(summary.body.status, 'ok');
    assert.equal(summary.body.provider, 'claude');
    assert.equal(summary.body.eventCount, trace.length);
    assert.equal(typeof summary.body.messageId, 'number');
    const page = await getJson(`${server.url}/api/traces/${traceId}/events?offset=2&limit=3`);
    assert.deepEqual(page.body.events, trace.slice(2, 5));
    assert.equal(page.body.hasMore, true);
    assert.equal((await getJson(`${server.url}/api/traces/tr_doesnotexist00`)).status, 404);
    assert.equal((await getJson(`${server.url}/api/traces/..%2F..%2Fetc`)).status, 400);

    const history = await getJson(`${server.url}/api/messages`);
    const last = history.body.messages.slice(-2);
    assert.deepEqual(last.map((m: any) => m.role), ['user', 'assistant']);
    assert.equal(last[1].content, done.text);
  });

  test('a second message while a run is active is queued and runs after it', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const first = await postNdjson(`${server.url}/api/message`, { prompt: 'first scenario:text delay:150' });
    await first.waitFor((l) => l.type === 'text');
    const second = await postNdjson(`${server.url}/api/message`, { prompt: 'second scenario:text' });
    const queued = await sse.waitFor(sse.messages.length + 1).then(() =>
      until(() => sse.messages.some((m) => m.data.event === 'new_message' && m.data.content === 'second scenario:text')),
    );
    void queued;
    const newMessage = sse.messages.find((m) => m.data.event === 'new_message' && m.data.content === 'second scenario:text')!.data;
    assert.equal(newMessage.queued, true);
    assert.ok(sse.messages.some((m) => m.data.event === 'queue_update' && m.data.pending === 1 && m.data.active === true));
    const [firstLines, secondLines] = await Promise.all([first.done, second.done]);
    assert.ok(secondLines.every((l) => l.traceId === secondLines.at(-1).traceId), 'the queued stream carries only its own run');
    assert.equal(firstLines.at(-1).status, 'ok');
    assert.equal(secondLines.at(-1).status, 'ok');
    assert.notEqual(firstLines.at(-1).traceId, secondLines.at(-1).traceId);
    // the second run starts only after the first is done
    const lifecycle = sse.messages.map((m) => m.data).filter((d) => ['agent_done', 'agent_status'].includes(d.event));
    const firstDone = lifecycle.findIndex((d) => d.event === 'agent_done' && d.traceId === firstLines.at(-1).traceId);
    const secondStart = lifecycle.findIndex((d) => d.event === 'agent_status' && d.status === 'running' && d.traceId === secondLines.at(-1).traceId);
    assert.ok(firstDone !== -1 && secondStart > firstDone);
    // the history reads in turn order: the queued message moved behind the first answer when its
    // turn came (a new id; the `message` event says which one it replaces)
    const history = (await getJson(`${server.url}/api/messages?limit=4`)).body.messages;
    assert.deepEqual(history.map((m: any) => `${m.role}:${m.content.split(' ')[0]}`), ['user:first', 'assistant:Hello', 'user:second', 'assistant:Hello']);
    const savedAt = sse.messages.find((m) => m.data.event === 'message' && m.data.content === 'second scenario:text' && m.data.replaces === undefined)!.data;
    const moved = sse.messages.find((m) => m.data.event === 'message' && m.data.replaces === savedAt.id)!.data;
    assert.equal(moved.id, history[2].id);
    assert.ok(moved.id > history[1].id);
    assert.equal(moved.createdAt, savedAt.createdAt, 'it keeps the time it was sent');
    assert.equal((await getJson(`${server.url}/api/messages/search?q=second`)).body.results[0].id, moved.id, 'search finds it under its new id');
    sse.close();
  });

  test('stop mid-run kills the whole process tree and ends the stream as stopped', async () => {
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'long scenario:text delay:400 spawnchild' });
    await stream.waitFor((l) => l.type === 'text', 15_000);
    await until(() => server.invocations().some((i) => i.prompt.includes('spawnchild')));
    const cli = server.invocations().find((i) => i.prompt.includes('spawnchild'))!;
    await until(() => {
      try {
        readFileSync(join(server.stateDir, 'child.pid'));
        return true;
      } catch {
        return false;
      }
    });
    const grandchild = Number(readFileSync(join(server.stateDir, 'child.pid'), 'utf8'));
    assert.ok(isAlive(grandchild));
    const stop = await sendJson(`${server.url}/api/stop`, 'POST', {});
    assert.equal(stop.status, 200);
    assert.equal(stop.body.stopped, true);
    const lines = await stream.done;
    assert.equal(lines.at(-1).type, 'done');
    assert.equal(lines.at(-1).status, 'stopped');
    await until(() => !isAlive(cli.pid) && !isAlive(grandchild), 5000);
    rmSync(join(server.stateDir, 'child.pid'));
  });

  test('stop with messages queued ends every queued stream, runs none of them, and notes them in the history', async () => {
    const started = server.invocations().length;
    const running = await postNdjson(`${server.url}/api/message`, { prompt: 'busy scenario:text delay:400' });
    await running.waitFor((l) => l.type === 'text', 15_000);
    const queued = [
      await postNdjson(`${server.url}/api/message`, { prompt: 'queued one scenario:text' }),
      await postNdjson(`${server.url}/api/message`, { prompt: 'queued two scenario:text' }),
    ];
    await untilAsync(async () => (await getJson(`${server.url}/api/runtime`)).body.agent.pending === 2);
    const stop = await sendJson(`${server.url}/api/stop`, 'POST', {});
    assert.equal(stop.status, 200);
    assert.deepEqual(stop.body, { stopped: true, cleared: 2 });
    for (const stream of queued) {
      const lines = await stream.done;
      assert.equal(lines.length, 1, JSON.stringify(lines));
      assert.deepEqual(lines[0], { type: 'done', status: 'stopped', text: '', reason: 'removed from the queue by stop' });
    }
    assert.equal((await running.done).at(-1).status, 'stopped');
    await untilAsync(async () => {
      const { agent } = (await getJson(`${server.url}/api/runtime`)).body;
      return agent.busy === false && agent.pending === 0;
    });
    assert.deepEqual(server.invocations().slice(started).map((i) => i.prompt), ['busy scenario:text delay:400'], 'no queued message reached a CLI');
    const history = (await getJson(`${server.url}/api/messages?limit=10`)).body.messages;
    const note = history.find((m: any) => m.role === 'system' && m.meta?.kind === 'queue_dropped');
    assert.equal(note?.content, '2 queued messages were not sent to the agent: stopped by user.');
    assert.equal(note.meta.count, 2);
    assert.deepEqual(history.filter((m: any) => m.role === 'user').slice(-2).map((m: any) => m.content), ['queued one scenario:text', 'queued two scenario:text'], 'the messages stay where they were sent');
  });

  test('resume: the next message continues the provider session; a stale id falls back to a fresh one', async () => {
    await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: 'resume test' });
    const first = await (await postNdjson(`${server.url}/api/message`, { prompt: 'remember pineapple scenario:text' })).done;
    assert.equal(first.at(-1).status, 'ok');
    const issued = server.invocations().at(-1)!;
    assert.equal(issued.resume, undefined);
    const sessionFiles = () => readFileSync(join(server.stateDir, 'invocations.jsonl'), 'utf8');
    void sessionFiles;
    const second = await (await postNdjson(`${server.url}/api/message`, { prompt: 'what was it? scenario:text' })).done;
    assert.equal(second.at(-1).status, 'ok');
    const resumed = server.invocations().at(-1)!;
    assert.ok(resumed.resume, 'second message resumes');
    assert.equal(resumed.file, 'claude-text', 'the fake knew the session');
    // the CLI forgets the session: the runtime retries once with a fresh session
    rmSync(join(server.stateDir, 'sessions', resumed.resume!));
    const sse = await openSse(`${server.url}/api/events`);
    const third = await (await postNdjson(`${server.url}/api/message`, { prompt: 'and now? scenario:text' })).done;
    assert.equal(third.at(-1).status, 'ok');
    const [stale, fresh] = server.invocations().slice(-2);
    assert.equal(stale!.file, 'claude-stdin-stale-resume');
    assert.equal(fresh!.resume, undefined);
    assert.ok(sse.messages.some((m) => m.data.event === 'agent_retry' && /fresh/.test(m.data.reason)));
    sse.close();
  });

  test('a client that drops the response does not cancel the run', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'dropped scenario:text delay:50' });
    stream.abort();
    await until(() => sse.messages.some((m) => m.data.event === 'agent_done'), 10_000);
    const done = sse.messages.find((m) => m.data.event === 'agent_done')!.data;
    assert.equal(done.status, 'ok');
    const saved = (await getJson(`${server.url}/api/messages?limit=1`)).body.messages[0];
    assert.equal(saved.role, 'assistant');
    assert.equal(saved.id, done.messageId);
    sse.close();
  });
});

describe('retry, fallback and watchdog', () => {
  test('a rate-limited provider is retried, then the next provider of the chain answers', async (t) => {
    const server = await startAgentServer({ provider: 'claude', fallback: ['codex'], retries: 1 });
    const sse = await openSse(`${server.url}/api/events`);
    t.after(async () => {
      sse.close();
      await server.close();
    });
    const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello fail:claude' })).done;
    const done = lines.at(-1);
    assert.equal(done.status, 'ok');
    assert.match(done.text, /Hello from the fake model/);
    assert.deepEqual(server.invocations().map((i) => i.provider), ['claude', 'claude', 'codex']);
    const retries = sse.messages.filter((m) => m.data.event === 'agent_retry' && m.data.provider === 'claude').map((m) => m.data);
    assert.ok(retries.some((r) => r.failure === 'rate_limit' && /usage limit/.test(r.reason) && r.attempt === 1), 'our own retry');
    assert.ok(retries.some((r) => /retrying on its own/.test(r.reason)), "the CLI's own retries are reported too");
    const fallback = sse.messages.find((m) => m.data.event === 'agent_fallback')!.data;
    assert.equal(fallback.from, 'claude');
    assert.equal(fallback.to, 'codex');
    assert.match(fallback.reason, /^Claude Code hit its usage limit/);
    const summary = await getJson(`${server.url}/api/traces/${done.traceId}`);
    assert.equal(summary.body.provider, 'codex');
  });

  test('a missing CLI fails fast with a clear reason and falls back', async (t) => {
    const server = await startAgentServer({ provider: 'gemini', fallback: [], executables: { gemini: '/nonexistent/gemini' } });
    t.after(() => server.close());
    const alone = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hi' })).done).at(-1);
    assert.equal(alone.status, 'error');
    assert.equal(alone.failure, 'cli_missing');
    assert.equal(alone.fix, 'npm install -g @google/gemini-cli');
    assert.match(alone.reason, /^Gemini CLI is not installed \('\/nonexistent\/gemini' was not found\)\. Install it with npm install -g @google\/gemini-cli/);
    server.app.services.settings.update({ agent: { fallback: ['codex'] } });
    const rescued = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hi' })).done).at(-1);
    assert.equal(rescued.status, 'ok');
  });

  test('the watchdog kills a run that stops printing', async (t) => {
    const server = await startAgentServer({ provider: 'codex', idleTimeoutSec: 1, retries: 0 });
    t.after(() => server.close());
    const started = Date.now();
    const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'stuck hang' })).done;
    const done = lines.at(-1);
    assert.equal(done.status, 'error');
    assert.equal(done.failure, 'timeout');
    assert.match(done.reason, /^Codex CLI was stopped: no output for 1 s/);
    assert.ok(Date.now() - started < 8000);
    const pid = server.invocations().at(-1)!.pid;
    await until(() => !isAlive(pid), 3000);
  });
});
