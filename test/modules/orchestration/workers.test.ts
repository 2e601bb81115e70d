import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_CLIS, startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { openSse } from '../../support/sse.ts';
import { agentHeader, call, record, waitFor } from './support.ts';

describe('employees and worker runs (fake CLIs)', () => {
  let server: AgentTestServer;
  let session: string;
  before(async () => {
    server = await startAgentServer();
    session = (await call(server, 'POST', '/api/chat-sessions', { title: 'workers' })).body.session.id;
  });
  after(() => server.close());

  const dispatch = (body: object, headers: Record<string, string> = {}) => call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, ...body }, headers);
  const run = async (runId: string) => (await call(server, 'GET', `/api/orchestrate/worker-runs/${runId}`)).body;
  const ended = (runId: string) => waitFor(async () => {
    const r = await run(runId);
    return ['succeeded', 'failed', 'cancelled', 'timeout', 'orphaned'].includes(r.status) ? r : undefined;
  }, `run ${runId} to end`);
  const messages = async () => (await call(server, 'GET', `/api/messages?sessionId=${session}&limit=200`)).body.messages as { role: string; content: string }[];

  test('presets are listed; employees are created, changed and deleted by exact id; a deleted preset comes back', async () => {
    const list = (await call(server, 'GET', '/api/employees')).body.employees;
    assert.deepEqual(list.map((e: { id: string }) => e.id).sort(), ['auditor', 'planner', 'security-reviewer', 'tester', 'verifier']);
    const created = await call(server, 'POST', '/api/employees', { id: 'docs-writer', name: 'Docs', role: 'writes docs', provider: 'claude', model: '', instructions: 'write', capability: 'mutable', scope: ['docs'] });
    assert.equal(created.status, 201);
    const { preset: _p, ...again } = created.body;
    assert.deepEqual([(await call(server, 'POST', '/api/employees', again)).status], [409]);
    const patched = await call(server, 'PATCH', '/api/employees/docs-writer', { role: 'writes better docs' });
    assert.equal(patched.body.role, 'writes better docs');
    assert.equal((await call(server, 'PATCH', '/api/employees/auditor', { model: 'm1' })).body.model, 'm1');
    const restored = await call(server, 'DELETE', '/api/employees/auditor');
    assert.deepEqual([restored.status, restored.body.restored.model], [200, '']);
    assert.deepEqual((await call(server, 'DELETE', '/api/employees/docs-writer')).body, { deleted: 'docs-writer', restored: null });
    // exact ids only: no fuzzy match on names
    assert.equal((await call(server, 'PATCH', '/api/employees/audit', { model: 'x' })).status, 404);
    // nor a name every object has (the fuzzer found PATCH /api/employees/constructor answering a function)
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      // (an id with capitals or underscores is refused by its pattern first)
      assert.ok([400, 404].includes((await call(server, 'PATCH', `/api/employees/${inherited}`, { model: 'x' })).status), inherited);
      assert.ok([400, 404].includes((await call(server, 'DELETE', `/api/employees/${inherited}`)).status), inherited);
    }
    assert.equal((await dispatch({ employee: 'constructor', task: 't' })).status, 404);
    assert.equal((await dispatch({ employee: 'audit', task: 't' })).status, 404);
    for (const bad of [{ id: 'Bad Id', name: 'x', role: 'r', provider: '', model: '', instructions: '', capability: 'mutable' }, { id: 'ok', name: '', role: 'r', provider: '', model: '', instructions: '', capability: 'mutable' }, { id: 'ok2', name: 'x', role: 'r', provider: '', model: '', instructions: '', capability: 'rw' }]) {
      assert.equal((await call(server, 'POST', '/api/employees', bad)).status, 400, JSON.stringify(bad));
    }
  });

  test('bad dispatches are 400s, and a read-only worker on a CLI svc cannot hold to it is refused', async () => {
    const virtual = { name: 'v', role: 'r', provider: 'opencode', model: '', instructions: '', capability: 'read-only' };
    const cases: [object, number, string][] = [
      [{ task: 't' }, 400, 'VALIDATION_FAILED'],
      [{ employee: 'auditor', virtual, task: 't' }, 400, 'VALIDATION_FAILED'],
      [{ employee: 'auditor', task: '  ' }, 400, 'VALIDATION_FAILED'],
      [{ employee: 'auditor', task: 't', phase: 'Z' }, 400, 'VALIDATION_FAILED'],
      [{ employee: 'auditor', task: 't', wait: 'yes' }, 400, 'VALIDATION_FAILED'],
      [{ virtual, task: 't' }, 400, 'READ_ONLY_UNSUPPORTED'],
      [{ virtual: { ...virtual, provider: 'nope', capability: 'mutable' }, task: 't' }, 400, 'UNKNOWN_PROVIDER'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await dispatch(body);
      assert.deepEqual([answer.status, answer.body.error], [status, code], JSON.stringify(body));
    }
    for (const body of [{ runs: [] }, { runs: Array(11).fill({ employee: 'tester', task: 't' }) }, { runs: [{ employee: 'tester', task: 't', wait: true }] }]) {
      assert.equal((await call(server, 'POST', '/api/orchestrate/dispatch/batch', body)).status, 400);
    }
    // a batch is validated whole before anything runs
    const before = (await call(server, 'GET', '/api/orchestrate/worker-runs?limit=200')).body.runs.length;
    const batch = await call(server, 'POST', '/api/orchestrate/dispatch/batch', { runs: [{ employee: 'tester', task: 'fine' }, { employee: 'ghost', task: 't' }] });
    assert.deepEqual([batch.status, batch.body.index], [404, 1]);
    assert.equal((await call(server, 'GET', '/api/orchestrate/worker-runs?limit=200')).body.runs.length, before);
    for (const path of ['/api/orchestrate/worker-runs/nope', '/api/orchestrate/worker-runs/nope/output', '/api/orchestrate/worker-progress/Not_An_Id', '/api/orchestrate/batches/x']) {
      assert.equal((await call(server, 'GET', path)).status, 400, path);
    }
    assert.equal((await call(server, 'GET', '/api/orchestrate/worker-runs/tr_doesnotexist')).status, 404);
    assert.equal((await call(server, 'GET', '/api/orchestrate/worker-runs?status=done')).status, 400);
  });

  test('dispatch is asynchronous (202 {runId}); the run is durable, traced, and its result reaches the session once', async () => {
    const events = record(server);
    const accepted = await dispatch({ employee: 'tester', task: 'write the tests scenario:tool' });
    assert.equal(accepted.status, 202);
    assert.match(accepted.body.runId, /^tr_/);
    assert.equal(accepted.body.sessionId, session);
    const done = await ended(accepted.body.runId);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.reason, 'the CLI finished');
    assert.ok(done.steps.length >= 1, 'its tool steps are kept');
    // its tool steps were published apart from the main agent's
    assert.ok(events.some((e) => e.name === 'agent_tool' && e.payload.workerRunId === accepted.body.runId));
    const output = (await call(server, 'GET', `/api/orchestrate/worker-runs/${accepted.body.runId}/output?offset=0&limit=10`)).body;
    assert.equal(output.text.length, Math.min(10, output.total));
    assert.ok(output.total > 0);
    const trace = (await call(server, 'GET', `/api/orchestrate/worker-runs/${accepted.body.runId}/events`)).body;
    assert.ok(trace.events.some((e: { event: string }) => e.event === 'provider_line'));
    assert.deepEqual(trace.events.filter((e: { event: string }) => e.event === 'provider_exit').map((e: { code: number }) => e.code), [0], 'how its CLI exited');
    const delivered = await waitFor(async () => (await messages()).filter((m) => m.content.includes(`Run ${accepted.body.runId}`)), 'the result in the session');
    assert.equal(delivered.length, 1);
    assert.match(delivered[0]!.content, /^\[worker result\] Run tr_\S+ of tester \(Tester\) ended: succeeded/);
    assert.equal(events.filter((e) => e.name === 'orchestrate_done' && e.payload.runId === accepted.body.runId).length, 1);
    assert.ok((await run(accepted.body.runId)).deliveredAt);
    // the worker got a credential the server never issued: no main-agent run of its own
    const invocation = server.invocations().find((i) => i.prompt.includes('write the tests'))!;
    assert.match(invocation.runToken!, /^svcworker_/);
    assert.equal(server.app.services.credentials.resolve(invocation.runToken), undefined);
  });

  test("a worker's provider CLI goes out as the employee's runtime events (agent:provider-e:*), which an SSE client sees", async () => {
    const sse = await openSse(`${server.url}/api/events`);
    try {
      const accepted = await dispatch({ employee: 'tester', task: 'show your work scenario:tool' });
      const runId = accepted.body.runId as string;
      const done = await ended(runId);
      assert.equal(done.status, 'succeeded');
      const mine = () => sse.messages.map((m) => m.data).filter((d) => String(d.event).startsWith('agent:provider-e:') && d.runId === runId);
      await waitFor(() => mine().some((d) => d.event === 'agent:provider-e:status' && d.status === 'succeeded'), 'the end status on the stream');
      const events = mine();
      // each names the run, its session, the employee and its provider, on the agent topic
      for (const d of events) assert.deepEqual([d.topic, d.sessionId, d.employeeId, d.provider], ['agent', session, 'tester', done.employee.provider], d.event);
      // the status when the CLI starts and when it ends, around everything else
      assert.deepEqual([events[0]!.event, events[0]!.status], ['agent:provider-e:status', 'running']);
      assert.deepEqual([events.at(-1)!.event, events.at(-1)!.status, events.at(-1)!.reason], ['agent:provider-e:status', 'succeeded', 'the CLI finished']);
      // a tool step, started and ended under one id
      const tools = events.filter((d) => d.event === 'agent:provider-e:tool');
      const started = tools.find((d) => d.status === 'running');
      assert.ok(started, JSON.stringify(events.map((d) => d.event)));
      assert.equal(typeof started.input, 'object');
      const finished = tools.find((d) => d.stepId === started.stepId && d.status !== 'running');
      assert.ok(finished, 'the step ends');
      assert.deepEqual([finished.name, finished.step], [started.name, started.step]);
      // the text, each fragment placed by its offset; the answer the run kept is its last part
      const texts = events.filter((d) => d.event === 'agent:provider-e:text');
      assert.ok(texts.length > 0);
      let text = '';
      for (const d of texts) {
        assert.equal(d.offset, text.length);
        text += d.content;
      }
      const output = (await call(server, 'GET', `/api/orchestrate/worker-runs/${runId}/output?offset=0&limit=100000`)).body;
      assert.ok(output.text && text.endsWith(output.text), `${JSON.stringify(output.text)} ends ${JSON.stringify(text)}`);
    } finally {
      sse.close();
    }
  });

  test('a worker gets what memory holds for its task: the profile and the relevant procedures, not the notes', async () => {
    const save = (path: string, content: string) => call(server, 'POST', '/api/svc-memory/save', { path, content, mode: 'replace' });
    assert.equal((await save('profile.md', '# Profile\nThe user is Ann; she reviews every pull request.')).status, 200);
    assert.equal((await save('procedures/releases.md', '## Releasing the package\nTag with vYYYY.MM and run make publish-quietly.')).status, 200);
    assert.equal((await save('notes/releases.md', '## Release party\nCake after releasing the package.')).status, 200);
    const accepted = await dispatch({ employee: 'tester', task: 'prepare releasing the package scenario:text' });
    assert.equal((await ended(accepted.body.runId)).status, 'succeeded');
    const invocation = server.invocations().find((i) => i.prompt.includes('prepare releasing the package'))!;
    const system = invocation.args.find((a) => a.startsWith('--append-system-prompt=')) ?? '';
    assert.match(system, /make publish-quietly/, 'the procedure');
    assert.match(system, /she reviews every pull request/, 'the profile');
    assert.doesNotMatch(system, /Cake after releasing/, 'notes are the main agent\'s, not the workers\'');
  });

  test('wait: true answers 200 with the ended run', async () => {
    const answer = await dispatch({ employee: 'tester', task: 'quick scenario:text', wait: true });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'succeeded');
  });

  test('an audit whose answer is not the verdict object is a failed audit, and A → B stays shut', async () => {
    await call(server, 'PUT', '/api/orchestrate/state', { phase: 'P', sessionId: session });
    await call(server, 'POST', '/api/orchestrate/plan', { content: 'the plan', sessionId: session });
    await call(server, 'PUT', '/api/orchestrate/state', { phase: 'A', sessionId: session });
    const accepted = await dispatch({ employee: 'auditor', phase: 'A', task: 'audit it scenario:text', wait: true });
    assert.equal(accepted.body.verdict, 'invalid');
    const state = (await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`)).body;
    assert.deepEqual([state.audit.verdict, state.audit.runId, state.audit.planVersion], ['fail', accepted.body.runId, 1]);
    assert.match(state.audit.error, /JSON verdict/);
    const refused = await call(server, 'PUT', '/api/orchestrate/state', { phase: 'B', sessionId: session });
    assert.deepEqual([refused.status, refused.body.gate], [409, 'audit']);
    // the approved plan went into the worker's task
    const invocation = server.invocations().find((i) => i.prompt.includes('audit it'))!;
    assert.match(invocation.prompt, /The approved plan \(version 1\):\n<plan>\nthe plan\n<\/plan>/);
    assert.match(invocation.prompt, /\{"verdict":"pass"\|"fail","findings"/);
    await call(server, 'POST', '/api/orchestrate/reset', { sessionId: session });
  });

  test('an audit run that fails or times out after printing a passing verdict is a failed audit; only a run that succeeds opens A → B', async () => {
    // A Claude Code stand-in: it prints a passing audit verdict, then ends the way its task says
    // (end:fail exits 1, end:hang never ends, anything else exits 0). Partial output of a run that
    // did not finish is no answer, however much it looks like one.
    const dir = mkdtempSync(join(tmpdir(), 'svc-verdict-cli-'));
    const verdict = '```json\n{"verdict":"pass","findings":[]}\n```';
    const lines = [
      { type: 'stream_event', event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: verdict } } },
    ];
    writeFileSync(join(dir, 'verdict.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    writeFileSync(join(dir, 'claude'), `#!/bin/sh\nread -r request\ncat '${join(dir, 'verdict.jsonl')}'\ncase "$request" in\n  *end:fail*) exit 1 ;;\n  *end:hang*) exec sleep 600 ;;\nesac\n`, { mode: 0o755 });
    server.app.services.settings.update({ agent: { executables: { claude: join(dir, 'claude') } }, orchestration: { workerTimeoutSec: 10 } });
    try {
      await call(server, 'PUT', '/api/orchestrate/state', { phase: 'P', sessionId: session });
      await call(server, 'POST', '/api/orchestrate/plan', { content: 'the plan', sessionId: session });
      await call(server, 'PUT', '/api/orchestrate/state', { phase: 'A', sessionId: session });
      const toB = () => call(server, 'PUT', '/api/orchestrate/state', { phase: 'B', sessionId: session });
      for (const [end, status] of [['fail', 'failed'], ['hang', 'timeout']]) {
        const audit = (await dispatch({ employee: 'auditor', phase: 'A', task: `audit it end:${end}`, wait: true })).body;
        assert.deepEqual([audit.status, audit.verdict], [status, 'invalid'], `end:${end}`);
        const state = (await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`)).body;
        assert.deepEqual([state.audit.verdict, state.audit.runId], ['fail', audit.runId], `end:${end}`);
        assert.match(state.audit.error, /did not succeed/);
        const refused = await toB();
        assert.deepEqual([refused.status, refused.body.gate], [409, 'audit'], `end:${end}`);
      }
      // the same output from a run that succeeds is a pass: the stand-in's verdict is a real one
      const passed = (await dispatch({ employee: 'auditor', phase: 'A', task: 'audit it end:ok', wait: true })).body;
      assert.deepEqual([passed.status, passed.verdict], ['succeeded', 'pass']);
      assert.equal((await toB()).status, 200);
    } finally {
      server.app.services.settings.update({ agent: { executables: { claude: join(FAKE_CLIS, 'claude') } }, orchestration: { workerTimeoutSec: 1800 } });
      await call(server, 'POST', '/api/orchestrate/reset', { sessionId: session });
    }
  });

  test('a worker cannot dispatch or cancel; the agent of a live run can dispatch for its own session', async () => {
    const asWorker = await dispatch({ employee: 'tester', task: 'recurse' }, agentHeader('svcworker_xyz'));
    assert.deepEqual([asWorker.status, asWorker.body.error], [403, 'ORC_NOT_ALLOWED']);
    const batch = await call(server, 'POST', '/api/orchestrate/dispatch/batch', { runs: [{ employee: 'tester', task: 't' }] }, agentHeader('svcworker_xyz'));
    assert.equal(batch.status, 403);
    const token = server.app.services.credentials.issue({ runId: 'tr_mainrun01', sessionId: session }, 60_000);
    try {
      const asAgent = await call(server, 'POST', '/api/orchestrate/dispatch', { employee: 'tester', task: 'ok scenario:text', wait: true }, agentHeader(token));
      assert.deepEqual([asAgent.status, asAgent.body.sessionId], [200, session]);
    } finally {
      server.app.services.credentials.revoke('tr_mainrun01');
    }
  });

  test('cancel ends a running run with its reason; a second cancel is a 409; the concurrency limit queues the rest', async () => {
    server.app.services.settings.update({ orchestration: { concurrency: 1 } });
    try {
      const first = (await dispatch({ employee: 'tester', task: 'long one hang' })).body.runId;
      const second = (await dispatch({ employee: 'tester', task: 'next one scenario:text' })).body.runId;
      await waitFor(async () => (await run(first)).status === 'running', 'the first to run');
      assert.equal((await run(second)).status, 'queued');
      const progress = (await call(server, 'GET', '/api/orchestrate/worker-progress/tester')).body;
      assert.equal(progress.current.status, 'running');
      assert.match(progress.current.taskPreview, /long one/);
      const cancelled = await call(server, 'POST', `/api/orchestrate/worker-runs/${first}/cancel`, { reason: 'changed my mind' });
      assert.equal(cancelled.status, 200);
      const firstEnd = await ended(first);
      assert.deepEqual([firstEnd.status, firstEnd.reason], ['cancelled', 'changed my mind']);
      assert.equal((await call(server, 'POST', `/api/orchestrate/worker-runs/${first}/cancel`, {})).status, 409);
      assert.equal((await ended(second)).status, 'succeeded');
      const all = (await call(server, 'GET', '/api/orchestrate/worker-progress')).body.workers;
      assert.ok(all.some((w: { employeeId: string }) => w.employeeId === 'tester'));
    } finally {
      server.app.services.settings.update({ orchestration: { concurrency: 3 } });
    }
  });

  test('a batch runs entries with overlapping affectedFiles one after another, the rest in parallel, and aggregates', async () => {
    const events = record(server);
    const answer = await call(server, 'POST', '/api/orchestrate/dispatch/batch', {
      sessionId: session,
      runs: [
        { employee: 'tester', task: 'one delay:40 scenario:text', affectedFiles: ['src/a.ts'] },
        { employee: 'tester', task: 'two delay:5 scenario:text', affectedFiles: ['docs/x.md'] },
        { employee: 'tester', task: 'three delay:5 scenario:text', affectedFiles: ['src'] },
      ],
    });
    assert.equal(answer.status, 202);
    assert.match(answer.body.batchId, /^wb_/);
    assert.equal(answer.body.runs.length, 3);
    const [one, two, three] = answer.body.runs.map((r: { runId: string }) => r.runId);
    const batch = await waitFor(async () => {
      const b = (await call(server, 'GET', `/api/orchestrate/batches/${answer.body.batchId}`)).body;
      return b.status === 'done' ? b : undefined;
    }, 'the batch to end');
    const [r1, r2, r3] = [await run(one), await run(two), await run(three)];
    assert.ok(r3.startedAt >= r1.endedAt, 'three (src) waited for one (src/a.ts)');
    assert.ok(r2.startedAt < r1.endedAt, 'two ran beside one');
    // no verdicts, all succeeded: nothing to aggregate into a pass
    assert.equal(batch.verdict, 'none');
    assert.ok(events.some((e) => e.name === 'orchestrate_done' && e.payload.kind === 'batch' && e.payload.batchId === answer.body.batchId));
  });

  test('stall and timeout policy: one worker_stalled per quiet spell, killed at the maximum with worker_timeout', async () => {
    server.app.services.settings.update({ orchestration: { stallSec: 5, workerTimeoutSec: 10 } });
    try {
      const events = record(server);
      const runId = (await dispatch({ employee: 'tester', task: 'stuck hang' })).body.runId;
      // the run's end is stored, its trace closed, then its events go out: wait for the last of them
      const end = await waitFor(async () => {
        const r = await run(runId);
        return r.status === 'timeout' && events.some((e) => e.name === 'worker_timeout' && e.payload.runId === runId) ? r : undefined;
      }, 'the timeout', 20_000);
      assert.match(end.reason, /orchestration\.workerTimeoutSec/);
      assert.equal(events.filter((e) => e.name === 'worker_stalled' && e.payload.runId === runId).length, 1);
      assert.equal(events.filter((e) => e.name === 'worker_timeout' && e.payload.runId === runId).length, 1);
    } finally {
      server.app.services.settings.update({ orchestration: { stallSec: 180, workerTimeoutSec: 1800 } });
    }
  });
});
