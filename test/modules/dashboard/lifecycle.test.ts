// Instances the manager owns: start (own home, free port, marker with pid and token), re-adoption
// by a new manager on the same home, restart, stop. Real `svc serve` processes (bin/svc.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeDatabase, openDatabase } from '../../../src/store/db.ts';
import { managerMigrations } from '../../../src/store/migrations/manager/index.ts';
import { InstancesRepo, MARKER_FILE } from '../../../src/modules/dashboard/index.ts';
import { freePort } from '../../support/ports.ts';
import { getJson, sendJson, tempHome } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { isAlive } from '../../support/agent.ts';
import { startManager, until, type TestManager } from './helpers.ts';

test('start, re-adopt after a manager restart, restart and stop an owned instance', async () => {
  let manager: TestManager | undefined = await startManager();
  const home = manager.home;
  const pids: number[] = [];
  try {
    const started = await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'worker one' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const inst = started.body;
    pids.push(inst.pid);
    assert.equal(inst.owner, 'manager');
    assert.equal(inst.status, 'online');
    assert.equal(inst.home, join(home, 'instances', inst.id));
    assert.ok(isAlive(inst.pid));
    const markerPath = join(inst.home, 'dashboard-managed.json');
    const marker = JSON.parse(readFileSync(markerPath, 'utf8'));
    assert.equal(marker.pid, inst.pid);
    assert.equal(marker.instanceId, inst.id);
    assert.equal(marker.token, readFileSync(join(inst.home, 'token'), 'utf8').trim());
    assert.equal(statSync(markerPath).mode & 0o077, 0, 'the marker holds a token: private to the user');

    // a new manager on the same home adopts the running instance: same id, same process
    await manager.close({ removeHome: false });
    assert.ok(isAlive(inst.pid), 'instances outlive their manager');
    manager = await startManager({ home });
    const adopted = await until(async () => {
      const body = (await getJson(`${manager!.url}/api/dashboard/instances/${inst.id}`)).body;
      return body.status === 'online' ? body : undefined;
    }, 're-adopted');
    assert.equal(adopted.pid, inst.pid);
    assert.equal(adopted.owner, 'manager');

    const restarted = (await sendJson(`${manager.url}/api/dashboard/instances/${inst.id}/restart`, 'POST', {})).body;
    pids.push(restarted.pid);
    assert.equal(restarted.id, inst.id);
    assert.equal(restarted.status, 'online');
    assert.notEqual(restarted.pid, inst.pid);
    assert.equal(restarted.url, inst.url, 'the same port again');
    // stopped means no longer the instance; the exited process is reaped by its parent (this test process) a moment later
    await until(async () => (isAlive(inst.pid) ? undefined : true), 'the stopped process gone');

    const stopped = (await sendJson(`${manager.url}/api/dashboard/instances/${inst.id}/stop`, 'POST', {})).body;
    assert.equal(stopped.status, 'offline');
    await until(async () => (isAlive(restarted.pid) ? undefined : true), 'the stopped process gone');
    assert.equal(existsSync(markerPath), false);
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).body.instances.length, 1, 'a stopped instance stays registered');
  } finally {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await manager?.close();
  }
});

