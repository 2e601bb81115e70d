// The fleet on a NATS its operator runs (`svc dashboard serve --fleet --nats-url … --nats-creds …`): the real
// nats-server in operator mode, users minted as `nsc` makes them. The hub starts no nats-server and connects with
// its credentials; a machine joins with the user the operator made for it (the permissions `svc fleet permissions`
// prints), signing its join with that user's key; its id comes from the key; its svc serve connects with those
// credentials and its instance is the dashboard's. The permissions printed are what keep one machine off another's
// subjects, and a user cannot join presenting another user's key. Revoking forgets the machine (its user is the operator's to revoke), and the same key never joins again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, statSync } from 'node:fs';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { createUser, fromSeed } from '@nats-io/nkeys';
import { joinFleet, JoinError, machineIdOf, operatorUserPermissions, parseCreds } from '../../../src/modules/fleet/hub-side.ts';
import { joinProof } from '../../../src/modules/fleet/creds.ts';
import { heartbeatSubject, JOIN_SUBJECT, machineInboxPrefix, requestSubject } from '../../../src/modules/fleet/subjects.ts';
import { homePaths } from '../../../src/core/home.ts';
import { startOperatorNats, type OperatorNats } from '../../support/nats-operator.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { runSvc } from '../../support/cli.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';
import { invite, machineHome, serverErrors, skipWithoutNats } from './helpers.ts';

const HEARTBEAT_MS = 200;


