// The fleet over the real nats-server: a hub in the manager, machines that join with an invite and connect out,
// their NATS permissions tried with their own credentials, bad codes, revocation and a killed nats-server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect, nkeyAuthenticator, usernamePasswordAuthenticator } from '@nats-io/transport-node';
import { readMembership } from '../../../src/modules/fleet/membership.ts';
import { joinFleet, JoinError } from '../../../src/modules/fleet/hub-side.ts';
import { readMachineSeed } from '../../../src/modules/fleet/membership.ts';
import { heartbeatSubject, JOIN_USER, requestSubject } from '../../../src/modules/fleet/subjects.ts';
import { joinProof } from '../../../src/modules/fleet/creds.ts';
import { createUser } from '@nats-io/nkeys';
import { homePaths } from '../../../src/core/home.ts';
import { VERSION } from '../../../src/core/version.ts';
import { freePort } from '../../support/ports.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { runSvc } from '../../support/cli.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager as fleetManagerOf, invite, machineHome, serverErrors, skipWithoutNats } from './helpers.ts';

const skip = skipWithoutNats;
const HEARTBEAT_MS = 200;
const fleetManager = (options: { inviteTtlMs?: number } = {}) => fleetManagerOf({ heartbeatMs: HEARTBEAT_MS, ...options });


const joinError = async (promise: Promise<unknown>): Promise<string> => {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof JoinError, `a JoinError, got ${String(err)}`);
  return err.message;
};

