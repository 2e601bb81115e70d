import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';
import { getJson, sendJson } from '../../support/server.ts';

describe('slash commands', () => {
  let server: AgentTestServer;
  before(async () => {
    server = await startAgentServer();
  });
  after(() => server.close());

  const run = async (text: string) => (await postNdjson(`${server.url}/api/command`, { text })).done;
  const answer = async (text: string) => {
    const lines = await run(text);
    assert.equal(lines.at(-1).type, 'done');
    return { text: lines.filter((l) => l.type === 'text').map((l) => l.content).join(''), status: lines.at(-1).status };
  };

  test('GET /api/commands lists every command with its usage', async () => {
    const { body } = await getJson(`${server.url}/api/commands`);
    const names = body.commands.map((c: any) => c.name);
    for (const name of ['help', 'cli', 'model', 'fallback', 'stop', 'clear', 'reset', 'status', 'steer', 'sessions', 'new']) {
      assert.ok(names.includes(name), name);
    }
    assert.ok(body.commands.every((c: any) => c.usage.startsWith(`/${c.name}`) && c.description));
  });

  test('/help, /cli, /model, /fallback change and show the settings', async () => {
    assert.match((await answer('/help')).text, /\/steer <text>/);
    assert.match((await answer('/help steer')).text, /Redirect the running agent/);
    assert.equal((await answer('/cli codex')).status, 'ok');
    assert.equal(server.app.services.settings.get().agent.provider, 'codex');
    await answer('/model gpt-5.5');
    assert.equal(server.app.services.settings.get().agent.model, 'gpt-5.5');
    assert.match((await answer('/model')).text, /gpt-5\.5/);
    await answer('/fallback gemini claude');
    assert.deepEqual(server.app.services.settings.get().agent.fallback, ['gemini', 'claude']);
    assert.match((await answer('/status')).text, /provider: codex \(model gpt-5\.5\)\nfallback: gemini → claude\nagent: idle, 0 queued/);
    await answer('/fallback off');
    assert.deepEqual(server.app.services.settings.get().agent.fallback, []);
    await answer('/cli claude');
    assert.equal(server.app.services.settings.get().agent.model, '', 'switching provider resets the model');
  });

  test('bad commands are 400s with the JSON error body, before any streaming', async () => {
    for (const [text, code] of [['/nope', 'UNKNOWN_COMMAND'], ['hello', 'NOT_A_COMMAND'], ['/cli nonsense', 'UNKNOWN_PROVIDER'], ['/steer', 'INVALID_COMMAND_ARGS']]) {
      const response = await sendJson(`${server.url}/api/command`, 'POST', { text });
      assert.equal(response.status, 400, text);
      assert.equal(response.body.error, code, text);
    }
    const idle = await sendJson(`${server.url}/api/command`, 'POST', { text: '/steer go left' });
    assert.equal(idle.status, 409);
    assert.equal(idle.body.error, 'NOT_RUNNING');
  });

  test('/new, /sessions, /clear and /reset', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    assert.match((await answer('/new Project X')).text, /switched to new session Project X/);
    const sessionId = server.app.services.chat.activeSession().id;
    assert.match((await answer('/sessions')).text, new RegExp(`\\* ${sessionId}  Project X`));
    await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello scenario:text' })).done;
    assert.equal(server.app.services.providerSessions.get(sessionId, 'claude') !== undefined, true);
    assert.match((await answer('/reset')).text, /fresh provider session/);
    assert.equal(server.app.services.providerSessions.get(sessionId, 'claude'), undefined);
    assert.equal((await getJson(`${server.url}/api/messages/count`)).body.count, 2);
    assert.match((await answer('/clear')).text, /cleared 2 message/);
    assert.equal((await getJson(`${server.url}/api/messages/count`)).body.count, 0);
    await sse.waitFor(1);
    assert.ok(sse.messages.some((m) => m.data.event === 'chat_cleared' && m.data.sessionId === sessionId));
    assert.ok(sse.messages.some((m) => m.data.event === 'session_reset' && m.data.sessionId === sessionId));
    sse.close();
  });

  test('POST /api/clear, /api/session/reset and /api/stop answer JSON', async () => {
    assert.deepEqual((await sendJson(`${server.url}/api/stop`, 'POST', {})).body, { stopped: false, cleared: 0 });
    assert.equal((await sendJson(`${server.url}/api/session/reset`, 'POST', {})).body.reset, true);
    assert.equal((await sendJson(`${server.url}/api/clear`, 'POST', {})).body.deleted, 0);
    assert.equal((await sendJson(`${server.url}/api/stop`, 'POST', { force: 1 })).status, 400);
  });
});

describe('steer', () => {
  test('interrupt and resume: the steer prompt continues the same provider session', async (t) => {
    const server = await startAgentServer({ provider: 'codex' });
    const sse = await openSse(`${server.url}/api/events`);
    t.after(async () => {
      sse.close();
      await server.close();
    });
    const first = await postNdjson(`${server.url}/api/message`, { prompt: 'write a poem scenario:text delay:300' });
    await first.waitFor((l) => l.type === 'text', 10_000);
    const firstCall = server.invocations().at(-1)!;
    const steer = await postNdjson(`${server.url}/api/command`, { text: '/steer make it about the sea' });
    const [firstLines, steerLines] = await Promise.all([first.done, steer.done]);
    assert.equal(firstLines.at(-1).status, 'stopped');
    assert.equal(firstLines.at(-1).reason, 'steered');
    assert.equal(steerLines.at(-1).type, 'done');
    assert.equal(steerLines.at(-1).status, 'ok');
    const steered = server.invocations().at(-1)!;
    assert.equal(steered.prompt, 'make it about the sea');
    assert.ok(steered.resume, 'resumes');
    assert.equal(steered.file, 'codex-text', 'the same provider session, known to the CLI');
    assert.notEqual(steered.pid, firstCall.pid);
    const started = sse.messages.find((m) => m.data.event === 'steer_started')!.data;
    assert.equal(started.prompt, 'make it about the sea');
    const history = (await getJson(`${server.url}/api/messages`)).body.messages.map((m: any) => [m.role, m.content]);
    assert.deepEqual(history.find((h: any) => h[1] === 'make it about the sea'), ['user', 'make it about the sea']);
  });
});
