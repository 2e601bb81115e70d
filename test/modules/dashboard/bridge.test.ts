// The event bridge: an answer in an instance reaches the manager's stream and cache within a second,
// and an instance restart loses and repeats nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { openSse } from '../../support/sse.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, until, findMessage, ask, auth, type TestManager } from './helpers.ts';

test('an answer in an instance shows in the manager stream and cache within a second; a restart repeats and loses nothing', async () => {
  let instance: AgentTestServer | undefined;
  let manager: TestManager | undefined;
  const streams: { close(): void }[] = [];
  try {
    // no loopback trust: the manager must present the instance's token
    instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
    const token = instance.app.services.token;
    manager = await startManager();
    const added = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token })).body;
    const id = added.id as string;
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), 'bridge connected');

    const own = await openSse(`${instance.url}/api/events`, { headers: auth(token) });
    const relayed = await openSse(`${manager.url}/api/events`);
    streams.push(own, relayed);
    await ask(instance.url, token, 'first question scenario:text');
    const direct = await findMessage(own, (d) => d.event === 'message' && d.role === 'assistant', "the instance's own answer event");
    const atInstance = Date.now();
    const viaManager = await findMessage(relayed, (d) => d.event === 'instance_event' && d.instanceId === id && d.name === 'message' && d.data.role === 'assistant', 'the relayed answer', 1000);
    assert.ok(Date.now() - atInstance < 1000);
    assert.equal(viaManager.data.topic, 'dashboard');
    assert.equal(viaManager.data.data.content, direct.data.content);
    assert.equal(viaManager.data.instanceEventId, direct.id, 'the relay carries the instance event id');
    assert.match(viaManager.id!, /^[0-9a-f]+-\d+$/, "the manager's stream has its own ids, in the core's format");

    const latest = (await getJson(`${manager.url}/api/dashboard/instances/${id}/latest`)).body;
    assert.equal(latest.lastAssistant.content, direct.data.content);
    assert.match(latest.lastUser.content, /first question/);
    assert.equal(latest.run.status, 'done');
    assert.equal(latest.run.output, direct.data.content);
    assert.equal(latest.queue.active, false);

    // restart the instance on the same port and home
    const { home, port } = instance;
    await instance.close({ removeHome: false });
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connecting' ? true : undefined), 'bridge notices the drop');
    instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const, home, port } as never);
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), 'bridge reconnected', 15_000);
    await ask(instance.url, token, 'second question scenario:text');
    await findMessage(relayed, (d) => d.event === 'instance_event' && d.name === 'message' && d.data.role === 'user' && /second question/.test(d.data.content), 'the second question relayed');
    await findMessage(relayed, (d) => d.event === 'instance_event' && d.name === 'agent_done', 'second run done');
    const relayedEvents = relayed.messages.filter((m) => m.data.event === 'instance_event').map((m) => m.data);
    const ids = relayedEvents.map((d) => d.instanceEventId);
    assert.equal(new Set(ids).size, ids.length, 'no event is relayed twice');
    const messages = relayedEvents.filter((d) => d.name === 'message').map((d) => `${d.data.role}:${d.data.content.slice(0, 15)}`);
    assert.equal(messages.filter((m) => m.startsWith('user:first')).length, 1);
    assert.equal(messages.filter((m) => m.startsWith('user:second')).length, 1);
    assert.equal(messages.filter((m) => m.startsWith('assistant')).length, 2, 'both answers, once each');
    const after = (await getJson(`${manager.url}/api/dashboard/instances/${id}/latest`)).body;
    assert.match(after.lastUser.content, /second question/);
    assert.ok(after.lastAssistant.id > latest.lastAssistant.id);
  } finally {
    for (const s of streams) s.close();
    await manager?.close();
    await instance?.close();
  }
});

test('a dropped connection resumes with Last-Event-ID: the relayed instance events stay gapless and unique', async () => {
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  const relayed = await openSse(`${manager.url}/api/events`);
  try {
    const token = instance.app.services.token;
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token })).body.id;
    const connected = () => until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), 'bridge connected');
    await connected();
    await ask(instance.url, token, 'before the drop scenario:text');
    for (let n = 0; n < 3; n++) {
      // cut every connection of the instance (the bridge's stream included), then make events at once
      instance.app.http.server.closeAllConnections();
      await ask(instance.url, token, `during drop ${n} scenario:text`);
      await connected();
    }
    await findMessage(relayed, (d) => d.event === 'instance_event' && d.name === 'message' && /during drop 2/.test(d.data.content ?? ''), 'the last prompt relayed');
    await findMessage(relayed, (d) => d.event === 'instance_event' && d.name === 'agent_done' && relayed.messages.filter((m) => m.data.name === 'agent_done').length === 4, 'four runs done');
    const seqs = relayed.messages.filter((m) => m.data.event === 'instance_event').map((m) => Number(m.data.instanceEventId.split('-')[1]));
    const streams = new Set(relayed.messages.filter((m) => m.data.event === 'instance_event').map((m) => m.data.instanceEventId.split('-')[0]));
    assert.equal(streams.size, 1, 'one instance process throughout');
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i), 'every event once, in order, none missing');
  } finally {
    relayed.close();
    await manager.close();
    await instance.close();
  }
});