describe('the fleet: join, machines, permissions, revoke', { skip }, () => {
  let manager: TestManager;
  let natsUrl: string;
  let sse: SseConnection;
  const homes: string[] = [];
  const machines: TestServer[] = [];

  before(async () => {
    ({ manager, url: natsUrl } = await fleetManager());
    sse = await openSse(`${manager.url}/api/events`);
  });
  after(async () => {
    sse?.close();
    for (const m of machines) await m.close();
    await manager?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  const fleetEvents = () => sse.messages.filter((m) => m.data.event === 'fleet_machine').map((m) => m.data);

  async function joinMachine(name: string) {
    const home = machineHome();
    homes.push(home);
    const { code } = await invite(manager);
    const membership = await joinFleet({ url: natsUrl, code, name, home });
    const server = await startServer({ home, fleetHeartbeatMs: HEARTBEAT_MS });
    machines.push(server);
    return { home, membership, server };
  }

  test('an invite joins a machine once; its svc serve connects out and shows as online with its instance', async () => {
    const status = (await getJson(`${manager.url}/api/dashboard/fleet`)).body;
    assert.deepEqual(status, { enabled: true, nats: 'running', url: natsUrl, fingerprint: null });
    const inv = await invite(manager);
    assert.match(inv.code, /^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    assert.equal(inv.command, `svc fleet join ${natsUrl} --code ${inv.code}`);
    assert.ok(inv.expiresAt > Date.now() + 9 * 60_000 && inv.expiresAt <= Date.now() + 10 * 60_000);

    const home = machineHome();
    homes.push(home);
    const membership = await joinFleet({ url: natsUrl, code: inv.code.toLowerCase(), name: 'laptop', home });
    assert.equal(membership.name, 'laptop');
    assert.match(membership.machineId, /^m_/);
    assert.deepEqual(readMembership(home), membership);
    assert.equal(statSync(homePaths(home).fleetKey).mode & 0o777, 0o600, 'the seed is readable by its owner only');
    assert.match(await joinError(joinFleet({ url: natsUrl, code: inv.code, name: 'again', home: machineHome() })), /used already/);

    let listed = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines;
    assert.deepEqual(listed.map((m: any) => [m.id, m.name, m.online, m.lastSeen]), [[membership.machineId, 'laptop', false, null]]);

    const server = await startServer({ home, fleetHeartbeatMs: HEARTBEAT_MS });
    machines.push(server);
    listed = await until(async () => {
      const ms = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines;
      return ms[0]?.online ? ms : undefined;
    }, 'the machine online');
    assert.equal(listed[0].version, VERSION);
    assert.deepEqual(listed[0].instances.map((i: any) => [i.url, i.busy]), [[server.url, false]]);
    await until(() => (fleetEvents().some((e) => e.change === 'online' && e.machineId === membership.machineId) ? true : undefined), 'the online event');
    assert.deepEqual((await getJson(`${server.url}/api/runtime`)).body.fleet, { hub: natsUrl, machineId: membership.machineId, name: 'laptop', state: 'connected' });
    const doctor = await runSvc(['doctor', '--json', '--home', home, '--url', server.url], { env: { PATH: '/usr/bin:/bin', HOME: home } });
    const fleetCheck = (JSON.parse(doctor.stdout) as { checks: { id: string }[] }).checks.find((c) => c.id === 'fleet');
    assert.deepEqual(fleetCheck, { id: 'fleet', status: 'ok', summary: `machine 'laptop' (${membership.machineId}) of the hub at ${natsUrl}: connected` });
    assert.deepEqual(fleetEvents().filter((e) => e.machineId === membership.machineId).map((e) => [e.change, e.name]), [['joined', 'laptop'], ['online', 'laptop']]);
  });

  test("a machine's key reaches only its own subjects: no other machine's, no requests to itself; the join user only joins", async () => {
    const a = await joinMachine('alpha');
    const b = await joinMachine('beta');
    const asA = await connect({ servers: natsUrl, authenticator: nkeyAuthenticator(readMachineSeed(a.home)), inboxPrefix: `_INBOX_${a.membership.machineId}` });
    const errors = serverErrors(asA);
    try {
      asA.publish(heartbeatSubject(b.membership.machineId), JSON.stringify({ name: 'forged', version: 'x', instances: [] }));
      asA.publish(requestSubject(a.membership.machineId, 'status'), '{}');
      const spy = asA.subscribe(`svc.fleet.m.${b.membership.machineId}.>`);
      await asA.flush();
      await until(() => (errors.length >= 3 ? true : undefined), 'three permission violations', 5_000);
      assert.ok(errors.some((e) => e.includes(`Publish to "${heartbeatSubject(b.membership.machineId)}"`)), errors.join('\n'));
      assert.ok(errors.some((e) => e.includes(`Publish to "${requestSubject(a.membership.machineId, 'status')}"`)), errors.join('\n'));
      assert.ok(errors.some((e) => e.includes(`Subscription to "svc.fleet.m.${b.membership.machineId}.>"`)), errors.join('\n'));
      spy.unsubscribe();
      const beta = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((m: any) => m.id === b.membership.machineId);
      assert.equal(beta.name, 'beta', 'the forged heartbeat never reached the hub');
    } finally {
      await asA.close();
    }
    // the hub's requests reach a machine, which answers them
    const hubAsks = await connect({ servers: natsUrl, authenticator: nkeyAuthenticator(readMachineSeed(b.home)) });
    const hubErrors = serverErrors(hubAsks);
    await hubAsks.request(requestSubject(a.membership.machineId, 'status'), '{}', { timeout: 1000 }).catch(() => undefined);
    await until(() => (hubErrors.length ? true : undefined), 'the other machine may not ask', 5_000);
    await hubAsks.close();

    const joiner = await connect({ servers: natsUrl, authenticator: usernamePasswordAuthenticator(JOIN_USER.user, JOIN_USER.pass) });
    const joinErrors = serverErrors(joiner);
    joiner.subscribe('svc.fleet.>');
    joiner.publish(heartbeatSubject(a.membership.machineId), '{}');
    await joiner.flush();
    await until(() => (joinErrors.length >= 2 ? true : undefined), 'the join user refused', 5_000);
    await joiner.close();
  });

  test('bad codes each get a clear refusal; the machine is not added', async () => {
    const before = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.length;
    const home = machineHome();
    homes.push(home);
    assert.match(await joinError(joinFleet({ url: natsUrl, code: 'ZZZZZ-ZZZZZ', name: 'x', home })), /unknown invite code/);
    assert.match(await joinError(joinFleet({ url: natsUrl, code: 'not a code', name: 'x', home })), /unknown invite code/);
    assert.match(await joinError(joinFleet({ url: 'nats://127.0.0.1:1', code: 'ZZZZZ-ZZZZZ', name: 'x', home })), /cannot reach the hub at nats:\/\/127\.0\.0\.1:1/);
    assert.equal(readMembership(home), undefined, 'nothing kept');
    assert.equal((await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.length, before);
  });

  test('a revoked machine is closed out and cannot come back with its key', async () => {
    const c = await joinMachine('gamma');
    const id = c.membership.machineId;
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((m: any) => m.id === id)?.online ? true : undefined), 'gamma online');
    const revoked = await fetch(`${manager.url}/api/dashboard/machines/${id}`, { method: 'DELETE' });
    assert.equal(revoked.status, 200);
    assert.equal(((await revoked.json()) as { online: boolean }).online, false);
    assert.equal((await fetch(`${manager.url}/api/dashboard/machines/${id}`, { method: 'DELETE' })).status, 404);
    assert.ok(!(await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.some((m: any) => m.id === id));
    await until(() => (fleetEvents().some((e) => e.machineId === id && e.change === 'revoked') ? true : undefined), 'the revoked event');
    const refused = await until(async () => {
      const err = await connect({ servers: natsUrl, authenticator: nkeyAuthenticator(readMachineSeed(c.home)), timeout: 2000 }).then(
        async (nc) => {
          await nc.close();
          return undefined;
        },
        (e: Error) => e,
      );
      return err;
    }, 'the key refused (after the reload)');
    assert.match(String(refused), /Authorization Violation/i);
    await until(async () => ((await getJson(`${c.server.url}/api/runtime`)).body.fleet.state === 'revoked' ? true : undefined), 'the machine knows it was revoked');
  });

  test('nats-server killed: started again, the dashboard says so, machines come back by themselves', async () => {
    const hub = manager.app.fleet.hub!;
    const pid = hub.natsPid!;
    const first = machines[0]!;
    const id = readMembership(first.home)!.machineId;
    const seenBefore = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((m: any) => m.id === id).lastSeen;
    process.kill(pid, 'SIGKILL');
    await until(() => (sse.messages.some((m) => m.data.event === 'fleet_status' && m.data.nats === 'restarting' && /SIGKILL/.test(m.data.reason)) ? true : undefined), 'restarting, with why');
    await until(() => (hub.natsPid && hub.natsPid !== pid ? true : undefined), 'a new nats-server', 15_000);
    await until(async () => {
      const m = (await getJson(`${manager.url}/api/dashboard/machines`)).body.machines.find((x: any) => x.id === id);
      return m.online && m.lastSeen > seenBefore + HEARTBEAT_MS ? true : undefined;
    }, 'the machine heard again', 15_000);
    assert.equal((await getJson(`${manager.url}/api/dashboard/fleet`)).body.nats, 'running');
    // both servers' logs, in svc's rotated log file: JSON lines with their level
    const log = readFileSync(join(manager.home, 'fleet', 'nats-server.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { ts: string; level: string; msg: string });
    assert.equal(log.filter((e) => e.msg === 'Server is ready').length, 2, 'one "Server is ready" per start');
    assert.ok(log.every((e) => !Number.isNaN(Date.parse(e.ts)) && ['info', 'warn', 'error', 'debug'].includes(e.level)));
  });
});

describe('the fleet: anything sent to the join subject', { skip }, () => {
  test('gets a refusal that says why; nothing is added and the hub keeps answering', async (t) => {
    const { manager, url } = await fleetManager();
    const joiner = await connect({ servers: url, authenticator: usernamePasswordAuthenticator(JOIN_USER.user, JOIN_USER.pass), inboxPrefix: '_INBOX_JOIN' });
    t.after(async () => {
      await joiner.close();
      await manager.close();
    });
    const ask = async (payload: string | Uint8Array) => JSON.parse((await joiner.request('svc.fleet.join', payload, { timeout: 5000 })).string());
    // a good code with a name that holds a control character: refused, and the code is not spent
    const { code } = await invite(manager);
    const pair = createUser();
    const key = pair.getPublicKey();
    const signature = (by = pair) => Buffer.from(by.sign(joinProof(code))).toString('base64url');
    assert.deepEqual(await ask(JSON.stringify({ code, publicKey: key, signature: signature(), name: 'evil\u0000name' })), { ok: false, error: 'the join request is malformed (name: no control characters)' });
    assert.match((await ask(JSON.stringify({ code, publicKey: 'not-a-key', signature: signature(), name: 'x' }))).error, /not an NKey of a user/);
    // someone else's key: the join must be signed by the key it presents
    assert.match((await ask(JSON.stringify({ code, publicKey: key, signature: signature(createUser()), name: 'x' }))).error, /not signed by the key it presents/);
    assert.match((await ask(JSON.stringify({ code, publicKey: key, signature: 'not base64', name: 'x' }))).error, /not signed by the key it presents/);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.string(), fc.uint8Array({ maxLength: 2000 }), fc.record({ code: fc.string(), publicKey: fc.string(), signature: fc.string(), name: fc.string() }).map((r) => JSON.stringify(r))), async (payload) => {
        const answer = await ask(payload);
        assert.equal(answer.ok, false);
        assert.equal(typeof answer.error, 'string');
      }),
      { numRuns: 60 },
    );
    assert.deepEqual((await getJson(`${manager.url}/api/dashboard/machines`)).body.machines, []);
    assert.match((await ask(JSON.stringify({ code, publicKey: key, signature: signature(), name: 'good' }))).error, /too many wrong codes/, 'bounded, and still answering');
  });
});

describe('the fleet: the hub restarted', { skip }, () => {
  test('a new dashboard on the same home knows its machines, and they come back to it by themselves', async (t) => {
    const port = await freePort();
    const natsUrl = `nats://127.0.0.1:${port}`;
    const fleet = { host: '127.0.0.1', port, heartbeatMs: HEARTBEAT_MS };
    const first = await startManager({ fleet });
    const home = machineHome();
    let second: TestManager | undefined;
    let server: TestServer | undefined;
    t.after(async () => {
      await server?.close();
      await second?.close();
      rmSync(home, { recursive: true, force: true });
    });
    const { code } = await invite(first);
    const { machineId } = await joinFleet({ url: natsUrl, code, name: 'desk', home });
    server = await startServer({ home, fleetHeartbeatMs: HEARTBEAT_MS });
    await until(() => (first.app.fleet.hub!.machines().find((x) => x.id === machineId)?.online ? true : undefined), 'online', 15_000);
    await first.close({ removeHome: false });
    await until(async () => ((await getJson(`${server!.url}/api/runtime`)).body.fleet.state === 'reconnecting' ? true : undefined), 'the machine notices');
    const restartedAt = Date.now();
    second = await startManager({ home: first.home, fleet });
    assert.deepEqual(second.app.fleet.hub!.machines().map((m) => [m.id, m.name]), [[machineId, 'desk']], 'kept in its database');
    await until(() => ((second!.app.fleet.hub!.machines()[0]!.lastSeen ?? 0) > restartedAt ? true : undefined), 'heard by the new hub', 15_000);
    await until(async () => ((await getJson(`${server!.url}/api/runtime`)).body.fleet.state === 'connected' ? true : undefined), 'connected again');
  });
});

describe('the fleet: codes that expire, wrong codes bounded', { skip }, () => {
  test('an expired code is refused; after ten wrong codes in a minute even a good one waits', async (t) => {
    const { manager, url } = await fleetManager({ inviteTtlMs: 300 });
    const home = machineHome();
    t.after(async () => {
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    });
    const { code } = await invite(manager);
    await new Promise((r) => setTimeout(r, 400));
    assert.match(await joinError(joinFleet({ url, code, name: 'late', home })), /expired/);
    for (let i = 0; i < 9; i++) await joinError(joinFleet({ url, code: `AAAAA-AAAA${i}`, name: 'guess', home }));
    const fresh = (await invite(manager)).code;
    assert.match(await joinError(joinFleet({ url, code: fresh, name: 'good', home })), /too many wrong codes: try again in \d+ s/);
  });
});

describe('the fleet off', () => {
  test('without --fleet, or without nats-server: the routes say why and what to do', async (t) => {
    const plain = await startManager();
    const noNats = await startManager({ fleet: { host: '127.0.0.1', port: await freePort(), search: { env: { PATH: '/nonexistent' }, dirs: '/nonexistent' } } });
    t.after(async () => {
      await plain.close();
      await noNats.close();
    });
    for (const [m, why] of [[plain, /svc dashboard serve --fleet/], [noNats, /apt-get install nats-server/]] as const) {
      const status = (await getJson(`${m.url}/api/dashboard/fleet`)).body;
      assert.equal(status.enabled, false);
      assert.match(status.reason, why);
      const res = await sendJson(`${m.url}/api/dashboard/fleet/invites`, 'POST', {});
      assert.equal(res.status, 409);
      assert.equal(res.body.error, 'FLEET_DISABLED');
      assert.match(res.body.message, why);
      assert.deepEqual((await getJson(`${m.url}/api/dashboard/machines`)).body, { machines: [] });
    }
  });

  test("a NATS port in use: the dashboard runs without the fleet and says why, in nats-server's words", { skip }, async (t) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const m = await startManager({ fleet: { host: '127.0.0.1', port } });
    t.after(async () => {
      await m.close();
      await new Promise((resolve) => taken.close(resolve));
    });
    const status = (await getJson(`${m.url}/api/dashboard/fleet`)).body;
    assert.equal(status.enabled, false);
    assert.match(status.reason, /the fleet's nats-server did not start: nats-server exited while starting: .*address already in use/);
    assert.equal(m.app.fleet.hub, undefined);
  });

  test('svc dashboard serve --fleet refuses a network NATS address without TLS', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-manager-'));
    try {
      const r = await runSvc(['dashboard', 'serve', '--fleet', '--nats-host', '0.0.0.0', '--port', '0', '--home', home]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /open to the network without TLS: give --tls-cert and --tls-key/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
