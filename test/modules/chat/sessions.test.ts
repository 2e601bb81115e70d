// Chat sessions beyond create and switch: the title the first message gives, rename, delete.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { openSse } from '../../support/sse.ts';
import { getJson, sendJson } from '../../support/server.ts';

describe('chat sessions: titles, rename, delete', () => {
  let server: AgentTestServer;
  before(async () => {
    server = await startAgentServer();
  });
  after(() => server.close());

  const sessions = async () => (await getJson(`${server.url}/api/chat-sessions`)).body as { activeId: string; sessions: { id: string; title: string; active: boolean }[] };
  const create = async (title?: string) => (await sendJson(`${server.url}/api/chat-sessions`, 'POST', title ? { title } : {})).body.session.id as string;
  const del = (id: string) => getJson(`${server.url}/api/chat-sessions/${id}`, { method: 'DELETE' });

  test('the first message names a new chat; later messages and named chats keep their title', async () => {
    const id = await create();
    const sse = await openSse(`${server.url}/api/events`);
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: '  Plan a   trip to Lisbon\nwith a day in Sintra scenario:text' });
    await stream.done;
    const listed = sse.messages.map((m) => m.data).find((d) => d.event === 'session_list' && d.sessions.some((s: any) => s.id === id && s.title !== 'New chat'));
    assert.ok(listed, 'a session_list event carries the new title');
    sse.close();
    assert.equal((await sessions()).sessions.find((s) => s.id === id)!.title, 'Plan a trip to Lisbon');
    await (await postNdjson(`${server.url}/api/message`, { prompt: 'second message scenario:text' })).done;
    assert.equal((await sessions()).sessions.find((s) => s.id === id)!.title, 'Plan a trip to Lisbon');

    const named = await create('My own name');
    await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello scenario:text' })).done;
    assert.equal((await sessions()).sessions.find((s) => s.id === named)!.title, 'My own name');
  });

  test('rename: PATCH sets the title and publishes the list; bad titles and unknown ids are refused', async () => {
    const id = await create('Before');
    const sse = await openSse(`${server.url}/api/events`);
    const renamed = await sendJson(`${server.url}/api/chat-sessions/${id}`, 'PATCH', { title: '  After  ' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.session.title, 'After');
    const [event] = await sse.waitFor(1);
    sse.close();
    assert.equal(event!.data.event, 'session_list');
    assert.equal(event!.data.sessions.find((s: any) => s.id === id).title, 'After');
    for (const body of [{ title: '   ' }, { title: 'x'.repeat(201) }, { title: 7 }, {}, { title: 'ok', extra: 1 }]) {
      const refused = await sendJson(`${server.url}/api/chat-sessions/${id}`, 'PATCH', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error, 'VALIDATION_FAILED');
    }
    assert.equal((await sendJson(`${server.url}/api/chat-sessions/ses_nope`, 'PATCH', { title: 'x' })).status, 404);
    assert.equal((await sessions()).sessions.find((s) => s.id === id)!.title, 'After', 'nothing changed by the refused ones');
  });

  test('delete a session that is not active: it and its messages are gone, the active one stays', async () => {
    const keep = (await sessions()).activeId;
    const gone = await create('Doomed');
    await sendJson(`${server.url}/api/chat-sessions/${keep}/switch`, 'POST', {});
    const other = server.app.services.chat;
    other.saveMessage({ sessionId: gone, role: 'user', content: 'a unique zebracorn word' });
    assert.equal((await getJson(`${server.url}/api/messages/search?q=zebracorn`)).body.results.length, 1);
    const sse = await openSse(`${server.url}/api/events`);
    const answer = await del(gone);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { deleted: gone, activeId: keep });
    const events = await sse.waitFor(2);
    sse.close();
    assert.deepEqual(events.map((e) => e.data.event), ['session_deleted', 'session_list']);
    assert.equal(events[0]!.data.sessionId, gone);
    assert.ok(!(await sessions()).sessions.some((s) => s.id === gone));
    assert.equal((await getJson(`${server.url}/api/messages/search?q=zebracorn`)).body.results.length, 0, 'its messages are gone');
    assert.equal((await getJson(`${server.url}/api/messages?sessionId=${gone}`)).status, 404);
    assert.equal((await del(gone)).status, 404, 'deleting twice');
  });

  test('delete the active session while it runs: the run is stopped, another session becomes active', async () => {
    const older = await create('Older');
    const running = await create('Running');
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'long one scenario:text delay:300' });
    await stream.waitFor((l) => l.type === 'text', 15_000);
    const sse = await openSse(`${server.url}/api/events`);
    const answer = await del(running);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.activeId, older, 'the most recently used other session');
    const done = (await stream.done).at(-1);
    assert.equal(done.status, 'stopped');
    assert.match(done.reason, /deleted/);
    for (const start = Date.now(); !sse.messages.some((e) => e.data.event === 'session_switched'); await new Promise((r) => setTimeout(r, 20))) {
      assert.ok(Date.now() - start < 5000, 'no session_switched event');
    }
    sse.close();
    assert.equal(sse.messages.find((e) => e.data.event === 'session_switched')!.data.sessionId, older);
    assert.equal((await sessions()).activeId, older);
    assert.equal((await getJson(`${server.url}/api/runtime`)).body.agent.busy, false);
  });

  test('clear mid-run: the run stops and its partial answer is not saved into the emptied session', async () => {
    await create('Cleared');
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'long one scenario:text delay:300' });
    await stream.waitFor((l) => l.type === 'text', 15_000);
    const cleared = await sendJson(`${server.url}/api/clear`, 'POST', {});
    assert.equal(cleared.status, 200);
    const done = (await stream.done).at(-1);
    assert.equal(done.status, 'stopped');
    assert.equal(done.messageId, undefined);
    assert.equal((await getJson(`${server.url}/api/messages/count`)).body.count, 0, 'the session stays empty');
  });

  test('deleting the last session leaves a fresh empty one active', async () => {
    for (const s of (await sessions()).sessions) assert.equal((await del(s.id)).status, 200);
    const after = await sessions();
    assert.equal(after.sessions.length, 1);
    assert.equal(after.sessions[0]!.title, 'New chat');
    assert.equal(after.activeId, after.sessions[0]!.id);
    assert.equal((await getJson(`${server.url}/api/messages/count`)).body.count, 0);
  });
});
