// A fleet machine's instance is an instance of the dashboard, reached through the hub's tunnel over the real
// nats-server: listed with its machine, its chat run, its API with a body of several MiB, its event stream (relayed
// and proxied, SSE and WebSocket), and its runs from the schedule; a tunnel's caller is a remote caller to the
// instance (it must present the token); the machine going offline or being revoked shows at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { WebSocket } from 'ws';
import { joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { instanceKey } from '../../../src/modules/fleet/machine-side.ts';
import { fleetInstanceId } from '../../../src/modules/fleet/instance-names.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { auth, findMessage, until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager, invite, machineHome, skipWithoutNats } from './helpers.ts';

const HEARTBEAT_MS = 200;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('an instance on a fleet machine, through the hub', { skip: skipWithoutNats }, () => {
  let manager: TestManager;
  let machine: AgentTestServer;
  let machineId: string;
  let id: string;
  let sse: SseConnection;
  const home = machineHome();
  const api = (path: string) => `${manager.url}${path}`;

  before(async () => {
    const fleet = await fleetManager({ heartbeatMs: HEARTBEAT_MS });
    manager = fleet.manager;
    sse = await openSse(`${manager.url}/api/events`);
    const { code } = await invite(manager);
    ({ machineId } = await joinFleet({ url: fleet.url, code, name: 'build box', home }));
    machine = await startAgentServer({}, { home, fleetHeartbeatMs: HEARTBEAT_MS });
    id = fleetInstanceId(machineId, instanceKey(home));
  });
  after(async () => {
    sse?.close();
    await machine?.close({ removeHome: false });
    await manager?.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('it is listed with its machine and comes online; its chat answers through the proxy', async () => {
    const listed = await until(async () => {
      const { instances } = (await getJson(api('/api/dashboard/instances'))).body as { instances: any[] };
      return instances.find((i) => i.id === id && i.status === 'online');
    }, 'the machine\'s instance online');
    assert.equal(listed.origin, 'fleet');
    assert.deepEqual(listed.machine, { id: machineId, name: 'build box' });
    assert.equal(listed.label, 'build box');
    assert.equal(listed.home, machine.home, 'its facts were read through the tunnel');
    // the event bridge follows it through the tunnel: the run's events are relayed
    const answer = await sendJson(api(`/i/${id}/api/message`), 'POST', { prompt: 'hello from the hub scenario:text' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    await findMessage(sse, (d) => d.event === 'instance_event' && d.instanceId === id && d.name === 'agent_done', 'the run\'s end relayed from the machine');
  });

  test('bodies of several MiB pass both ways (chunked under NATS\'s payload limit)', async () => {
    const file = randomBytes(5 * 1024 * 1024 + 3);
    const up = await fetch(api(`/i/${id}/api/upload?filename=blob.bin`), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: file });
    assert.equal(up.status, 201, await up.clone().text());
    const { url } = (await up.json()) as { url: string };
    const down = await fetch(api(`/i/${id}${url}`));
    assert.equal(down.status, 200);
    assert.equal(sha(Buffer.from(await down.arrayBuffer())), sha(file));
  });

  test('its event stream through the proxy: SSE and WebSocket', async () => {
    const stream = await openSse(api(`/i/${id}/api/events`));
    const ws = new WebSocket(api(`/i/${id}/ws`).replace('http', 'ws'));
    const wsEvents: any[] = [];
    ws.on('message', (data) => wsEvents.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      await sendJson(api(`/i/${id}/api/message`), 'POST', { prompt: 'a second question scenario:text' });
      await findMessage(stream, (d) => d.event === 'agent_done', 'agent_done on the proxied SSE stream');
      await until(() => wsEvents.find((e) => (e.event ?? e.name) === 'agent_done'), 'agent_done on the proxied WebSocket');
    } finally {
      stream.close();
      ws.close();
    }
  });

  test('a tunnel\'s caller is a remote caller: without the token the instance refuses it', async () => {
    const hub = manager.app.fleet.hub!;
    const bare = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        http
          .request(`http://127.0.0.1${path}`, { headers, createConnection: (() => hub.openTunnel(machineId, instanceKey(home))) as never }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject)
          .end();
      });
    assert.equal(await bare('/api/runtime'), 401, 'no token: refused, though the tunnel ends on the machine itself');
    assert.notEqual(await bare('/api/auth/token'), 200, 'the token is never handed to a tunnel');
    assert.equal(await bare('/api/runtime', auth(machine.app.services.token)), 200);
    const unknown = await new Promise<Error>((resolve) =>
      http.request('http://127.0.0.1/', { createConnection: (() => hub.openTunnel(machineId, '000000000000')) as never }).on('error', resolve).end(),
    );
    assert.match(unknown.message, /no instance 000000000000 on this machine/);
  });

  test('the schedule runs a job on it', async () => {
    const job = (await sendJson(api('/api/dashboard/schedule/jobs'), 'POST', { title: 'remote', instanceId: id, prompt: 'scheduled scenario:text', runAt: Date.now() + 50, whenBusy: 'queue' })).body;
    const run = await until(async () => ((await getJson(api(`/api/dashboard/schedule/jobs/${job.id}/runs`))).body.runs as any[]).find((r) => ['answered', 'failed', 'skipped'].includes(r.status)), 'the job\'s run', 20_000);
    assert.equal(run.status, 'answered', JSON.stringify(run));
  });

  test('its machine offline: the instance is offline and says why; back online: online again', async () => {
    await machine.close({ removeHome: false });
    const offline = await until(async () => {
      const i = (await getJson(api(`/api/dashboard/instances/${id}`))).body;
      return i.status === 'offline' ? i : undefined;
    }, 'the instance offline');
    assert.match(offline.reason, /build box/);
    const proxied = await getJson(api(`/i/${id}/api/runtime`));
    assert.equal(proxied.status, 502);
    assert.match(proxied.body.message, /build box is offline|not connected/);
    machine = await startAgentServer({}, { home, fleetHeartbeatMs: HEARTBEAT_MS });
    await until(async () => (await getJson(api(`/api/dashboard/instances/${id}`))).body.status === 'online', 'online again, with the same id');
  });

  test('revoked: its instance leaves the list; removing it by hand is refused before that', async () => {
    const refused = await getJson(api(`/api/dashboard/instances/${id}`), { method: 'DELETE' });
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /revoke the machine/);
    assert.equal((await getJson(api(`/api/dashboard/machines/${machineId}`), { method: 'DELETE' })).status, 200);
    const { instances } = (await getJson(api('/api/dashboard/instances'))).body as { instances: any[] };
    assert.equal(instances.find((i) => i.id === id), undefined);
    assert.equal((await getJson(api(`/i/${id}/api/health`))).status, 404);
  });
});
