// What a run that does not answer leaves behind: a readable reason (never a raw failure code) with
// the one command that fixes it, on the stream, on the event and as a saved record in the
// conversation; retry chatter that does not keep a stuck CLI alive; a full queue refused plainly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';
import { getJson } from '../../support/server.ts';

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  for (const start = Date.now(); !(await check()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}

async function history(server: AgentTestServer) {
  return (await getJson(`${server.url}/api/messages`)).body.messages as { id: number; role: string; content: string; meta?: Record<string, any> }[];
}

test('a missing CLI: the reason is a sentence with the install command, and the chat keeps a record of it', async (t) => {
  const server = await startAgentServer({ provider: 'gemini', executables: { gemini: '/nonexistent/gemini' } });
  t.after(() => server.close());
  const sse = await openSse(`${server.url}/api/events`);
  t.after(() => sse.close());
  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello there' })).done).at(-1);
  assert.equal(done.status, 'error');
  assert.equal(done.failure, 'cli_missing');
  assert.equal(done.fix, 'npm install -g @google/gemini-cli');
  assert.doesNotMatch(done.reason, /cli_missing|`/, 'no raw code, no Markdown');
  const record = (await history(server)).at(-1)!;
  assert.equal(record.id, done.messageId, 'the stream names the saved record');
  assert.equal(record.role, 'system');
  assert.equal(record.content, done.reason);
  assert.equal(record.meta?.status, 'error');
  assert.equal(record.meta?.failure, 'cli_missing');
  assert.equal(record.meta?.fix, 'npm install -g @google/gemini-cli');
  assert.equal(record.meta?.traceId, done.traceId);
  const event = sse.messages.map((m) => m.data).find((d) => d.event === 'agent_done')!;
  assert.equal(event.error, done.reason);
  assert.equal(event.messageId, record.id);
});

test('"Please run /login" is explained in svc\'s terms: log in with the CLI, or give a key', async (t) => {
  const server = await startAgentServer({ provider: 'claude', retries: 0 });
  t.after(() => server.close());
  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hi scenario:notloggedin' })).done).at(-1);
  assert.equal(done.status, 'error');
  assert.equal(done.failure, 'auth');
  assert.equal(done.fix, 'claude');
  assert.match(done.reason, /^Claude Code is not logged in or its key was refused \(Claude Code said: Not logged in · Please run \/login\)\. Run claude in a terminal and log in with \/login, or set ANTHROPIC_API_KEY in Settings \(agent\.env\)\.$/);
  assert.equal((await history(server)).at(-1)!.content, done.reason);
});

test('a run stopped before it answered leaves a record; an answer cut short is saved with its status', async (t) => {
  const server = await startAgentServer({ provider: 'claude' });
  t.after(() => server.close());
  const hung = await postNdjson(`${server.url}/api/message`, { prompt: 'wait hang' });
  await until(async () => (await getJson(`${server.url}/api/runtime`)).body.agent.busy, 'the run to start');
  await postNdjson(`${server.url}/api/command`, { text: '/stop' });
  const done = (await hung.done).at(-1);
  assert.equal(done.status, 'stopped');
  const record = (await history(server)).at(-1)!;
  assert.equal(record.id, done.messageId);
  assert.equal(record.role, 'system');
  assert.equal(record.content, 'Stopped before Claude Code answered: stopped by user.');
  assert.equal(record.meta?.status, 'stopped');

  const ok = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'run the tool scenario:tool' })).done).at(-1);
  const answer = (await history(server)).at(-1)!;
  assert.equal(answer.id, ok.messageId);
  assert.equal(answer.role, 'assistant');
  assert.equal(answer.meta?.status, 'ok');
  assert.equal(answer.meta?.provider, 'claude');
  assert.ok(answer.meta?.durationMs > 0, 'the duration is saved with the answer');
  assert.deepEqual(answer.meta?.steps.map((s: { name: string; summary: string }) => [s.name, s.summary]), [['Bash', 'echo hello-from-tool']]);
});

test('a CLI that only says it is retrying (codex waiting for the network) reports it, and the watchdog still ends it', async (t) => {
  const server = await startAgentServer({ provider: 'codex', idleTimeoutSec: 1, retries: 0 });
  t.after(() => server.close());
  const sse = await openSse(`${server.url}/api/events`);
  t.after(() => sse.close());
  const started = Date.now();
  // the recording prints "Reconnecting... waiting for network" every 200 ms, forever
  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hi scenario:network-down delay:200 loop' })).done).at(-1);
  assert.equal(done.status, 'error');
  assert.equal(done.failure, 'timeout');
  assert.ok(Date.now() - started < 8000, 'ended by the idle watchdog, not by the maximum run time');
  const retries = sse.messages.map((m) => m.data).filter((d) => d.event === 'agent_retry');
  assert.ok(retries.length >= 3, `the waits are reported (${retries.length})`);
  assert.match(retries[0].reason, /^Codex CLI is retrying on its own: waiting for the network: Connection failed/);
  assert.deepEqual(retries.slice(0, 3).map((r) => r.attempt), [1, 2, 3]);
});

test('a CLI that waits for the network longer than svc allows fails as network unreachable, with what to check; svc does not retry it', async (t) => {
  // the idle watchdog is far off: only the bound on waiting for the network can end the run this soon
  const server = await startAgentServer({ provider: 'codex', idleTimeoutSec: 30, retries: 1 }, { networkWaitMs: 300 });
  t.after(() => server.close());
  const sse = await openSse(`${server.url}/api/events`);
  t.after(() => sse.close());
  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hi scenario:network-down delay:50 loop' })).done).at(-1);
  assert.equal(done.status, 'error');
  assert.equal(done.failure, 'network');
  assert.equal(
    done.reason,
    'Codex CLI cannot reach its model service: the network is unreachable (no connection for 300 ms; waiting for the network: Connection failed: error sending request). ' +
      "Check the internet connection, a proxy or VPN, and the model endpoint in Codex CLI's own configuration, then send the message again (a proxy is set as HTTPS_PROXY in Settings (agent.env)).",
  );
  assert.equal((await history(server)).at(-1)!.content, done.reason, 'the chat keeps the reason');
  assert.equal(server.invocations().length, 1, 'not retried: another try would wait for the same network');
  const retries = sse.messages.map((m) => m.data).filter((d) => d.event === 'agent_retry');
  assert.ok(retries.length > 0 && retries.every((r) => r.failure === undefined), 'only the CLI\'s own waits were reported');
});

test('a codex svc finds no login for is refused at once with the login command, never started; a fallback provider answers instead', async (t) => {
  // no key and no login file anywhere this codex would look (the server's own HOME and variables left out)
  const home = mkdtempSync(join(tmpdir(), 'svc-nologin-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, CODEX_HOME: join(home, '.codex'), CODEX_API_KEY: '', OPENAI_API_KEY: '' };
  const server = await startAgentServer({ provider: 'codex', retries: 1, workingDir: home, env });
  t.after(() => server.close());
  const sse = await openSse(`${server.url}/api/events`);
  t.after(() => sse.close());
  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello' })).done).at(-1);
  assert.equal(done.status, 'error');
  assert.equal(done.failure, 'auth');
  assert.equal(done.fix, 'codex login');
  assert.equal(
    done.reason,
    'Codex CLI is not logged in: svc found no OPENAI_API_KEY or CODEX_API_KEY in the environment of runs and no $CODEX_HOME/auth.json or ~/.codex/auth.json. ' +
      'Run codex login in a terminal and sign in, or set OPENAI_API_KEY in Settings (agent.env).',
  );
  const record = (await history(server)).at(-1)!;
  assert.deepEqual([record.role, record.content, record.meta?.failure, record.meta?.fix], ['system', done.reason, 'auth', 'codex login']);
  assert.deepEqual(server.invocations(), [], 'codex never started');
  assert.ok(!sse.messages.some((m) => m.data.event === 'agent_retry'), 'a missing login is not retried');

  // like a missing CLI, it goes straight to the next provider of the chain
  server.app.services.settings.update({ agent: { fallback: ['claude'] } });
  const answer = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello again' })).done).at(-1);
  assert.equal(answer.status, 'ok');
  assert.equal((await history(server)).at(-1)!.meta?.provider, 'claude');
  const fallback = sse.messages.map((m) => m.data).find((d) => d.event === 'agent_fallback');
  assert.deepEqual([fallback.from, fallback.to], ['codex', 'claude']);
  assert.match(fallback.reason, /^Codex CLI is not logged in: svc found no OPENAI_API_KEY/);
  assert.deepEqual(server.invocations().map((i) => i.provider), ['claude']);
});

test('with 100 messages waiting, the next one is refused with 429 QUEUE_FULL before any stream opens', async (t) => {
  const server = await startAgentServer({ provider: 'claude' });
  t.after(async () => {
    await postNdjson(`${server.url}/api/command`, { text: '/stop' });
    await server.close();
  });
  await postNdjson(`${server.url}/api/message`, { prompt: 'busy hang' });
  const queued = await Promise.all(Array.from({ length: 100 }, (_, i) => postNdjson(`${server.url}/api/message`, { prompt: `queued ${i}` })));
  assert.ok(queued.every((q) => q.status === 200));
  const refused = await fetch(`${server.url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'one too many' }), signal: AbortSignal.timeout(5000) });
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('content-type')?.split(';')[0], 'application/json');
  assert.equal((await refused.json()).error, 'QUEUE_FULL');
});
