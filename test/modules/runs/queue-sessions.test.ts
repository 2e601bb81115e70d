// The chat's "N queued" with two chat sessions: svc runs one turn at a time for all of them, but another
// session's wakeup waiting behind the run is not queued in the chat shown. What the chat reads is
// `pending` of queue_update and of GET /api/runtime; `total` and `sessions` say the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';
import { getJson, sendJson } from '../../support/server.ts';

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (const start = Date.now(); !(await check()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}

test("another chat session's wakeup waiting behind the run is not queued in the chat shown; switching shows that session's count", async (t) => {
  const server = await startAgentServer({ provider: 'claude' });
  const sse = await openSse(`${server.url}/api/events`);
  const events = () => sse.messages.map((m) => m.data);
  const lastQueue = () => events().filter((d) => d.event === 'queue_update').at(-1);
  const mine = server.app.services.chat.activeSession().id;
  const other = (await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: 'other', activate: false })).body.session.id as string;

  // the shown chat's run goes on; the other chat's wakeup comes due and waits behind it
  const running = await postNdjson(`${server.url}/api/message`, { prompt: 'busy hang' });
  t.after(async () => {
    sse.close();
    await postNdjson(`${server.url}/api/command`, { text: '/stop' });
    await running.done;
    await server.close();
  });
  await until(async () => (await getJson(`${server.url}/api/runtime`)).body.agent.busy, 'the run to start');
  assert.equal((await sendJson(`${server.url}/api/wakeup`, 'POST', { sessionId: other, delaySeconds: 1, prompt: 'wake up and check the build' })).status, 201);
  await until(() => lastQueue()?.total === 1, 'the wakeup to wait in the queue');
  assert.deepEqual(lastQueue(), { ...lastQueue(), pending: 0, total: 1, sessions: { [other]: 1 }, active: true }, 'nothing is queued in the chat shown');
  assert.equal((await getJson(`${server.url}/api/runtime`)).body.agent.pending, 0);

  // a message of the shown chat waits: one queued there, not two
  await postNdjson(`${server.url}/api/message`, { prompt: 'and then this' });
  await until(() => lastQueue()?.total === 2, 'the message to wait');
  assert.deepEqual([lastQueue().pending, lastQueue().sessions], [1, { [other]: 1, [mine]: 1 }]);
  const runtime = (await getJson(`${server.url}/api/runtime`)).body.agent;
  assert.deepEqual([runtime.pending, runtime.total, runtime.sessions], [1, 2, { [other]: 1, [mine]: 1 }]);

  // the other chat shown: its count, told after the switch
  const before = events().length;
  assert.equal((await sendJson(`${server.url}/api/chat-sessions/${other}/switch`, 'POST', {})).status, 200);
  await until(() => events().slice(before).some((d) => d.event === 'queue_update'), 'the count of the chat now shown');
  const after = events().slice(before).filter((d) => d.event === 'session_switched' || d.event === 'queue_update');
  assert.deepEqual(after.map((d) => [d.event, d.pending]), [['session_switched', undefined], ['queue_update', 1]]);
});
