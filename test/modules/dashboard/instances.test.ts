// The manager's registry: discovery by a bounded scan, instances added by URL and token, stable ids,
// external instances never stopped, and the manager's own trust model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { createManagerServer } from '../../../src/servers/manager.ts';
import { freePort, reservePorts } from '../../support/ports.ts';
import { startServer, getJson, sendJson, tempHome, type TestServer } from '../../support/server.ts';
import { startManager, until, auth, type TestManager } from './helpers.ts';

test('a bounded scan finds local instances, gives them stable ids, and the manager never stops them', async () => {
  // the scanned range base … base + 2: two instances now, the third port for one that moves there;
  // each port stays held (a listener that drops connections, which the scan passes over) until its
  // server starts, so no other process's connection can take it meanwhile
  const ports = await reservePorts(3);
  const { base } = ports;
  const servers: TestServer[] = [];
  let manager: TestManager | undefined;
  try {
    servers.push(await startServer({ port: await ports.release(base) }), await startServer({ port: await ports.release(base + 1) }));
    manager = await startManager({ scan: { from: base, count: 3 } });
    const list = await until(async () => {
      const { body } = await getJson(`${manager!.url}/api/dashboard/instances`);
      return body.instances.filter((i: any) => i.status === 'online').length === 2 ? body.instances : undefined;
    }, 'both instances online');
    assert.deepEqual(list.map((i: any) => i.url).sort(), [`http://127.0.0.1:${base}`, `http://127.0.0.1:${base + 1}`]);
    for (const i of list) {
      assert.equal(i.owner, 'external');
      assert.equal(i.origin, 'scanned');
      assert.match(i.id, /^home_[0-9a-f]{12}$/);
      assert.equal(i.version, servers[0]!.app.services.version);
      assert.equal(typeof i.provider, 'string');
      assert.equal(i.busy, false);
    }
    const one = list.find((i: any) => i.url.endsWith(String(base)));
    assert.equal(one.home, servers[0]!.home);
    const byId = (await getJson(`${manager.url}/api/dashboard/instances/${one.id}`)).body;
    assert.equal(byId.url, one.url);
    assert.equal(byId.workingDir, one.workingDir);

    const stop = await sendJson(`${manager.url}/api/dashboard/instances/${one.id}/stop`, 'POST', {});
    assert.equal(stop.status, 409);
    assert.equal(stop.body.error, 'INSTANCE_NOT_OWNED');
    assert.equal((await getJson(`${servers[0]!.url}/api/health`)).status, 200, 'the instance still runs');

    // the same home on another port keeps its id
    const home = servers[0]!.home;
    await servers[0]!.close({ removeHome: false });
    servers[0] = await startServer({ home, port: await ports.release(base + 2) });
    const moved = await until(async () => {
      const { body } = await sendJson(`${manager!.url}/api/dashboard/scan`, 'POST', {});
      return body.instances.find((i: any) => i.id === one.id && i.url.endsWith(String(base + 2)) && i.status === 'online');
    }, 'the moved instance under its old id');
    assert.equal(moved.home, home);

    const health = await getJson(`${manager.url}/api/dashboard/health`);
    assert.equal(health.body.service, 'manager-dashboard');
    assert.deepEqual(health.body.scan.from, base);
    assert.equal(health.body.instances.total, 2);
  } finally {
    await manager?.close();
    for (const s of servers) await s.close();
    await ports.close();
  }
});

test('an instance added by URL is read with its token (no loopback trust); a wrong token is refused', async () => {
  // this instance trusts no peer, loopback included: only its token opens it
  const instance = await startServer({ classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  try {
    const token = instance.app.services.token;
    const wrong = await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: 'x'.repeat(43) });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'INSTANCE_UNREACHABLE');
    const added = await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token, label: 'remote one' });
    assert.equal(added.status, 201);
    assert.equal(added.body.status, 'online');
    assert.equal(added.body.owner, 'external');
    assert.equal(added.body.label, 'remote one');
    assert.match(added.body.id, /^inst_[0-9a-f]{12}$/);
    const again = await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token });
    assert.equal(again.status, 409);
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${added.body.id}`)).body.stream === 'connected' ? true : undefined), 'the bridge connected with the token');
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances/nope`)).status, 404);
    const removed = await getJson(`${manager.url}/api/dashboard/instances/${added.body.id}`, { method: 'DELETE' });
    assert.equal(removed.body.deleted, added.body.id);
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).body.instances.length, 0);
  } finally {
    await manager.close();
    await instance.close();
  }
});

test("the manager's API follows the core's trust model: a remote peer needs the manager's token", async () => {
  const manager = await startManager({ classifyPeer: () => 'remote' as const });
  try {
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).status, 401);
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`, { headers: auth(manager.app.token) })).status, 200);
    // fetch cannot set Host: a rebinding name is sent with node:http
    const rebound = await new Promise<number>((resolve, reject) =>
      http.get(`${manager.url}/api/dashboard/instances`, { headers: { ...auth(manager.app.token), host: 'evil.example' } }, (res) => resolve(res.resume().statusCode!)).on('error', reject),
    );
    assert.equal(rebound, 403);
    const cross = await getJson(`${manager.url}/api/dashboard/instances`, { headers: { ...auth(manager.app.token), origin: 'http://evil.example' } });
    assert.equal(cross.status, 403);
  } finally {
    await manager.close();
  }
});

test('a scan of no ports (count 0) is no scan: no "scanned ports" activity at start or on request', async () => {
  const home = tempHome('svc-manager-');
  // as startManager does, with the bus recorded from before the start-up scan; the health loop's scan
  // every interval goes through the same InstancesService.scan as these two
  const app = await createManagerServer({ logLevel: 'silent', scan: { from: 1, count: 0 }, pollMs: 500, home });
  const scans: string[] = [];
  app.bus.subscribe((e) => {
    if (e.name === 'dashboard_activity' && e.payload.kind === 'scan') scans.push(String(e.payload.message));
  });
  const url = await app.listen(0);
  try {
    // answered after the scan it asks for (or joins): the start-up one is long under way by then
    const asked = await sendJson(`${url}/api/dashboard/scan`, 'POST', {});
    assert.equal(asked.status, 200);
    assert.equal(asked.body.scannedAt, null, 'nothing was scanned');
    assert.deepEqual(scans, []);
    assert.equal((await getJson(`${url}/api/dashboard/health`)).body.scan.scannedAt, null);
    // the recording sees a scan when there is a range to scan
    assert.equal((await sendJson(`${url}/api/dashboard/settings`, 'PUT', { scan: { from: await freePort(), count: 1 } })).status, 200);
    await until(() => (scans.length ? true : undefined), 'the scan of the new range');
    assert.match(scans[0]!, /^scanned ports \d+-\d+: 0 new instance/);
  } finally {
    await app.close();
    rmSync(home, { recursive: true, force: true });
  }
});
