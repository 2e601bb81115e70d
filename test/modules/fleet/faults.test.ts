// The fleet through a TCP proxy between a machine and the hub's nats-server: 100 ms of delay each way, and the
// machine's connection cut every 2 s while its instance publishes events. Its chat still answers through the tunnel,
// and every event reaches the dashboard's stream once: none lost, none doubled (the bridge resumes through the
// tunnel with Last-Event-ID once the machine is back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { instanceKey } from '../../../src/modules/fleet/machine-side.ts';
import { fleetInstanceId } from '../../../src/modules/fleet/instance-names.ts';
import { homePaths } from '../../../src/core/home.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { auth, until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager, invite, machineHome, skipWithoutNats } from './helpers.ts';

const HEARTBEAT_MS = 200;

describe('the fleet over a slow link that keeps breaking', { skip: skipWithoutNats, timeout: 120_000 }, () => {
  let manager: TestManager;
  let machine: AgentTestServer;
  let proxy: TcpProxy;
  let sse: SseConnection;
  let id: string;
  const home = machineHome();
  const api = (path: string) => `${manager.url}${path}`;

  before(async () => {
    const fleet = await fleetManager({ heartbeatMs: HEARTBEAT_MS });
    manager = fleet.manager;
    const { code } = await invite(manager);
    const { machineId } = await joinFleet({ url: fleet.url, code, name: 'far away', home });
    // from now on the machine reaches the hub only through the proxy
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(fleet.url).port) }, { delayMs: 100 });
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
      // straight to the machine's own server: the events are made there whatever the link does
      const res = await fetch(`${machine.url}/api/task`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(machine.app.services.token) }, body: JSON.stringify({ action: 'add', content }) });
      assert.equal(res.status, 200);
      sent.push(content);
      if (Date.now() >= nextCut) {
        proxy.cut();
        nextCut = Date.now() + 2_000;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const relayed = () => sse.messages.filter((m) => m.data.event === 'instance_event' && m.data.instanceId === id && m.data.name === 'task_update' && m.data.data?.action === 'add').map((m) => m.data.data.task.content as string);
    await until(() => (sent.every((c) => relayed().includes(c)) ? true : undefined), 'every event relayed', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}: missing ${JSON.stringify(sent.filter((c) => !relayed().includes(c)))}`);
    });
    const counts = new Map<string, number>();
    for (const c of relayed()) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.deepEqual([...counts].filter(([, n]) => n !== 1), [], 'none doubled');
    assert.ok(sent.length >= 40, `${sent.length} events sent`);
    // the cuts did break the machine's connection (and with it the tunnel the bridge read through) each time
    assert.ok(proxy.accepted - acceptedBefore >= 3, `the machine connected again after each cut (${proxy.accepted - acceptedBefore} times)`);
  });
});
