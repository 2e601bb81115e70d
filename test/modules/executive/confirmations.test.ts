// Lifecycle of owned instances through the executive: refused without a confirmation, refused with
// one that is pending, cancelled, expired, of another action or instance, or used already; an
// approved one is consumed by the action it authorizes (never by the approval). Real `svc serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { isAlive } from '../../support/agent.ts';
import { argsHash } from '../../../src/modules/executive/confirmation.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';

test('the argument hash binds the action and each argument', () => {
  const stopA = argsHash('stop', { instanceId: 'a' });
  assert.match(stopA, /^[0-9a-f]{64}$/);
  assert.equal(argsHash('stop', { instanceId: 'a' }), stopA);
  assert.notEqual(argsHash('restart', { instanceId: 'a' }), stopA);
  assert.notEqual(argsHash('stop', { instanceId: 'b' }), stopA);
});

test('stop, restart and start of an owned instance need an approved confirmation of exactly that action, used once', async () => {
  let manager: TestManager | undefined;
  const pids: number[] = [];
  try {
    manager = await startManager();
    const base = `${manager.url}/api/svc-ceo`;
    const inst = (await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'worker' })).body;
    pids.push(inst.pid);
    const act = (action: string, confirmationId?: string) => sendJson(`${base}/instances/${inst.id}/${action}`, 'POST', confirmationId ? { confirmationId } : {});
    const confirmation = async (action: string, extra: Record<string, unknown> = {}) => {
      const created = await sendJson(`${base}/confirmations`, 'POST', { action, instanceId: inst.id, ...extra });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    };
    // a script decides with the manager's token, even on loopback
    const asPerson = { authorization: `Bearer ${manager.app.token}`, 'content-type': 'application/json' };
    const decide = (id: string, verb: 'confirm' | 'cancel', headers: Record<string, string> = asPerson) => getJson(`${base}/confirmations/${id}/${verb}`, { method: 'POST', headers, body: '{}' });

    const bare = await act('stop');
    assert.equal(bare.status, 403);
    assert.equal(bare.body.error, 'CONFIRMATION_REQUIRED');
    assert.ok(isAlive(inst.pid), 'refused: still running');

    const stop = await confirmation('stop');
    assert.equal(stop.status, 'pending');
    assert.equal(stop.argsHash, argsHash('stop', { instanceId: inst.id }), 'the server computes the hash');
    assert.ok(Math.abs(stop.expiresAt - stop.createdAt - 120_000) < 5, 'expires after 2 minutes by default');
    assert.equal((await act('stop', stop.id)).status, 403, 'a pending confirmation authorizes nothing');

    // approval by anything but a person is refused: an agent run (even with the token), a bare loopback
    // process, one that sets the console's header without a browser's fetch metadata, a wrong token
    const json = { 'content-type': 'application/json' };
    const refusals = [
      { ...asPerson, 'x-svc-run-token': 'anything' },
      json,
      { ...json, 'x-svc-console': '1' },
      { ...json, 'x-svc-console': '1', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: manager.url },
      { ...json, authorization: 'Bearer not-the-token' },
    ];
    for (const headers of refusals) {
      for (const verb of ['confirm', 'cancel'] as const) {
        const refused = await decide(stop.id, verb, headers);
        assert.deepEqual([refused.status, refused.body.error], [403, 'PERSON_REQUIRED'], JSON.stringify(headers));
      }
    }
    assert.match((await decide(stop.id, 'confirm', json)).body.message, /console page.*token/);
    assert.equal((await getJson(`${base}/state`)).body.confirmations.find((c: any) => c.id === stop.id).status, 'pending', 'still pending');

    const approved = (await decide(stop.id, 'confirm')).body;
    assert.equal(approved.status, 'approved', 'confirming marks it approved and does not consume it');
    assert.equal((await decide(stop.id, 'confirm')).status, 409, 'approved once');
    const wrongAction = await act('restart', stop.id);
    assert.equal(wrongAction.status, 403, 'a stop confirmation does not authorize a restart');
    assert.match(wrongAction.body.message, /another action/);
    assert.ok(isAlive(inst.pid));

    const stopped = await act('stop', stop.id);
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.equal(stopped.body.instance.status, 'offline');
    assert.equal(isAlive(inst.pid), false);
    const reused = await act('stop', stop.id);
    assert.equal(reused.status, 403, 'the same confirmation cannot be used twice');
    assert.match(reused.body.message, /consumed/);

    // cancelled and expired confirmations authorize nothing
    const cancelled = await confirmation('start');
    assert.equal((await decide(cancelled.id, 'cancel')).body.status, 'cancelled');
    assert.equal((await decide(cancelled.id, 'confirm')).status, 409);
    assert.equal((await act('start', cancelled.id)).status, 403);
    const short = await confirmation('start', { expiresInMs: 1000 });
    await decide(short.id, 'confirm');
    await until(() => (Date.now() > short.expiresAt ? true : undefined), 'the confirmation expires');
    const expired = await act('start', short.id);
    assert.equal(expired.status, 403);
    assert.match(expired.body.message, /expired/);

    const start = await confirmation('start');
    await decide(start.id, 'confirm');
    const started = await act('start', start.id);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.instance.status, 'online');
    pids.push(started.body.instance.pid);

    const policy = (await getJson(`${base}/audit?kind=policy`)).body.audit;
    assert.ok(policy.length >= 5 && policy.every((r: any) => r.ok === false && r.instanceId === inst.id));
    const lifecycle = (await getJson(`${base}/audit?kind=lifecycle`)).body.audit;
    assert.deepEqual(lifecycle.map((r: any) => r.action), ['start', 'stop']);

    // restart, then stop, to leave nothing running
    for (const action of ['restart', 'stop']) {
      const c = await confirmation(action);
      await decide(c.id, 'confirm');
      const done = await act(action, c.id);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      if (done.body.instance.pid) pids.push(done.body.instance.pid);
    }
  } finally {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await manager?.close();
  }
});

test('an instance the manager did not start gets no confirmation', async () => {
  const manager = await startManager();
  const external = await startServer();
  try {
    const added = await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: external.url, token: external.app.services.token });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const refused = await sendJson(`${manager.url}/api/svc-ceo/confirmations`, 'POST', { action: 'stop', instanceId: added.body.id });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'INSTANCE_NOT_OWNED');
  } finally {
    await manager.close();
    await external.close();
  }
});
