// A joined machine's other svc serve instances (local-instances.ts): a second svc serve on the machine, with a home
// of its own and no membership, is found on loopback by the one that joined and listed under the same machine. The
// dashboard chats with it through the hub's tunnel, its events are relayed through JetStream, it stays listed while it
// pauses (its probes held by a TCP proxy in front of it, as a stopped process's kernel holds them), and it leaves the
// list when it stops.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { instanceKey } from '../../../src/modules/fleet/machine-side.ts';
import { fleetInstanceId } from '../../../src/modules/fleet/instance-names.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { auth, until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager, invite, machineHome, skipWithoutNats } from './helpers.ts';

const BEAT_MS = 200;
// Scans a second apart: a sibling dropped after one missed scan would be off the list for most of a second, which the
// hub hears within a heartbeat.
const SCAN_MS = 1_000;

describe("a machine's other instances", { skip: skipWithoutNats, timeout: 120_000 }, () => {
  let manager: TestManager;
  let machine: AgentTestServer;
  let sibling: AgentTestServer;
  /** The sibling's port as the machine scans it. */
  let proxy: TcpProxy;
  let sse: SseConnection;
  let machineId: string;
  let siblingId: string;
  const home = machineHome();
  const api = (path: string) => `${manager.url}${path}`;
  const listed = async () => (await getJson(api('/api/dashboard/instances'))).body.instances as { id: string; label: string; status: string; origin: string; machine?: { id: string; name: string } }[];

  before(async () => {
    const fleet = await fleetManager({ heartbeatMs: BEAT_MS });
    manager = fleet.manager;
    const { code } = await invite(manager);
    ({ machineId } = await joinFleet({ url: fleet.url, code, name: 'workstation', home }));
    sibling = await startAgentServer();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: sibling.port });
    machine = await startAgentServer({}, { home, fleetHeartbeatMs: BEAT_MS, fleetScanMs: SCAN_MS });
    machine.app.services.settings.update({ fleet: { scan: { from: proxy.port, count: 1 } } });
    siblingId = fleetInstanceId(machineId, instanceKey(sibling.home));
    sse = await openSse(api('/api/events'));
    await until(async () => ((await listed()).find((i) => i.id === siblingId)?.status === 'online' ? true : undefined), 'the sibling online on the dashboard', 30_000);
  });
  after(async () => {
    sse?.close();
    await machine?.close({ removeHome: false });
    await sibling?.close();
    await proxy?.close();
    await manager?.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('listed under its machine, beside the instance that joined', async () => {
    const mine = (await listed()).filter((i) => i.machine?.id === machineId);
    assert.deepEqual(mine.map((i) => i.id).sort(), [fleetInstanceId(machineId, instanceKey(home)), siblingId].sort());
    const entry = mine.find((i) => i.id === siblingId)!;
    assert.equal(entry.origin, 'fleet');
    assert.deepEqual(entry.machine, { id: machineId, name: 'workstation' });
    assert.match(entry.label, new RegExp(`^workstation 127\\.0\\.0\\.1:${proxy.port}$`));
  });

  test('its chat answers through the hub, and its events reach the dashboard through JetStream', async () => {
    const answer = await sendJson(api(`/i/${siblingId}/api/message`), 'POST', { prompt: 'hello sibling scenario:text' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(sibling.invocations().length >= 1, 'the sibling ran it');
    const content = 'made on the sibling';
    const res = await fetch(`${sibling.url}/api/task`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(sibling.app.services.token) }, body: JSON.stringify({ action: 'add', content }) });
    assert.equal(res.status, 200);
    await until(() => (sse.messages.some((m) => m.data.event === 'instance_event' && m.data.instanceId === siblingId && m.data.data?.task?.content === content) ? true : undefined), 'the event relayed', 30_000);
  });

  test('a sibling that pauses through two scans stays listed, and answers once it is back', async () => {
    const probes = () => proxy.held.filter((chunk) => chunk.startsWith('GET /api/health')).length;
    let missing = 0;
    const stillListed = async () => {
      if (!(await listed()).some((i) => i.id === siblingId)) missing++;
    };
    proxy.pause();
    try {
      // the second probe held: the first scan has ended without an answer
      await until(async () => (await stillListed(), probes() >= 2 ? true : undefined), 'two scans of the paused sibling', 30_000);
    } finally {
      proxy.resume();
    }
    for (let i = 0; i < 10; i++) await stillListed();
    assert.equal(missing, 0, 'never off the list');
    const answer = await sendJson(api(`/i/${siblingId}/api/message`), 'POST', { prompt: 'back again scenario:text' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  test('a sibling that stops leaves the list', async () => {
    await sibling.close();
    await until(async () => ((await listed()).some((i) => i.id === siblingId) ? undefined : true), 'the sibling gone from the list', 30_000);
    assert.ok((await listed()).some((i) => i.id === fleetInstanceId(machineId, instanceKey(home))), 'the instance that joined stays');
  });
});
