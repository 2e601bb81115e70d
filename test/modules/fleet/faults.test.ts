// The fleet through a TCP proxy between a machine and the hub's nats-server: 100 ms of delay each way, the machine's
// connection cut every 2 s while its instance publishes events, the link down while it publishes more than its
// instance's replay ring holds, and the hub restarted. Its chat still answers through the tunnel, and every event
// reaches the dashboard's stream once and in order: none lost, none doubled (the machine keeps them until the hub's
// JetStream has them, and the hub's consumer of them keeps its place across its restarts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { instanceKey } from '../../../src/modules/fleet/machine-side.ts';
import { fleetInstanceId } from '../../../src/modules/fleet/instance-names.ts';
import { homePaths } from '../../../src/core/home.ts';
import { DEFAULT_BUFFER_SIZE } from '../../../src/events/stream.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { auth, startManager, until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager, invite, machineHome, skipWithoutNats } from './helpers.ts';

const HEARTBEAT_MS = 200;

describe('the fleet over a slow link that keeps breaking', { skip: skipWithoutNats, timeout: 120_000 }, () => {
  let manager: TestManager;
  let machine: AgentTestServer;
  let proxy: TcpProxy;
  let sse: SseConnection;
  let id: string;
  let natsPort: number;
  const home = machineHome();
  const api = (path: string) => `${manager.url}${path}`;
  /** Adds tasks on the machine's own server (its events are made there whatever the link does). */
  const addTask = async (content: string) => {
    const res = await fetch(`${machine.url}/api/task`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(machine.app.services.token) }, body: JSON.stringify({ action: 'add', content }) });
    assert.equal(res.status, 200);
  };
  /** The added tasks the dashboard's stream relayed from the machine's instance, in the order they came. */
  const relayed = () => sse.messages.filter((m) => m.data.event === 'instance_event' && m.data.instanceId === id && m.data.name === 'task_update' && m.data.data?.action === 'add').map((m) => m.data.data.task.content as string);
  /** Waits for every one of `sent` to be relayed, then checks that each came once and in order. */
  const allRelayedOnce = async (sent: string[], timeoutMs: number) => {
    await until(() => (sent.every((c) => relayed().includes(c)) ? true : undefined), 'every event relayed', timeoutMs).catch((err: Error) => {
      throw new Error(`${err.message}: missing ${sent.filter((c) => !relayed().includes(c)).length} of ${sent.length}, the first ${JSON.stringify(sent.find((c) => !relayed().includes(c)))}`);
    });
    const ours = relayed().filter((c) => sent.includes(c));
    assert.equal(ours.length, sent.length, 'none doubled');
    assert.deepEqual(ours, sent, 'in order');
  };

  before(async () => {
    const fleet = await fleetManager({ heartbeatMs: HEARTBEAT_MS });
    manager = fleet.manager;
    natsPort = Number(new URL(fleet.url).port);
    const { code } = await invite(manager);
    const { machineId } = await joinFleet({ url: fleet.url, code, name: 'far away', home });
    // from now on the machine reaches the hub only through the proxy
    proxy = await startTcpProxy({ host: '127.0.0.1', port: natsPort }, { delayMs: 100 });
    const file = homePaths(home).fleetMembership;
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), url: `nats://127.0.0.1:${proxy.port}` }));
    machine = await startAgentServer({}, { home, fleetHeartbeatMs: HEARTBEAT_MS });
    id = fleetInstanceId(machineId, instanceKey(home));
    sse = await openSse(api('/api/events'));
    await until(async () => ((await getJson(api(`/api/dashboard/instances/${id}`))).body.status === 'online' ? true : undefined), 'its instance online', 30_000);
  });
  after(async () => {
    sse?.close();
    await machine?.close({ removeHome: false });
    await manager?.close();
    await proxy?.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('100 ms each way: its chat answers through the tunnel', async () => {
    const answer = await sendJson(api(`/i/${id}/api/message`), 'POST', { prompt: 'across the slow link scenario:text' });
    assert.equal(answer.status, 200);
  });

  test('cut every 2 s while events flow: each event reaches the dashboard once', async () => {
    const sent: string[] = [];
    const acceptedBefore = proxy.accepted;
    const end = Date.now() + 8_000;
    let nextCut = Date.now() + 2_000;
    for (let n = 0; Date.now() < end; n++) {
      const content = `event ${n}`;
      await addTask(content);
      sent.push(content);
      if (Date.now() >= nextCut) {
        proxy.cut();
        nextCut = Date.now() + 2_000;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await allRelayedOnce(sent, 60_000);
    assert.ok(sent.length >= 40, `${sent.length} events sent`);
    // the cuts did break the machine's connection (and with it the tunnel the bridge read through) each time
    assert.ok(proxy.accepted - acceptedBefore >= 3, `the machine connected again after each cut (${proxy.accepted - acceptedBefore} times)`);
  });

  test('down while it makes more events than its instance can replay: each reaches the dashboard once, in order', async () => {
    proxy.setDelay(0);
    proxy.setDown(true);
    await until(async () => ((await getJson(`${machine.url}/api/runtime`)).body.fleet.state === 'reconnecting' ? true : undefined), 'the machine to see the link down');
    const sent = Array.from({ length: DEFAULT_BUFFER_SIZE + 200 }, (_, n) => `while down ${n}`);
    for (const content of sent) await addTask(content);
    proxy.setDown(false);
    await allRelayedOnce(sent, 60_000);
  });

  test('the hub restarted: what the machine made meanwhile comes, and nothing relayed before comes again', async () => {
    const before = relayed();
    sse.close();
    await manager.close({ removeHome: false });
    const sent = Array.from({ length: 300 }, (_, n) => `hub away ${n}`);
    for (const content of sent) await addTask(content);
    manager = await startManager({ home: manager.home, fleet: { host: '127.0.0.1', port: natsPort, heartbeatMs: HEARTBEAT_MS } });
    sse = await openSse(api('/api/events'));
    await allRelayedOnce(sent, 60_000);
    assert.deepEqual(relayed().filter((c) => before.includes(c)), [], 'no event relayed before the restart');
  });

  test("svc serve stopping mid-run: the run's last events still reach the dashboard", async () => {
    const from = sse.messages.length;
    const relayedHere = (name: string) => sse.messages.slice(from).some((m) => m.data.event === 'instance_event' && m.data.instanceId === id && m.data.name === name);
    // a run that never ends by itself (the fake CLI prints one line, then waits): the stop cuts it
    void fetch(`${machine.url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(machine.app.services.token) }, body: JSON.stringify({ prompt: 'wait for the stop hang' }) }).then((r) => r.text(), () => undefined);
    await until(() => (relayedHere('agent_status') ? true : undefined), 'the run under way, relayed', 30_000);
    await machine.close({ removeHome: false });
    await until(() => (relayedHere('agent_done') ? true : undefined), 'its end relayed after the stop', 30_000);
  });
});