describe('the fleet on an operator\'s NATS', { skip: skipWithoutNats }, () => {
  let nats: OperatorNats;
  let manager: TestManager;
  const homes: string[] = [];
  const machines: TestServer[] = [];

  before(async () => {
    nats = await startOperatorNats();
    const hub = await nats.user('hub');
    manager = await startManager({ fleet: { host: '127.0.0.1', port: 0, heartbeatMs: HEARTBEAT_MS, external: { url: nats.url, creds: hub.creds } } });
  });
  after(async () => {
    for (const m of machines) await m.close();
    await manager?.close();
    await nats?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  /** A user the operator made for a machine, with the permissions `svc fleet permissions` gives its key. */
  const machineUser = async (name: string) => {
    const key = createUser();
    return nats.user(name, operatorUserPermissions(machineIdOf(key.getPublicKey())), key);
  };

  test('the hub uses it; a machine joins with its own user, connects with it, and its instance answers through the hub', async () => {
    assert.deepEqual((await getJson(`${manager.url}/api/dashboard/fleet`)).body, { enabled: true, nats: 'running', url: nats.url, fingerprint: null });
    assert.equal(manager.app.fleet.hub!.natsPid, undefined, 'no nats-server of its own');
    const inv = await invite(manager);
    assert.equal(inv.command, `svc fleet join ${nats.url} --code ${inv.code} --creds <the machine's .creds file>`);

    const laptop = await machineUser('laptop');
    // what the operator is told to give the user: the same permissions, from the key or from the .creds file
    const printed = await runSvc(['fleet', 'permissions', laptop.file, '--json']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), { publicKey: laptop.publicKey, machineId: machineIdOf(laptop.publicKey), permissions: operatorUserPermissions(machineIdOf(laptop.publicKey)) });
    const readable = await runSvc(['fleet', 'permissions', laptop.publicKey]);
    assert.match(readable.stdout, /nsc edit user --name <user> --allow-pub '.*svc\.fleet\.join.*' --deny-pub/);

    const home = machineHome();
    homes.push(home);
    const membership = await joinFleet({ url: nats.url, code: inv.code, name: 'laptop', home, creds: laptop.creds });
    assert.equal(membership.machineId, machineIdOf(laptop.publicKey), 'the id comes from the key');
    assert.equal(statSync(homePaths(home).fleetCreds).mode & 0o777, 0o600, 'the credentials are kept private');
    const server = await startServer({ home, fleetHeartbeatMs: HEARTBEAT_MS });
    machines.push(server);
    const machine = await until(async () => (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((m: { id: string; online: boolean }) => m.id === membership.machineId && m.online), 'the machine online');
    assert.equal(machine.name, 'laptop');
    const instance = await until(async () => (await getJson(`${manager.url}/api/dashboard/instances`)).body.instances.find((i: { origin: string; status: string }) => i.origin === 'fleet' && i.status === 'online'), 'its instance online');
    const answer = await getJson(`${manager.url}/i/${instance.id}/api/messages?limit=5`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  test("the printed permissions keep a machine's user off another machine's subjects", async () => {
    const [one, two] = [await machineUser('one'), await machineUser('two')];
    const asOne = await connect({ servers: nats.url, authenticator: credsAuthenticator(new TextEncoder().encode(one.creds)) });
    const errors = serverErrors(asOne);
    try {
      asOne.publish(heartbeatSubject(machineIdOf(two.publicKey)), '{}');
      asOne.publish(requestSubject(machineIdOf(one.publicKey), 'status'), '{}');
      asOne.subscribe(`svc.fleet.m.${machineIdOf(two.publicKey)}.>`);
      await asOne.flush();
      await until(() => (errors.length >= 3 ? true : undefined), 'three permission violations', 5_000);
      assert.ok(errors.some((e) => e.includes(`Publish to "${heartbeatSubject(machineIdOf(two.publicKey))}"`)), errors.join('\n'));
      assert.ok(errors.some((e) => e.includes(`Publish to "${requestSubject(machineIdOf(one.publicKey), 'status')}"`)), errors.join('\n'));
      assert.ok(errors.some((e) => e.includes(`Subscription to "svc.fleet.m.${machineIdOf(two.publicKey)}.>"`)), errors.join('\n'));
    } finally {
      await asOne.close();
    }
    // a machine's user presenting another machine's key to join: it cannot sign for that key
    const { code } = await invite(manager);
    const asJoiner = await connect({ servers: nats.url, authenticator: credsAuthenticator(new TextEncoder().encode(one.creds)), inboxPrefix: machineInboxPrefix(machineIdOf(one.publicKey)) });
    try {
      const signature = Buffer.from(fromSeed(new TextEncoder().encode(parseCreds(one.creds).seed)).sign(joinProof(code))).toString('base64url');
      const reply = await asJoiner.request(JOIN_SUBJECT, JSON.stringify({ code, publicKey: two.publicKey, signature, name: 'two, forged' }), { timeout: 5000 });
      assert.deepEqual(JSON.parse(reply.string()), { ok: false, error: 'the join is not signed by the key it presents' });
    } finally {
      await asJoiner.close();
    }
    assert.ok(!(await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.some((m: { id: string }) => m.id === machineIdOf(two.publicKey)));
  });

  test('revoking forgets the machine: what it sends is ignored, and its key never joins again', async () => {
    const desk = await machineUser('desk');
    const home = machineHome();
    homes.push(home);
    const { machineId } = await joinFleet({ url: nats.url, code: (await invite(manager)).code, name: 'desk', home, creds: desk.creds });
    const server = await startServer({ home, fleetHeartbeatMs: HEARTBEAT_MS });
    machines.push(server);
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((m: { id: string; online: boolean }) => m.id === machineId)?.online ? true : undefined), 'desk online');
    const revoked = await fetch(`${manager.url}/api/dashboard/machines/${machineId}`, { method: 'DELETE' });
    assert.equal(revoked.status, 200);
    // its svc serve is still connected (its user is the operator's) and beats on: the hub no longer lists it
    await new Promise((r) => setTimeout(r, 5 * HEARTBEAT_MS));
    assert.ok(!(await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.some((m: { id: string }) => m.id === machineId));
    const again = await sendJson(`${manager.url}/api/dashboard/fleet/invites`, 'POST', {});
    const other = machineHome();
    homes.push(other);
    const refused = await joinFleet({ url: nats.url, code: again.body.code, name: 'desk', home: other, creds: desk.creds }).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof JoinError && /revoked on this hub/.test(refused.message), String(refused));
  });
});
