// The board: CRUD, moves between lanes, and an item made from an instance's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, ask } from './helpers.ts';

test('board items: create, move, edit, delete, and one made from a message', async () => {
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  try {
    const base = `${manager.url}/api/dashboard/board/items`;
    const a = (await sendJson(base, 'POST', { title: 'Write the plan' })).body;
    const b = (await sendJson(base, 'POST', { title: 'Review it', lane: 'ready' })).body;
    assert.equal(a.lane, 'backlog');
    assert.equal(a.source, 'user');
    assert.equal((await sendJson(base, 'POST', { title: '  ' })).status, 400);
    assert.equal((await sendJson(base, 'POST', { title: 'x', lane: 'doing' })).status, 400);
    const moved = (await sendJson(`${base}/${a.id}`, 'PATCH', { lane: 'ready' })).body;
    assert.equal(moved.lane, 'ready');
    assert.ok(moved.position > b.position, 'a move goes to the end of the lane');
    assert.equal((await sendJson(`${base}/${b.id}`, 'PATCH', { detail: 'carefully' })).body.detail, 'carefully');
    assert.equal((await getJson(`${base}/${b.id}`, { method: 'DELETE' })).body.deleted, b.id);
    assert.deepEqual((await getJson(base)).body.items.map((i: any) => i.id), [a.id]);
    assert.equal((await sendJson(`${base}/nope`, 'PATCH', { lane: 'done' })).status, 404);

    const token = instance.app.services.token;
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token })).body.id;
    await ask(instance.url, token, 'make a task scenario:text');
    const page = (await getJson(`${instance.url}/api/messages`, { headers: { authorization: `Bearer ${token}` } })).body;
    const answer = page.messages.find((m: any) => m.role === 'assistant');
    const fromMessage = await sendJson(`${base}/from-message`, 'POST', { instanceId: id, messageId: answer.id, lane: 'active' });
    assert.equal(fromMessage.status, 201, JSON.stringify(fromMessage.body));
    assert.equal(fromMessage.body.source, 'message');
    assert.equal(fromMessage.body.detail, answer.content);
    assert.equal(fromMessage.body.messageId, answer.id);
    assert.equal(fromMessage.body.sessionId, page.sessionId);
    assert.equal(fromMessage.body.instanceId, id);
    assert.equal((await sendJson(`${base}/from-message`, 'POST', { instanceId: 'inst_000000000000', messageId: 1 })).status, 404);
    // the instance's own 404 (its session is unknown) comes back as the instance said it, not as a 502
    const unknownSession = await sendJson(`${base}/from-message`, 'POST', { instanceId: id, sessionId: 'ses_nope', messageId: 1 });
    assert.equal(unknownSession.status, 404, JSON.stringify(unknownSession.body));
    assert.equal(unknownSession.body.error, 'NOT_FOUND');
    assert.match(unknownSession.body.message, /ses_nope/);
  } finally {
    await manager.close();
    await instance.close();
  }
});
