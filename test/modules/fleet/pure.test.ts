// The fleet's pure parts: invite codes, the hub's nats-server config, the bound on failed joins, a machine's list of
// its other instances after each scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CODE_BITS, inviteCodeHash, newInviteCode, normalizeInviteCode } from '../../../src/modules/fleet/invite-code.ts';
import { isLoopbackHost, machinePermissions, operatorUserPermissions, renderNatsConfig } from '../../../src/modules/fleet/nats-config.ts';
import { CredsError, machineIdOf, parseCreds } from '../../../src/modules/fleet/creds.ts';
import { createAccount, createUser } from '@nats-io/nkeys';
import { encodeUser, fmtCreds } from '@nats-io/jwt';
import { parseNatsLogLine } from '../../../src/modules/fleet/nats-server.ts';
import { fleetInstanceId, fleetInstanceUrl, parseFleetInstanceUrl, tunnelledUrl } from '../../../src/modules/fleet/instance-names.ts';
import { providerNotReady } from '../../../src/modules/fleet/local-work.ts';
import type { ReadyCliStatus } from '../../../src/agent/detect.ts';
import { FailureWindow } from '../../../src/modules/fleet/rate-limit.ts';
import { MISSED_SCANS_TO_LEAVE, afterScan, type ListedSibling } from '../../../src/modules/fleet/local-instances.ts';
import { JOIN_SUBJECT, JOIN_USER, heartbeatSubject, machineOfSubject, requestSubject, workConsumer } from '../../../src/modules/fleet/subjects.ts';

test('invite codes: at least 40 bits, two groups of five, read back however they are typed, kept as a hash', () => {
  assert.ok(CODE_BITS >= 40);
  const codes = new Set(Array.from({ length: 2000 }, newInviteCode));
  assert.equal(codes.size, 2000, 'no repeats in 2,000');
  for (const code of [...codes].slice(0, 50)) {
    assert.match(code, /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    const normalized = normalizeInviteCode(code)!;
    assert.equal(normalizeInviteCode(` ${code.toLowerCase().replace('-', ' ')} `), normalized);
    assert.equal(inviteCodeHash(normalized).length, 64);
    assert.ok(!inviteCodeHash(normalized).includes(normalized));
  }
  assert.equal(normalizeInviteCode('oi0l1-ABCDE'), '01011ABCDE', 'O reads as 0, I and L as 1');
  for (const bad of ['', 'ABCDE', 'ABCDE-FGHJKM', 'ABCDE-FGHJU', 'ABCDE-FGH\0K']) assert.equal(normalizeInviteCode(bad), undefined, bad);
  fc.assert(fc.property(fc.string(), (typed) => {
    const n = normalizeInviteCode(typed);
    assert.ok(n === undefined || /^[0-9A-HJKMNP-TV-Z]{10}$/.test(n));
  }));
});

test('the config: the hub may do anything, the join user only join, each machine only its own subjects', () => {
  const config = JSON.parse(renderNatsConfig({
    serverName: 'svc-fleet-hub-1', host: '127.0.0.1', port: 4222, hubPublicKey: 'UHUB', machines: [{ id: 'm_a', publicKey: 'UA' }, { id: 'm_b', publicKey: 'UB' }],
    storeDir: '/h/fleet/jetstream', maxStoreBytes: 1024,
  }));
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 4222);
  assert.equal(config.log_file, undefined, 'its log comes on stderr, which the hub keeps in a rotated file');
  assert.equal(config.logtime, false);
  assert.equal(config.server_name, 'svc-fleet-hub-1');
  assert.equal(config.tls, undefined);
  assert.deepEqual(config.jetstream, { store_dir: '/h/fleet/jetstream', max_file_store: 1024, max_memory_store: 64 * 1024 * 1024 });
  const [hub, joiner, a, b] = config.authorization.users;
  assert.deepEqual(hub, { nkey: 'UHUB' });
  assert.deepEqual(joiner, { user: JOIN_USER.user, password: JOIN_USER.pass, permissions: { publish: { allow: [JOIN_SUBJECT] }, subscribe: { allow: ['_INBOX_JOIN.>'] } } });
  assert.deepEqual(a, { nkey: 'UA', permissions: machinePermissions('m_a') });
  // its own subjects, and of JetStream only pulling and acknowledging from the shared work consumer and its own
  assert.deepEqual(b.permissions.publish, {
    allow: [
      'svc.fleet.m.m_b.>',
      '$JS.API.CONSUMER.INFO.SVC_WORK.any', '$JS.API.CONSUMER.MSG.NEXT.SVC_WORK.any', '$JS.ACK.SVC_WORK.any.>',
      '$JS.API.CONSUMER.INFO.SVC_WORK.m-m_b', '$JS.API.CONSUMER.MSG.NEXT.SVC_WORK.m-m_b', '$JS.ACK.SVC_WORK.m-m_b.>',
    ],
    deny: ['svc.fleet.m.m_b.request.>'],
  });
  assert.deepEqual(b.permissions.subscribe, { allow: ['svc.fleet.m.m_b.>', '_INBOX_m_b.>'] });
  const withTls = JSON.parse(renderNatsConfig({ serverName: 'n', host: '0.0.0.0', port: 4222, tls: { certFile: '/c.pem', keyFile: '/k.pem' }, hubPublicKey: 'U', machines: [], storeDir: '/s', maxStoreBytes: 1 }));
  assert.deepEqual(withTls.tls, { cert_file: '/c.pem', key_file: '/k.pem', timeout: 5 });
});

