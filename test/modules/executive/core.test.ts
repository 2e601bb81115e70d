// The executive of a core server: it sees only itself, sends to its own agent and watches that
// request, never starts or stops itself, and writes its audit to the security audit log too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { findMessage, until } from '../dashboard/helpers.ts';

test('a core server\'s executive: itself only, completions from its own runs, no lifecycle, audit in the security log', async () => {
  const server = await startAgentServer();
  try {
    const base = `${server.url}/api/svc-ceo`;
    const events = await openSse(`${base}/events`);
    const instances = (await getJson(`${base}/instances`)).body.instances;
    assert.deepEqual(instances.map((i: any) => [i.id, i.owned]), [['self', false]]);
    const sent = await sendJson(`${base}/send`, 'POST', { instanceId: 'self', text: 'do it scenario:text' });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const done = await until(async () => (await getJson(`${base}/pending`)).body.pending.find((c: any) => c.watchId === sent.body.watch.id), 'the completion');
    assert.equal(done.requestId, sent.body.requestId);
    assert.equal(done.instanceId, 'self');
    const completed = await findMessage(events, (d) => d.event === 'ceo_completion' && d.key === done.key, 'the completion event');
    assert.match(completed.id!, /^[0-9a-f]+-\d+$/, "the core's event ids");
    await findMessage(events, (d) => d.event === 'ceo_watch' && d.status === 'completed', 'the watch ended event');
    assert.ok(events.messages.every((m) => String(m.data.event).startsWith('ceo_')), 'only the executive\'s events');
    events.close();
    const messages = (await getJson(`${server.url}/api/messages?limit=5`)).body.messages;
    assert.ok(messages.some((m: any) => m.role === 'user' && m.content === 'do it scenario:text'), 'sent to its own chat');

    assert.equal((await sendJson(`${base}/send`, 'POST', { instanceId: 'other', text: 'x' })).status, 404);
    const conf = await sendJson(`${base}/confirmations`, 'POST', { action: 'stop', instanceId: 'self' });
    assert.equal(conf.status, 409, 'an instance does not stop itself');
    assert.equal((await getJson(`${base}/state`)).body.scope, 'instance');

    const entries = (await getJson(`${server.url}/api/security-audit/entries?limit=100`)).body;
    const actions = JSON.stringify(entries);
    assert.match(actions, /ceo\.send_message/);
    assert.match(actions, /ceo\.detected/);
  } finally {
    await server.close();
  }
});
