// Watches and completions over two real svc instances (fake CLIs) and a manager: a message the
// executive sends is watched by its own request id, its completion is detected once from the
// instance's own agent_done (through the bridge) and attributed to that watch, which ends; a second
// message gets its own watch; runs nobody watches make no completion; all of it survives a restart;
// a run lost when its instance crashes ends its watch once, as a `lost` completion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_CLIS, isAlive, startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, until, ask, type TestManager } from '../dashboard/helpers.ts';

const pendingOf = async (url: string, status = 'pending') => (await getJson(`${url}/api/svc-ceo/pending?status=${status}`)).body.pending as any[];

test('dispatches are watched by request, completed once each, attributed to their own watch, and kept across a manager restart', async () => {
  const instances: AgentTestServer[] = [];
  let manager: TestManager | undefined;
  try {
    for (let i = 0; i < 2; i++) instances.push(await startAgentServer({}, { classifyPeer: () => 'remote' as const }));
    manager = await startManager();
    const ids: string[] = [];
    for (const inst of instances) {
      const added = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: inst.url, token: inst.app.services.token })).body;
      ids.push(added.id);
    }
    const [a, b] = ids as [string, string];
    for (const id of ids) await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), `bridge of ${id}`);

    // "ask A to run X": sent, watched by its request id
    const first = await sendJson(`${manager.url}/api/svc-ceo/send`, 'POST', { instanceId: a, text: 'run X scenario:text' });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.match(first.body.requestId, /^req_/);
    assert.equal(first.body.watch.requestId, first.body.requestId);
    assert.equal(first.body.watch.status, 'active');
    const done1 = await until(async () => (await pendingOf(manager!.url)).find((c) => c.watchId === first.body.watch.id), 'the first completion');
    assert.equal(done1.instanceId, a);
    assert.equal(done1.requestId, first.body.requestId);
    assert.equal(done1.runStatus, 'ok');
    assert.ok(done1.text.length > 0);
    assert.equal((await getJson(`${manager.url}/api/svc-ceo/watches`)).body.watches.length, 0, 'the watch ended with its completion');

    // a run of A that nobody watches makes no completion
    await ask(instances[0]!.url, instances[0]!.app.services.token, 'unwatched scenario:text');
    // a second dispatch to A, and one to B, each attributed to its own watch
    const second = (await sendJson(`${manager.url}/api/svc-ceo/send`, 'POST', { instanceId: a, text: 'run Y scenario:text delay:20' })).body;
    const third = (await sendJson(`${manager.url}/api/svc-ceo/send`, 'POST', { instanceId: b, text: 'run Z scenario:text' })).body;
    assert.notEqual(second.watch.id, first.body.watch.id);
    const all = await until(async () => {
      const p = await pendingOf(manager!.url);
      return p.length === 3 ? p : undefined;
    }, 'three completions');
    const byWatch = new Map(all.map((c) => [c.watchId, c]));
    assert.equal(byWatch.get(second.watch.id)?.requestId, second.requestId);
    assert.equal(byWatch.get(second.watch.id)?.instanceId, a);
    assert.equal(byWatch.get(third.watch.id)?.requestId, third.requestId);
    assert.equal(byWatch.get(third.watch.id)?.instanceId, b);
    assert.equal(byWatch.get(first.body.watch.id)?.requestId, first.body.requestId, 'the first watch kept only its own completion');
    const history = (await getJson(`${manager.url}/api/svc-ceo/watches?all=1`)).body.watches;
    assert.deepEqual(history.map((w: any) => w.status), ['completed', 'completed', 'completed']);

    // a manual watch on B claims B's next run
    const manual = (await sendJson(`${manager.url}/api/svc-ceo/watch`, 'POST', { instanceId: b })).body;
    await ask(instances[1]!.url, instances[1]!.app.services.token, 'by hand scenario:text');
    const viaManual = await until(async () => (await pendingOf(manager!.url)).find((c) => c.watchId === manual.id), 'the manual watch completes');
    assert.equal(viaManual.instanceId, b);
    assert.equal((await pendingOf(manager.url)).length, 4, 'exactly one completion per dispatch');

    // handling: summarize, ack, dismiss, continue
    const short = (await sendJson(`${manager.url}/api/svc-ceo/pending/${encodeURIComponent(done1.key)}/summarize`, 'POST', { format: 'short' })).body;
    assert.equal(short.untrustedText, done1.text.slice(0, 320));
    assert.equal((await sendJson(`${manager.url}/api/svc-ceo/pending/${encodeURIComponent(done1.key)}/ack`, 'POST', {})).body.status, 'acknowledged');
    const again = await sendJson(`${manager.url}/api/svc-ceo/pending/${encodeURIComponent(done1.key)}/dismiss`, 'POST', {});
    assert.equal(again.status, 409, 'a handled completion is not handled twice');
    const third1 = byWatch.get(third.watch.id)!;
    assert.equal((await sendJson(`${manager.url}/api/svc-ceo/pending/${encodeURIComponent(third1.key)}/dismiss`, 'POST', {})).body.status, 'dismissed');
    const cont = (await sendJson(`${manager.url}/api/svc-ceo/pending/${encodeURIComponent(viaManual.key)}/continue`, 'POST', {})).body;
    assert.equal(cont.completion.status, 'continued');
    const state = (await getJson(`${manager.url}/api/svc-ceo/state`)).body;
    const readIn = state.transcript.find((t: any) => t.role === 'instance' && t.instanceId === b);
    assert.equal(readIn.text, viaManual.text);
    assert.equal(readIn.untrusted, true, 'instance text is marked untrusted');
    assert.equal(state.scope, 'manager');

    // an open watch and the pending completion survive a manager restart
    const open = (await sendJson(`${manager.url}/api/svc-ceo/watch`, 'POST', { instanceId: a })).body;
    const home = manager.home;
    await manager.close({ removeHome: false });
    manager = await startManager({ home });
    const watches = (await getJson(`${manager.url}/api/svc-ceo/watches`)).body.watches;
    assert.deepEqual(watches.map((w: any) => w.id), [open.id]);
    const pendingAfter = await pendingOf(manager.url);
    assert.deepEqual(pendingAfter.map((c) => c.watchId).sort(), [second.watch.id].sort());
    assert.equal((await pendingOf(manager.url, 'acknowledged,dismissed,continued')).length, 3);
    // and the restarted manager still completes the open watch from A's events
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${a}`)).body.stream === 'connected' ? true : undefined), 'bridge of A again');
    await ask(instances[0]!.url, instances[0]!.app.services.token, 'after restart scenario:text');
    await until(async () => (await pendingOf(manager!.url)).find((c) => c.watchId === open.id), 'the open watch completes after the restart');
    const removed = await getJson(`${manager.url}/api/svc-ceo/watch/${open.id}`, { method: 'DELETE' });
    assert.equal(removed.status, 409, 'an ended watch cannot be removed again');
    const audit = (await getJson(`${manager.url}/api/svc-ceo/audit?kind=completion&limit=300`)).body.audit;
    assert.equal(audit.filter((r: any) => r.action === 'detected').length, 5);
  } finally {
    await manager?.close();
    for (const inst of instances) await inst.close();
  }
});

test('a watched run that ends while the manager is down is found from the instance\'s saved answers after the restart, once', async () => {
  let instance: AgentTestServer | undefined;
  let manager: TestManager | undefined;
  try {
    instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
    const token = instance.app.services.token;
    manager = await startManager();
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token })).body.id;
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), 'bridge');
    const sent = (await sendJson(`${manager.url}/api/svc-ceo/send`, 'POST', { instanceId: id, text: 'slow one scenario:text delay:150' })).body;
    const home = manager.home;
    await manager.close({ removeHome: false });
    // the run ends with nobody listening
    await until(async () => ((await getJson(`${instance!.url}/api/runtime`, { headers: { authorization: `Bearer ${token}` } })).body.agent.busy ? undefined : true), 'the run ended');
    manager = await startManager({ home });
    const found = await until(async () => (await pendingOf(manager!.url)).find((c) => c.watchId === sent.watch.id), 'the completion found after the gap');
    assert.equal(found.requestId, sent.requestId);
    assert.ok(found.text.length > 0);
    assert.equal(found.messageId !== null, true);
    // a later reconnect does not find it again
    await instance.close({ removeHome: false });
    instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const, home: instance.home, port: instance.port } as never);
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), 'bridge again', 15_000);
    const audit = (await getJson(`${manager.url}/api/svc-ceo/audit?kind=completion`)).body.audit;
    assert.equal(audit.filter((r: any) => r.action === 'detected').length, 1);
    assert.equal((await pendingOf(manager.url)).length, 1);
  } finally {
    await manager?.close();
    await instance?.close();
  }
});

test('a watched run lost when its instance crashes and restarts ends once, as a lost completion', { timeout: 120_000 }, async () => {
  let manager: TestManager | undefined;
  const pids: number[] = [];
  const state = mkdtempSync(join(tmpdir(), 'svc-fake-state-'));
  try {
    manager = await startManager();
    const m = manager.url;
    const inst = (await sendJson(`${m}/api/dashboard/instances/start`, 'POST', { label: 'crashy' })).body;
    pids.push(inst.pid);
    const connected = () => until(async () => ((await getJson(`${m}/api/dashboard/instances/${inst.id}`)).body.stream === 'connected' ? true : undefined), 'bridge', 20_000);
    await connected();
    // the started instance runs the fake claude (through the manager's proxy, with the instance's token)
    const put = await sendJson(`${m}/i/${inst.id}/api/settings`, 'PUT', { agent: { executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: state } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));

    // a finished run is a normal completion; a second, long one is going when the instance crashes
    const quick = (await sendJson(`${m}/api/svc-ceo/send`, 'POST', { instanceId: inst.id, text: 'quick scenario:text' })).body;
    await until(async () => (await pendingOf(m)).find((c) => c.watchId === quick.watch.id), 'the quick completion');
    const slow = (await sendJson(`${m}/api/svc-ceo/send`, 'POST', { instanceId: inst.id, text: 'slow scenario:text delay:2000' })).body;
    await until(async () => ((await getJson(`${m}/i/${inst.id}/api/runtime`)).body.agent?.active?.requestId === slow.requestId ? true : undefined), 'the slow run going');
    process.kill(inst.pid, 'SIGKILL');
    await until(async () => ((await getJson(`${m}/api/dashboard/instances/${inst.id}`)).body.status === 'offline' ? true : undefined), 'seen offline', 20_000);
    assert.equal((await getJson(`${m}/api/svc-ceo/watches`)).body.watches.length, 1, 'still watched while it is down');

    const again = await sendJson(`${m}/api/dashboard/instances/${inst.id}/start`, 'POST', {});
    assert.equal(again.status, 200, JSON.stringify(again.body));
    pids.push(again.body.pid);
    await connected();
    const lost = await until(async () => (await pendingOf(m)).find((c) => c.watchId === slow.watch.id), 'the lost completion', 20_000);
    assert.equal(lost.runStatus, 'lost');
    assert.equal(lost.requestId, slow.requestId);
    assert.match(lost.text, /restarted .* its run was lost/);
    assert.deepEqual((await getJson(`${m}/api/svc-ceo/watches`)).body.watches, [], 'the watch ended');

    // another gap (a graceful restart) finds nothing new: each run ends once
    const home = manager.home;
    await manager.close({ removeHome: false });
    manager = await startManager({ home });
    await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${inst.id}`)).body.stream === 'connected' ? true : undefined), 'bridge after the manager restart', 20_000);
    const all = (await getJson(`${manager.url}/api/svc-ceo/pending?status=pending,acknowledged,dismissed,continued`)).body.pending;
    assert.deepEqual(all.map((c: any) => c.runStatus).sort(), ['lost', 'ok']);
    const detected = (await getJson(`${manager.url}/api/svc-ceo/audit?kind=completion`)).body.audit.filter((r: any) => r.action === 'detected');
    assert.equal(detected.length, 2);
  } finally {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await manager?.close();
  }
});