test('subjects: a machine id is read back from its subjects; loopback hosts', () => {
  assert.equal(machineOfSubject(heartbeatSubject('m_x1')), 'm_x1');
  assert.equal(machineOfSubject(requestSubject('m_x1', 'status')), 'm_x1');
  assert.equal(machineOfSubject('svc.other.m_x1.heartbeat'), undefined);
  assert.equal(machineOfSubject('svc.fleet'), undefined);
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) assert.ok(isLoopbackHost(host), host);
  for (const host of ['0.0.0.0', '::', '192.168.1.2', 'hub.example', '127.0.0.1.example']) assert.ok(!isLoopbackHost(host), host);
});

test('failed joins: at most ten a minute, counted over every joiner', () => {
  const window = new FailureWindow(10, 60_000);
  for (let i = 0; i < 10; i++) {
    assert.ok(window.open(1000 + i));
    window.fail(1000 + i);
  }
  assert.equal(window.open(2000), false);
  assert.equal(window.retryAfterMs(2000), 59_000);
  assert.equal(window.open(61_000), true, 'the first failure has left the window');
});

test('instance names: an id and a registry URL per machine and key, read back; requests through a tunnel go to plain http', () => {
  const url = fleetInstanceUrl('m_a-B_c', '0123456789ab');
  assert.deepEqual(parseFleetInstanceUrl(url), { machineId: 'm_a-B_c', key: '0123456789ab' });
  assert.equal(parseFleetInstanceUrl('http://127.0.0.1:3000'), undefined);
  assert.equal(parseFleetInstanceUrl('fleet://m_a/not-a-key'), undefined);
  assert.notEqual(fleetInstanceId('m_a', '0123456789ab'), fleetInstanceId('m_b', '0123456789ab'));
  assert.equal(tunnelledUrl('https://127.0.0.1:8443'), 'http://127.0.0.1:8443');
  assert.equal(tunnelledUrl('http://[::1]:3000/'), 'http://[::1]:3000');
});

test('a provider is ready for work when detected, installed and not without a login', () => {
  // (the fields providerNotReady reads; the rest of a detected status does not matter to it)
  const ready = { state: 'ready', installed: true, path: '/x', version: '1', checkedAt: 0, credentials: { state: 'found', source: 'env' } } as unknown as ReadyCliStatus;
  assert.equal(providerNotReady('claude', ready), undefined);
  assert.equal(providerNotReady('claude', { ...ready, credentials: { state: 'unknown' } }), undefined, 'svc cannot tell: it may run');
  assert.match(providerNotReady('claude', { ...ready, credentials: { state: 'missing' } })!, /no login/);
  assert.match(providerNotReady('claude', { ...ready, installed: false })!, /not installed/);
  assert.match(providerNotReady('claude', { state: 'detecting' })!, /being detected/);
  assert.match(providerNotReady('claude', undefined)!, /being detected/);
});

