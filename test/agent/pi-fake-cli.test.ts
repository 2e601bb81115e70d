// Pi through svc's runtime with a fake `pi` replaying the real pi's recordings: plain answer,
// resume with --session, tool call, API error, and a stale session that starts afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FAKE_CLIS, startAgentServer } from '../support/agent.ts';
import { postNdjson } from '../support/ndjson.ts';
import { getJson, sendJson } from '../support/server.ts';

test('pi: answer, resume, tool, error', { timeout: 60_000 }, async (t) => {
  const server = await startAgentServer({ provider: 'pi', executables: { pi: join(FAKE_CLIS, 'pi') }, retries: 0 });
  t.after(() => server.close());
  const send = async (prompt: string) => (await postNdjson(`${server.url}/api/message`, { prompt })).done;

  const first = await send('Hello there. scenario:text');
  assert.equal(first.at(-1).status, 'ok', JSON.stringify(first.at(-1)));
  assert.equal(first.at(-1).text, 'Hello from the fake model. This is a plain text answer.');
  assert.ok(first.filter((l) => l.type === 'text').length >= 4, 'live text');
  const trace = (await getJson(`${server.url}/api/traces/${first.at(-1).traceId}/events?offset=0&limit=200`)).body.events;
  const updates = trace.filter((e: any) => e.event === 'provider_line' && e.line.includes('"message_update"'));
  assert.ok(updates.length >= 4 && updates.every((e: any) => !e.line.includes('"partial"')), 'the trace keeps the streaming events without the repeated message');
  const session = server.app.services.providerSessions.get(server.app.services.chat.activeSession().id, 'pi');
  assert.ok(session);

  const second = await send('Again. scenario:text');
  assert.equal(second.at(-1).status, 'ok');
  const [, resumed] = server.invocations();
  assert.equal(resumed!.resume, session, 'the second run passes --session <id>');

  await sendJson(`${server.url}/api/chat-sessions`, 'POST', {});
  const tool = await send('Run it. scenario:tool');
  assert.ok(tool.some((l) => l.type === 'tool' && l.status === 'ok' && /hello-from-tool/.test(l.output ?? '')), JSON.stringify(tool));
  assert.match(tool.at(-1).text, /Its output was: hello-from-tool/);

  await sendJson(`${server.url}/api/chat-sessions`, 'POST', {});
  const error = (await send('Fail. scenario:error')).at(-1);
  assert.equal(error.status, 'error');
  assert.equal(error.failure, 'server_error');
});
