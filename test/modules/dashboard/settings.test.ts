// The manager's settings: GET/PUT /api/dashboard/settings validated, kept in its database across
// restarts, applied at once (a new scan range is scanned now, the health loop takes its new
// period), and start-up options that override the kept values for one run until a change sets them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer, tempHome, type TestServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { startManager, until, findMessage, type TestManager } from './helpers.ts';

const put = (manager: TestManager, body: unknown) => sendJson(`${manager.url}/api/dashboard/settings`, 'PUT', body);

test('settings: defaults under this run\'s options, validation, and a new scan range scanned at once', async () => {
  let instance: TestServer | undefined;
  const manager = await startManager();
  try {
    const first = await getJson(`${manager.url}/api/dashboard/settings`);
    assert.equal(first.status, 200);
    // the test manager runs with its own scan (none), health period and backoff cap
    assert.deepEqual(first.body.settings, { scan: { from: 1, count: 0, intervalSec: 60 }, healthIntervalSec: 0.5, bridgeMaxBackoffSec: 0.5 });
    assert.deepEqual(first.body.overridden.sort(), ['bridgeMaxBackoffSec', 'healthIntervalSec', 'scan.count', 'scan.from']);

    for (const [body, field] of [
      [{ scan: { from: 0 } }, 'scan.from'],
      [{ scan: { count: 5000 } }, 'scan.count'],
      [{ scan: { intervalSec: 1 } }, 'scan.intervalSec'],
      [{ healthIntervalSec: 0 }, 'healthIntervalSec'],
      [{ bridgeMaxBackoffSec: 'soon' }, 'bridgeMaxBackoffSec'],
      [{ colour: 'blue' }, ''],
    ] as const) {
      const answer = await put(manager, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, 'VALIDATION_FAILED');
      if (field) assert.match(answer.body.message, new RegExp(field.replace('.', '\\.')));
    }
    const past = await put(manager, { scan: { from: 65_500, count: 100 } });
    assert.equal(past.status, 400);
    assert.equal(past.body.error, 'INVALID_SETTING');
    assert.equal(past.body.field, 'scan.count');
    assert.equal((await getJson(`${manager.url}/api/dashboard/settings`)).body.settings.scan.from, 1, 'a refused change changes nothing');

    instance = await startServer();
    const port = Number(new URL(instance.url).port);
    const sse = await openSse(`${manager.url}/api/events`);
    try {
      const changed = await put(manager, { scan: { from: port, count: 1 } });
      assert.equal(changed.status, 200);
      assert.deepEqual(changed.body.settings.scan, { from: port, count: 1, intervalSec: 60 });
      assert.deepEqual(changed.body.overridden.sort(), ['bridgeMaxBackoffSec', 'healthIntervalSec'], 'the change replaces the start-up values it sets');
      await findMessage(sse, (d) => d.event === 'dashboard_activity' && d.kind === 'settings' && d.message.includes(`scan.from 1 → ${port}`), 'the change in the activity feed');
      // scanned at once: no POST /api/dashboard/scan
      const found = await until(async () => {
        const { body } = await getJson(`${manager.url}/api/dashboard/instances`);
        return body.instances.find((i: any) => i.url === instance!.url && i.status === 'online');
      }, 'the instance in the new range');
      assert.equal(found.origin, 'scanned');
      assert.deepEqual((await getJson(`${manager.url}/api/dashboard/health`)).body.scan.from, port);
    } finally {
      sse.close();
    }
  } finally {
    await manager.close();
    await instance?.close();
  }
});

test('settings: the health loop takes a new period at once', async (t) => {
  const instance = await startServer();
  // The health loop runs on setInterval, mocked here (only intervals: requests and their timeouts keep
  // real time), so the test moves the loop's clock itself and counts the checks each move starts: "no
  // check within the hour" is a count at an exact moment, not a sleep that a loaded machine may outlast.
  t.mock.timers.enable({ apis: ['setInterval'] });
  const manager = await startManager();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token })).body.id as string;
    const checkedAt = async () => (await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.checkedAt as number;
    const checked = async (after: number, what: string) => until(async () => ((await checkedAt()) > after ? true : undefined), what);
    // the loop starts its checks synchronously when its interval fires; other checks (the bridge's on
    // connecting) need I/O, so none can land inside a tick
    const refresh = t.mock.method(manager.app.instances, 'refresh');
    const checksIn = (ms: number) => {
      const before = refresh.mock.callCount();
      t.mock.timers.tick(ms);
      return refresh.mock.callCount() - before;
    };

    const t0 = await checkedAt();
    assert.deepEqual([checksIn(499), checksIn(1)], [0, 1], 'one check at the start-up period (0.5 s)');
    await checked(t0, 'the check at the start-up period to land');
    assert.equal((await put(manager, { healthIntervalSec: 3600 })).status, 200);
    const t1 = await checkedAt();
    assert.equal(checksIn(1500), 0, 'no check in 1.5 s at a period of an hour');
    assert.equal(checksIn(3600_000 - 1500 - 1), 0);
    assert.equal(checksIn(1), 1, 'the next check an hour after the change');
    await checked(t1, 'the check at the hour to land');
    const t2 = await checkedAt();
    assert.equal((await put(manager, { healthIntervalSec: 1 })).status, 200);
    assert.deepEqual([checksIn(999), checksIn(1)], [0, 1], 'a check at the new period (1 s)');
    await checked(t2, 'the check at the new period to land');
  } finally {
    await manager.close();
    // the instance's own intervals were made before the mock: clear them with the real functions
    t.mock.timers.reset();
    await instance.close();
  }
});

test('settings are kept across restarts; a start-up option overrides a kept value for that run only', async () => {
  const home = tempHome('svc-manager-');
  let manager = await startManager({ home });
  try {
    assert.equal((await put(manager, { scan: { from: 2, count: 7, intervalSec: 120 }, bridgeMaxBackoffSec: 12 })).status, 200);
    await manager.close({ removeHome: false });

    manager = await startManager({ home, scan: undefined, pollMs: undefined, bridge: { minBackoffMs: 50 } });
    const kept = (await getJson(`${manager.url}/api/dashboard/settings`)).body;
    assert.deepEqual(kept, { settings: { scan: { from: 2, count: 7, intervalSec: 120 }, healthIntervalSec: 10, bridgeMaxBackoffSec: 12 }, overridden: [] });
    await manager.close({ removeHome: false });

    manager = await startManager({ home, scan: { count: 0 }, pollMs: undefined, bridge: { minBackoffMs: 50 } });
    const overridden = (await getJson(`${manager.url}/api/dashboard/settings`)).body;
    assert.deepEqual(overridden.settings.scan, { from: 2, count: 0, intervalSec: 120 });
    assert.deepEqual(overridden.overridden, ['scan.count']);
    await manager.close({ removeHome: false });

    manager = await startManager({ home, scan: undefined, pollMs: undefined, bridge: { minBackoffMs: 50 } });
    assert.equal((await getJson(`${manager.url}/api/dashboard/settings`)).body.settings.scan.count, 7, 'the override was for that run only');
  } finally {
    await manager.close();
  }
});
