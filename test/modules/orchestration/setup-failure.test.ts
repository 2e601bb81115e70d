// A worker whose own CLI could not run (not installed, not logged in) comes back to its chat as a note with
// the fix, and starts no main-agent run: the agent cannot install a CLI or log in, and a run to pass the news
// on fails the same way when the agent uses that CLI, or dispatches again (a loop of failing runs). Any other
// ending is still the agent's turn.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { setupFailureOf, setupNote } from '../../../src/modules/orchestration/setup-failure.ts';
import type { Employee } from '../../../src/protocol/orchestration.ts';
import { call, record, waitFor } from './support.ts';

const employee = (provider: string): Employee => ({ id: 'virtual', preset: false, name: 'checker', role: 'r', provider, model: '', instructions: '', capability: 'mutable' });

test("which endings are the worker's own setup, read from the run's reason", () => {
  assert.deepEqual(setupFailureOf({ status: 'failed', reason: "cli_missing: 'gemini' was not found" }), { failure: 'cli_missing', message: "'gemini' was not found" });
  assert.deepEqual(setupFailureOf({ status: 'failed', reason: 'auth: Not logged in · Please run /login' }), { failure: 'auth', message: 'Not logged in · Please run /login' });
  for (const run of [
    { status: 'failed' as const, reason: 'rate_limit: 429' },
    { status: 'failed' as const, reason: 'network: no connection for 120 s' },
    { status: 'failed' as const, reason: 'stalled: no output for 60 s' },
    { status: 'failed' as const, reason: 'crash: exit 1' },
    { status: 'cancelled' as const, reason: 'auth: cancelled by someone' },
    { status: 'succeeded' as const, reason: 'the CLI finished' },
    { status: 'failed' as const, reason: undefined },
  ]) {
    assert.equal(setupFailureOf(run), undefined, JSON.stringify(run));
  }
});

test('the note says which run, why, the one command that fixes it, and that the agent was not told', () => {
  const missing = setupNote({ runId: 'tr_1', employee: employee('gemini') }, { failure: 'cli_missing', message: "'gemini' was not found" });
  assert.deepEqual(missing, {
    content:
      "Worker run tr_1 of virtual (checker) could not run: Gemini CLI is not installed ('gemini' was not found). Install it with npm install -g @google/gemini-cli, " +
      'or set its path in Settings (agent.executables.gemini). Nothing was passed to the agent; dispatch the task again once this is fixed.',
    fix: 'npm install -g @google/gemini-cli',
  });
  const login = setupNote({ runId: 'tr_2', employee: employee('claude') }, { failure: 'auth', message: 'Not logged in · Please run /login' });
  assert.deepEqual(login, {
    content:
      'Worker run tr_2 of virtual (checker) could not run (Not logged in · Please run /login): Claude Code is installed but not logged in: run claude in a terminal and log in with /login, ' +
      'or set ANTHROPIC_API_KEY in Settings (agent.env). Nothing was passed to the agent; dispatch the task again once this is fixed.',
    fix: 'claude',
  });
  // the user's own command has no login svc knows of: the failure's own words
  assert.match(setupNote({ runId: 'tr_3', employee: employee('custom') }, { failure: 'auth', message: '401' }).content, /^Worker run tr_3 of virtual \(checker\) could not run: Custom command refused the credentials it was given/);
});

describe('worker results (fake CLIs)', () => {
  let server: AgentTestServer;
  let session: string;
  let home: string;
  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'svc-worker-setup-'));
    server = await startAgentServer();
    session = (await call(server, 'POST', '/api/chat-sessions', { title: 'workers' })).body.session.id;
  });
  after(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });
  const messages = async () => (await call(server, 'GET', `/api/messages?sessionId=${session}&limit=200`)).body.messages as { role: string; content: string; meta?: Record<string, unknown> }[];
  const dispatch = (provider: string, task: string) =>
    call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: { name: 'checker', role: 'checks', provider, model: '', instructions: '', capability: 'mutable' }, task, wait: true });
  const noted = (runId: string) => waitFor(async () => (await messages()).find((m) => m.meta?.runId === runId), `the note of ${runId}`);

  test('a worker whose CLI is missing: a note with the install command in its chat, and no run of the main agent', async () => {
    const events = record(server);
    server.app.services.settings.update({ agent: { executables: { gemini: '/nonexistent/gemini' } } });
    const run = (await dispatch('gemini', 'check the build')).body;
    assert.deepEqual([run.status, run.reason], ['failed', "cli_missing: '/nonexistent/gemini' was not found"]);
    const note = await noted(run.runId);
    assert.equal(note.role, 'system');
    assert.match(note.content, new RegExp(`^Worker run ${run.runId} of virtual \\(checker\\) could not run: Gemini CLI is not installed .*Install it with npm install -g @google/gemini-cli.* Nothing was passed to the agent`));
    assert.deepEqual(note.meta, { kind: 'worker_result', runId: run.runId, employeeId: 'virtual', status: 'failed', failure: 'cli_missing', fix: 'npm install -g @google/gemini-cli' });
    assert.ok((await call(server, 'GET', `/api/orchestrate/worker-runs/${run.runId}`)).body.deliveredAt, 'delivered once, as the note');
    const done = events.filter((e) => e.name === 'orchestrate_done' && e.payload.runId === run.runId);
    assert.deepEqual(done.map((e) => e.payload.noted), [true]);
    // nothing was given to the main agent
    assert.ok(!(await messages()).some((m) => m.role === 'user'), 'no [worker result] turn');
    assert.ok(!events.some((e) => e.name === 'new_message' || e.name === 'agent_status'), 'no run started');
    assert.equal((await call(server, 'GET', '/api/runtime')).body.agent.busy, false);
  });

  test('a codex worker svc finds no login for: never started, a note with the login command, no run', async () => {
    const events = record(server);
    server.app.services.settings.update({ agent: { env: { HOME: home, CODEX_HOME: join(home, '.codex'), CODEX_API_KEY: '', OPENAI_API_KEY: '' }, workingDir: home } });
    try {
      const run = (await dispatch('codex', 'review the diff')).body;
      assert.equal(run.status, 'failed');
      assert.match(run.reason, /^auth: svc found no OPENAI_API_KEY or CODEX_API_KEY/);
      assert.ok(!server.invocations().some((i) => i.provider === 'codex'), 'codex never started');
      const note = await noted(run.runId);
      assert.match(note.content, /could not run \(svc found no OPENAI_API_KEY .*\): Codex CLI is installed but not logged in: run codex login in a terminal and sign in/);
      assert.equal(note.meta?.fix, 'codex login');
      assert.ok(!events.some((e) => e.name === 'new_message' || e.name === 'agent_status'), 'no run started');
    } finally {
      server.app.services.settings.update({ agent: { env: { HOME: null, CODEX_HOME: null, CODEX_API_KEY: 'fake-codex-key', OPENAI_API_KEY: null }, workingDir: '' } });
    }
  });

  test("any other failure is still the agent's turn: a [worker result] message it runs", async () => {
    // fail:claude makes the fake Claude Code answer with its usage limit
    const run = (await dispatch('claude', 'summarize fail:claude')).body;
    assert.deepEqual([run.status, run.reason.split(':')[0]], ['failed', 'rate_limit']);
    const turn = await waitFor(async () => (await messages()).find((m) => m.role === 'user' && m.content.startsWith(`[worker result] Run ${run.runId}`)), 'the turn');
    assert.match(turn.content, /ended: failed \(rate_limit: /);
  });
});