test('a new instance\'s home must be an absolute path: a relative one, or one with a NUL, is a 400 and creates nothing', async () => {
  const manager = await startManager();
  try {
    for (const home of ['fz-rel', './fz-rel', '../fz-rel', 'a\u0000b', '/tmp/a\u0000b']) {
      const answer = await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { home });
      assert.equal(answer.status, 400, `${JSON.stringify(home)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error, 'VALIDATION_FAILED');
      assert.equal(answer.body.field, 'home');
    }
    assert.ok(!existsSync(join(process.cwd(), 'fz-rel')), 'nothing was created in the manager\'s working directory');
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).body.instances.length, 0);
  } finally {
    await manager.close();
  }
});

test('a dead owned instance whose pid another process now has: shown as not running, never signalled, removable', async () => {
  // What a manager finds after its instance died and the system gave the pid to something else (a
  // container's small pid space, a reboot): the row and the marker still name that pid, which is alive.
  const home = tempHome('svc-manager-');
  const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
  const id = 'inst_deadbeef0001';
  const instanceHome = join(home, 'instances', id);
  let manager: TestManager | undefined;
  try {
    await once(stranger, 'spawn');
    mkdirSync(instanceHome, { recursive: true });
    const port = await freePort();
    writeFileSync(join(instanceHome, MARKER_FILE), JSON.stringify({ managedBy: 'svc-dashboard', instanceId: id, pid: stranger.pid, port, token: 't', startedAt: Date.now() }));
    const db = openDatabase(join(home, 'dashboard.db'), { migrationList: managerMigrations });
    new InstancesRepo(db).save({ id, url: `http://127.0.0.1:${port}`, label: 'gone', origin: 'started', token: 't', home: instanceHome, pid: stranger.pid!, createdAt: Date.now(), machineId: null });
    closeDatabase(db);

    manager = await startManager({ home });
    const row = await until(async () => {
      const body = (await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body;
      return body.checkedAt ? body : undefined;
    }, 'the first check');
    assert.equal(row.status, 'offline');
    assert.equal(row.reason, 'not running (start it again)', 'its process is gone, whatever has its pid now');
    // a stop never signals the process that has the pid now
    assert.equal((await sendJson(`${manager.url}/api/dashboard/instances/${id}/stop`, 'POST', {})).status, 200);
    assert.ok(isAlive(stranger.pid!), 'the other process was not signalled');
    const removed = await getJson(`${manager.url}/api/dashboard/instances/${id}`, { method: 'DELETE' });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances`)).body.instances.length, 0);
    assert.ok(isAlive(stranger.pid!));
  } finally {
    stranger.kill('SIGKILL');
    if (manager) await manager.close();
    else rmSync(home, { recursive: true, force: true });
  }
});

test('a running owned instance is still recognised as its process: removal is refused until it is stopped', async () => {
  // the other side of the rule: the instance's own process (its arguments name its home) still counts as running
  const manager = await startManager();
  let pid: number | undefined;
  try {
    const started = (await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'busy one' })).body;
    pid = started.pid;
    const refused = await getJson(`${manager.url}/api/dashboard/instances/${started.id}`, { method: 'DELETE' });
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /stop it before removing it/);
    assert.ok(isAlive(pid!));
    assert.equal((await sendJson(`${manager.url}/api/dashboard/instances/${started.id}/stop`, 'POST', {})).status, 200);
    await until(async () => (isAlive(pid!) ? undefined : true), 'the stopped process gone');
    assert.equal((await getJson(`${manager.url}/api/dashboard/instances/${started.id}`, { method: 'DELETE' })).status, 200);
  } finally {
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    await manager.close();
  }
});

test('an owned instance that stops answering and then dies: each new reason is an instance_status event', async () => {
  // The dashboard reads an instance's row again on its instance_status events: a reason that changed
  // while the status stayed offline (timed out, then not running) went unseen when only a status change sent one.
  const manager = await startManager();
  let pid: number | undefined;
  let events: SseConnection | undefined;
  try {
    const started = (await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'frozen one' })).body;
    pid = started.pid as number;
    events = await openSse(`${manager.url}/api/events`);
    const statusOf = (pred: (d: any) => boolean) => (m: { data: any }) => m.data.event === 'instance_status' && m.data.instanceId === started.id && pred(m.data);
    process.kill(pid, 'SIGSTOP');
    const frozen = await until(() => events!.messages.find(statusOf((d) => d.status === 'offline')), 'offline while frozen', 15_000);
    assert.doesNotMatch(frozen.data.reason ?? '', /not running/, 'the process is still there: it only does not answer');
    process.kill(pid, 'SIGKILL');
    const dead = await until(() => events!.messages.find(statusOf((d) => /not running/.test(d.reason ?? ''))), 'an event with the new reason', 15_000);
    assert.equal(dead.data.status, 'offline');
    assert.equal(dead.data.change, 'status');
  } finally {
    events?.close();
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    await manager.close();
  }
});
