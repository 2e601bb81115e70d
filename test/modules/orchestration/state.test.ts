import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { startServer } from '../../support/server.ts';
import { agentHeader, call, record } from './support.ts';

describe('orchestration state routes', () => {
  let server: AgentTestServer;
  let session: string;
  before(async () => {
    server = await startAgentServer();
    session = (await call(server, 'POST', '/api/chat-sessions', { title: 'orc' })).body.session.id;
  });
  after(() => server.close());

  test('a session starts IDLE with no records', async () => {
    const { status, body } = await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`);
    assert.equal(status, 200);
    assert.deepEqual(
      { ...body, updatedAt: 0 },
      { sessionId: session, phase: 'IDLE', status: 'idle', round: 0, plan: null, audit: null, verification: null, check: null, history: [], updatedAt: 0 },
    );
    assert.equal((await call(server, 'GET', '/api/orchestrate/state?sessionId=ses_nope')).status, 404);
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: [string, string, unknown][] = [
      ['PUT', '/api/orchestrate/state', { phase: 'X' }],
      ['PUT', '/api/orchestrate/state', {}],
      ['PUT', '/api/orchestrate/state', { phase: 'P', extra: 1 }],
      ['PUT', '/api/orchestrate/state', { phase: 'P', approve: 'yes' }],
      ['POST', '/api/orchestrate/plan', { content: '   ' }],
      ['POST', '/api/orchestrate/plan', {}],
      ['POST', '/api/orchestrate/reset', { bogus: true }],
      ['GET', '/api/orchestrate/state?sessionId=', undefined],
      ['GET', '/api/orchestrate/snapshot?x=1', undefined],
    ];
    for (const [method, path, body] of cases) {
      const answer = await call(server, method, path, body);
      assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.ok(answer.body.error && answer.body.message);
    }
  });

  test('each gate refuses without its record (409 naming it) and opens with it; a human approval is recorded as such', async () => {
    const events = record(server);
    const put = (phase: string, extra: object = {}) => call(server, 'PUT', '/api/orchestrate/state', { phase, sessionId: session, ...extra });
    assert.equal((await put('P')).body.waitingOn, 'plan');
    let refused = await put('A');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'ORC_GATE_MISSING');
    assert.equal(refused.body.gate, 'plan');
    assert.match(refused.body.message, /svc orchestrate plan --file/);

    const plan = await call(server, 'POST', '/api/orchestrate/plan', { content: '# Plan\n1. do it', sessionId: session });
    assert.equal(plan.status, 201);
    assert.deepEqual({ version: plan.body.plan.version, hash: plan.body.plan.hash, by: plan.body.plan.by }, { version: 1, hash: createHash('sha256').update('# Plan\n1. do it').digest('hex'), by: 'human' });
    assert.equal((await put('A')).status, 200);

    refused = await put('B');
    assert.deepEqual([refused.status, refused.body.gate], [409, 'audit']);
    const approved = await put('B', { approve: true, reason: 'read it myself' });
    assert.equal(approved.status, 200);
    assert.deepEqual(approved.body.history.at(-1), { at: approved.body.history.at(-1).at, from: 'A', to: 'B', actor: 'human', approved: ['audit'], reason: 'read it myself' });
    assert.equal(approved.body.round, 1);

    assert.deepEqual([(await put('C')).status, (await put('C')).body.gate], [409, 'verification']);
    assert.equal((await put('C', { approve: true })).status, 200);

    // C → D: no check command set
    refused = await put('D');
    assert.deepEqual([refused.status, refused.body.error, refused.body.gate], [409, 'CHECK_NOT_SET', 'check']);
    // the server runs the command itself: a failing one keeps the gate shut and its output is kept
    server.app.services.settings.update({ orchestration: { checkCommand: 'echo checking; echo broken >&2; exit 3' } });
    refused = await put('D');
    assert.deepEqual([refused.status, refused.body.gate], [409, 'check']);
    let state = (await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`)).body;
    assert.equal(state.check.exitCode, 3);
    assert.match(state.check.outputTail, /checking/);
    assert.match(state.check.outputTail, /broken/);
    assert.equal(state.check.round, 1);
    server.app.services.settings.update({ orchestration: { checkCommand: 'echo all good' } });
    const done = await put('D');
    assert.equal(done.status, 200);
    assert.deepEqual([done.body.phase, done.body.status, done.body.check.exitCode, done.body.history.at(-1).actor], ['D', 'complete', 0, 'human']);
    assert.equal(done.body.history.at(-1).approved, undefined, 'D was reached on the record, not an approval');

    const orc = events.filter((e) => e.name === 'orc_state' && e.payload.sessionId === session);
    // each move, the plan, and each check run
    assert.deepEqual(orc.map((e) => e.payload.phase), ['P', 'P', 'A', 'B', 'C', 'C', 'C', 'D']);
    assert.ok(events.some((e) => e.name === 'orchestrate_done' && e.payload.kind === 'cycle' && e.payload.sessionId === session));

    // not a move at all
    refused = await put('A');
    assert.deepEqual([refused.status, refused.body.error], [409, 'ORC_TRANSITION_NOT_ALLOWED']);
    const reset = await call(server, 'POST', '/api/orchestrate/reset', { sessionId: session });
    assert.deepEqual([reset.status, reset.body.phase, reset.body.plan], [200, 'IDLE', null]);
    state = reset.body;
    assert.equal(state.history.at(-1).to, 'IDLE');
  });

  test('a passing check from an earlier round does not open C → D in a later round: the server runs the check again', async () => {
    const put = (phase: string, extra: object = {}) => call(server, 'PUT', '/api/orchestrate/state', { phase, sessionId: session, ...extra });
    // the check passes while the marker file exists: round 1's build is green, round 2's is not
    const green = join(mkdtempSync(join(tmpdir(), 'svc-check-')), 'green');
    server.app.services.settings.update({ orchestration: { checkCommand: `test -f '${green}'` } });
    try {
      await put('P');
      await call(server, 'POST', '/api/orchestrate/plan', { content: 'the plan', sessionId: session });
      await put('A');
      await put('B', { approve: true });
      await put('C', { approve: true });
      writeFileSync(green, '');
      const checked = await call(server, 'POST', '/api/orchestrate/check', { sessionId: session });
      assert.deepEqual([checked.body.check.exitCode, checked.body.check.round], [0, 1]);
      // back to B: a new round, and the build breaks in it
      assert.equal((await put('B')).body.round, 2);
      rmSync(green);
      await put('C', { approve: true });
      const refused = await put('D');
      assert.deepEqual([refused.status, refused.body.gate], [409, 'check']);
      const state = (await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`)).body;
      assert.deepEqual([state.phase, state.check.round, state.check.exitCode], ['C', 2, 1], 'the check of round 2 ran and failed');
    } finally {
      server.app.services.settings.update({ orchestration: { checkCommand: '' } });
      await call(server, 'POST', '/api/orchestrate/reset', { sessionId: session });
    }
  });

  test('the agent (its run credential) moves on records but cannot approve, nor touch another session', async () => {
    const { credentials } = server.app.services;
    const token = credentials.issue({ runId: 'tr_agentrun1', sessionId: session }, 60_000);
    try {
      const asAgent = (method: string, path: string, body?: unknown) => call(server, method, path, body, agentHeader(token));
      const moved = await asAgent('PUT', '/api/orchestrate/state', { phase: 'P' });
      assert.equal(moved.status, 200);
      assert.deepEqual([moved.body.sessionId, moved.body.history.at(-1).actor, moved.body.history.at(-1).runId], [session, 'agent', 'tr_agentrun1']);
      const approve = await asAgent('PUT', '/api/orchestrate/state', { phase: 'A', approve: true });
      assert.deepEqual([approve.status, approve.body.error], [403, 'ORC_HUMAN_ONLY']);
      const plan = await asAgent('POST', '/api/orchestrate/plan', { content: 'agent plan' });
      assert.deepEqual([plan.status, plan.body.plan.by], [201, 'agent']);
      const other = (await call(server, 'GET', '/api/chat-sessions')).body.sessions.find((s: { id: string }) => s.id !== session).id;
      const elsewhere = await asAgent('PUT', '/api/orchestrate/state', { phase: 'I', sessionId: other });
      assert.deepEqual([elsewhere.status, elsewhere.body.error], [403, 'ORC_NOT_ALLOWED']);
      // its own session is the default, whatever session is active
      assert.equal((await asAgent('GET', '/api/orchestrate/state')).body.sessionId, session);
    } finally {
      credentials.revoke('tr_agentrun1');
    }
    // once the run has ended the same credential acts on nothing; neither does one the server never issued (a worker's)
    for (const bad of [token, 'svcworker_abc']) {
      const answer = await call(server, 'PUT', '/api/orchestrate/state', { phase: 'I' }, agentHeader(bad));
      assert.deepEqual([answer.status, answer.body.error], [403, 'ORC_NOT_ALLOWED']);
      const reset = await call(server, 'POST', '/api/orchestrate/reset', {}, agentHeader(bad));
      assert.equal(reset.status, 403);
    }
  });

  test('the snapshot has the state, the runtime and the worker runs', async () => {
    const { status, body } = await call(server, 'GET', `/api/orchestrate/snapshot?sessionId=${session}`);
    assert.equal(status, 200);
    assert.equal(body.state.sessionId, session);
    assert.equal(typeof body.runtime.busy, 'boolean');
    assert.ok(Array.isArray(body.workerRuns));
  });

  test('the phase instructions and the plan reach the main agent\'s prompt', async () => {
    const prompt = server.app.services.orchestration.promptBlock(session);
    assert.match(prompt, /<orchestration>/);
    assert.match(prompt, /Current phase: P/);
    assert.match(prompt, /svc orchestrate plan --file plan\.md/);
  });
});

test('the orchestration of a session survives a restart', async () => {
  const first = await startServer();
  const home = first.home;
  let session: string;
  try {
    session = (await call(first, 'POST', '/api/chat-sessions', { title: 'keep' })).body.session.id;
    await call(first, 'PUT', '/api/orchestrate/state', { phase: 'P', sessionId: session });
    await call(first, 'POST', '/api/orchestrate/plan', { content: 'kept plan', sessionId: session });
  } finally {
    await first.close({ removeHome: false });
  }
  const second = await startServer({ home });
  try {
    const state = (await call(second, 'GET', `/api/orchestrate/state?sessionId=${session!}`)).body;
    assert.deepEqual([state.phase, state.plan.content, state.plan.version, state.status], ['P', 'kept plan', 1, 'active']);
  } finally {
    await second.close();
  }
});