test("a sibling stays listed through missed scans, leaves after three in a row, and at once when another answers on its port", () => {
  assert.equal(MISSED_SCANS_TO_LEAVE, 3);
  const sibling = (key: string, port: number) => ({ key, port, url: `http://127.0.0.1:${port}`, token: `t-${key}`, version: '1', provider: null, busy: false });
  const scan = (before: Map<string, ListedSibling>, ...found: ReturnType<typeof sibling>[]) => afterScan(before, new Map(found.map((s) => [s.key, s])));
  const keys = (list: Map<string, ListedSibling>) => [...list.values()].map((s) => `${s.key}:${s.missed}`).sort();

  let list = scan(new Map(), sibling('a', 3458), sibling('b', 3459));
  assert.deepEqual(keys(list), ['a:0', 'b:0']);
  list = scan(list, sibling('b', 3459));
  assert.deepEqual(keys(list), ['a:1', 'b:0'], 'one missed scan: still listed');
  list = scan(list, sibling('a', 3458), sibling('b', 3459));
  assert.deepEqual(keys(list), ['a:0', 'b:0'], 'an answer counts the misses from zero again');
  list = scan(scan(list), sibling('b', 3459));
  assert.deepEqual(keys(list), ['a:2', 'b:0']);
  assert.equal(list.get('a')!.token, 't-a', 'kept as it was last seen');
  list = scan(list, sibling('b', 3459));
  assert.deepEqual(keys(list), ['b:0'], 'the third missed scan in a row: gone');
  list = scan(list, sibling('c', 3459));
  assert.deepEqual(keys(list), ['c:0'], 'another instance on its port: the old one is gone at once');
  // listed exactly when it answered one of the last three scans
  const names = ['x', 'y', 'z'];
  fc.assert(fc.property(fc.array(fc.subarray(names)), (scans) => {
    let l = new Map<string, ListedSibling>();
    scans.forEach((answered, n) => {
      l = scan(l, ...answered.map((k) => sibling(k, 4000 + names.indexOf(k))));
      for (const k of names) {
        const last = scans.slice(0, n + 1).map((a) => a.includes(k)).lastIndexOf(true);
        assert.equal(l.has(k), last >= 0 && n - last < MISSED_SCANS_TO_LEAVE, `${k} after ${JSON.stringify(scans.slice(0, n + 1))}`);
      }
    });
  }));
});

test("nats-server's log lines: level and text, with or without the time; anything else kept whole", () => {
  assert.deepEqual(parseNatsLogLine('[4321] [INF] Server is ready'), { level: 'info', message: 'Server is ready' });
  assert.deepEqual(parseNatsLogLine('[4321] 2026/11/29 10:00:00.123456 [ERR] Error listening on port: 0.0.0.0:4222, "address already in use"'), { level: 'error', message: 'Error listening on port: 0.0.0.0:4222, "address already in use"' });
  assert.deepEqual(parseNatsLogLine('[1] [WRN] Plaintext passwords detected'), { level: 'warn', message: 'Plaintext passwords detected' });
  assert.deepEqual(parseNatsLogLine('[1] [FTL] Error starting server'), { level: 'error', message: 'Error starting server' });
  assert.deepEqual(parseNatsLogLine('nats-server: bad flag'), { level: 'info', message: 'nats-server: bad flag' });
});

test('a .creds file: its JWT and seed, the public key from the seed; what is missing is named', async () => {
  const key = createUser();
  const account = createAccount();
  const jwt = await encodeUser('laptop', key, account, {});
  const text = new TextDecoder().decode(fmtCreds(jwt, key));
  assert.deepEqual(parseCreds(text), { jwt, seed: new TextDecoder().decode(key.getSeed()), publicKey: key.getPublicKey() });
  assert.throws(() => parseCreds(text.replace(/-----BEGIN NATS USER JWT-----[\s\S]*?------END NATS USER JWT------/, '')), (e: unknown) => e instanceof CredsError && /no user JWT/.test(e.message));
  assert.throws(() => parseCreds(text.replace(/-----BEGIN USER NKEY SEED-----[\s\S]*?------END USER NKEY SEED------/, '')), (e: unknown) => e instanceof CredsError && /no user seed/.test(e.message));
  assert.throws(() => parseCreds(text.replace(/(USER NKEY SEED-+\s*\n\s*)\S+/, '$1SUnotaseed')), (e: unknown) => e instanceof CredsError && /not an NKey seed/.test(e.message));
  assert.throws(() => parseCreds(text.replace(/(USER NKEY SEED-+\s*\n\s*)\S+/, `$1${new TextDecoder().decode(account.getSeed())}`)), (e: unknown) => e instanceof CredsError && /not a user/.test(e.message));
});

test("a machine's id comes from its key alone, fits a subject token, and its operator permissions are its own subjects and the join", () => {
  fc.assert(
    fc.property(fc.constant(null), () => {
      const key = createUser().getPublicKey();
      const id = machineIdOf(key);
      assert.match(id, /^m_[a-z2-7]{20}$/);
      assert.equal(machineIdOf(key), id);
      const permissions = operatorUserPermissions(id);
      const own = machinePermissions(id);
      assert.deepEqual(permissions.pub.allow, [...own.publish.allow, JOIN_SUBJECT]);
      assert.deepEqual(permissions.pub.deny, own.publish.deny);
      assert.deepEqual(permissions.sub.allow, own.subscribe.allow);
      for (const subject of [...permissions.pub.allow, ...permissions.sub.allow]) assert.ok(subject === JOIN_SUBJECT || subject.includes(id) || subject.includes(workConsumer('any')), subject);
    }),
    { numRuns: 50 },
  );
});
