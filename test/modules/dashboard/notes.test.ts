// Connector notes: an instance's agent leaves a note through the manager only with the credential
// the manager issued to that instance; the note is stored as the agent's of that instance, audited,
// announced on the manager's stream and listed (all, or per instance).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { startManager, findMessage } from './helpers.ts';

test('notes need the instance\'s connector credential, are stored as its agent\'s, audited and listed', async () => {
  const [a, b] = [await startServer(), await startServer()];
  const manager = await startManager();
  const sse = await openSse(`${manager.url}/api/events`);
  try {
    const add = async (instance: typeof a, label: string) =>
      (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token, label })).body.id as string;
    const idA = await add(a, 'alpha');
    const idB = await add(b, 'beta');
    const note = (credential: string | undefined, body: unknown) =>
      getJson(`${manager.url}/api/dashboard/connectors/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(credential ? { 'x-svc-connector': credential } : {}) },
        body: JSON.stringify(body),
      });

    const without = await note(undefined, { body: 'no credential' });
    assert.equal(without.status, 401);
    assert.equal(without.body.error, 'UNAUTHORIZED');
    assert.match(without.body.message, /X-Svc-Connector/);
    assert.equal((await note('svcc_made_up', { body: 'forged' })).status, 401);
    // an instance's token is not a connector credential
    assert.equal((await note(a.app.services.token, { body: 'with the instance token' })).status, 401);

    const credA = (await sendJson(`${manager.url}/api/dashboard/connectors/credentials`, 'POST', { instanceId: idA })).body.credential as string;
    const credB = (await sendJson(`${manager.url}/api/dashboard/connectors/credentials`, 'POST', { instanceId: idB })).body.credential as string;
    const item = (await sendJson(`${manager.url}/api/dashboard/board/items`, 'POST', { title: 'Release 2.1' })).body;

    const made = await note(credA, { body: 'Tests pass on main.\nThe flaky one was a timeout.', boardItemId: item.id });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual({ ...made.body, id: 0, createdAt: 0 }, { id: 0, instanceId: idA, author: 'agent', title: 'Tests pass on main.', body: 'Tests pass on main.\nThe flaky one was a timeout.', boardItemId: item.id, createdAt: 0 });
    await findMessage(sse, (d) => d.event === 'dashboard_activity' && d.kind === 'note' && d.instanceId === idA, 'the note on the manager\'s stream');
    const byB = await note(credB, { title: 'Disk', body: 'The disk is 91 % full.' });
    assert.equal(byB.body.instanceId, idB, 'the credential decides whose agent wrote it, whatever the body says');

    assert.equal((await note(credA, { body: 'about nothing', boardItemId: 'item_nope' })).status, 404);
    assert.equal((await note(credA, { body: '' })).status, 400);
    assert.equal((await note(credA, { body: 'x'.repeat(20_001) })).status, 400);
    assert.equal((await note(credA, { body: 'x', instanceId: idB })).status, 400, 'an agent cannot name another instance');

    const all = (await getJson(`${manager.url}/api/dashboard/connectors/notes`)).body.notes;
    assert.deepEqual(all.map((n: any) => [n.instanceId, n.title]), [[idB, 'Disk'], [idA, 'Tests pass on main.']]);
    const ofA = (await getJson(`${manager.url}/api/dashboard/connectors/notes?instanceId=${idA}`)).body.notes;
    assert.deepEqual(ofA.map((n: any) => n.id), [made.body.id]);

    const audit = (await getJson(`${manager.url}/api/dashboard/connectors/audit`)).body.entries;
    const created = audit.filter((e: any) => e.action === 'note.create');
    assert.deepEqual(created.map((e: any) => [e.instanceId, e.actor, e.targetId]), [[idB, 'agent', String(byB.body.id)], [idA, 'agent', String(made.body.id)]]);

    // a revoked credential writes nothing more
    await getJson(`${manager.url}/api/dashboard/connectors/credentials/${idA}`, { method: 'DELETE' });
    assert.equal((await note(credA, { body: 'after revocation' })).status, 401);
    assert.equal((await getJson(`${manager.url}/api/dashboard/connectors/notes`)).body.notes.length, 2);
  } finally {
    sse.close();
    await manager.close();
    await a.close();
    await b.close();
  }
});
