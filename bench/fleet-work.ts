// The fleet's work queue: 200 items queued to "any" over 3 machines, then one machine killed with SIGKILL mid-run.
// The hub (`svc dashboard serve --fleet`) and the machines (`svc serve` on joined homes, each running 2 items at once
// with the fake Claude Code CLI of the tests) are built CLIs in processes of their own, with the real nats-server.
// Figures: items a second and each machine's share; an item's time from queued to ended (p50/p99); and after the
// kill, the time until another machine took the item and until it ended, against the ack wait (30 s, the default).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNatsServer, joinFleet } from '../src/modules/fleet/hub-side.ts';
import { WORK_ACK_WAIT_MS } from '../src/modules/fleet/work-queue.ts';
import { createCoreServer } from '../src/servers/core.ts';
import { FAKE_CLIS } from '../test/support/agent.ts';
import { freePort } from '../test/support/ports.ts';
import { json, until } from './support/fleet-http.ts';
import { nowMs, summarize } from './support/stats.ts';

const ITEMS = Number(process.env.WORK_ITEMS ?? 200);
const MACHINES = 3;
const AT_ONCE = 2;

interface Item {
  id: string;
  status: string;
  machineId: string | null;
  createdAt: number;
  updatedAt: number;
  attempts: { machineId: string; status: string; startedAt: number }[];
}

async function main(): Promise<Record<string, unknown>> {
  if (!findNatsServer()) return { skipped: 'nats-server is not installed' };
  const hubHome = mkdtempSync(join(tmpdir(), 'svc-bench-hub-'));
  const homes = Array.from({ length: MACHINES }, () => mkdtempSync(join(tmpdir(), 'svc-bench-machine-')));
  const [natsPort, hubPort] = [await freePort(), await freePort()];
  const children = new Map<string, ChildProcess>();
  const start = (key: string, args: string[], home: string) => {
    const child = spawn(process.execPath, ['bin/svc.js', ...args, '--home', home], { env: { PATH: process.env.PATH, HOME: home }, stdio: 'ignore' });
    children.set(key, child);
    return child;
  };
  try {
    const hub = `http://127.0.0.1:${hubPort}`;
    start('hub', ['dashboard', 'serve', '--fleet', '--nats-port', String(natsPort), '--port', String(hubPort), '--count', '0'], hubHome);
    await until(async () => ((await json<{ nats: string }>(`${hub}/api/dashboard/fleet`)).nats === 'running' ? true : undefined), 'the hub', 30_000);
    const ids: string[] = [];
    for (const [n, home] of homes.entries()) {
      // the machine's settings first: the fake Claude Code with a login, two items at once
      const setup = await createCoreServer({ home, logLevel: 'silent' });
      setup.services.settings.update({ agent: { executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: home, ANTHROPIC_API_KEY: 'fake-key' } }, fleet: { workAtOnce: AT_ONCE } });
      await setup.close();
      const { code } = await json<{ code: string }>(`${hub}/api/dashboard/fleet/invites`, { method: 'POST', body: '{}' });
      const joined = await joinFleet({ url: `nats://127.0.0.1:${natsPort}`, code, name: `machine ${n}`, home });
      ids.push(joined.machineId);
      start(joined.machineId, ['serve', '--port', '0', '--proxy-port', '0'], home);
    }
    await until(async () => ((await json<{ machines: { online: boolean }[] }>(`${hub}/api/dashboard/machines`)).machines.filter((m) => m.online).length === MACHINES ? true : undefined), 'the machines online', 60_000);

    const queuedAt = nowMs();
    const queued: string[] = [];
    for (let i = 0; i < ITEMS; i++) queued.push((await json<{ id: string }>(`${hub}/api/dashboard/work`, { method: 'POST', body: JSON.stringify({ prompt: `item ${i} scenario:text` }) })).id);
    const done = await until(async () => {
      const { items } = await json<{ items: Item[] }>(`${hub}/api/dashboard/work`);
      const ours = items.filter((i) => queued.includes(i.id));
      return ours.every((i) => i.status === 'succeeded' || i.status === 'failed') ? ours : undefined;
    }, 'every item ended', 600_000, 250);
    const allMs = nowMs() - queuedAt;
    const share = Object.fromEntries(ids.map((id, n) => [`machine ${n}`, done.filter((i) => i.machineId === id).length]));

    // one machine killed mid-run: its item goes to another after the ack wait
    const slow = (await json<{ id: string }>(`${hub}/api/dashboard/work`, { method: 'POST', body: JSON.stringify({ prompt: 'slow item scenario:text delay:3000' }) })).id;
    const running = await until(async () => {
      const i = await json<Item>(`${hub}/api/dashboard/work/${slow}`);
      return i.status === 'running' ? i : undefined;
    }, 'the slow item running');
    const killedAt = nowMs();
    children.get(running.machineId!)!.kill('SIGKILL');
    await until(async () => {
      const i = await json<Item>(`${hub}/api/dashboard/work/${slow}`);
      return i.attempts.length === 2 ? i : undefined;
    }, 'the item taken by another machine', 120_000, 20);
    const retakenMs = nowMs() - killedAt;
    const ended = await until(async () => {
      const i = await json<Item>(`${hub}/api/dashboard/work/${slow}`);
      return i.status === 'succeeded' || i.status === 'failed' ? i : undefined;
    }, 'the item ended', 120_000, 20);
    return {
      items: ITEMS,
      machines: MACHINES,
      atOnceEach: AT_ONCE,
      succeeded: done.filter((i) => i.status === 'succeeded').length,
      itemsPerSecond: Number((ITEMS / (allMs / 1000)).toFixed(2)),
      share,
      queuedToEndedMs: summarize(done.map((i) => i.updatedAt - i.createdAt), 0),
      afterKill: {
        ackWaitMs: WORK_ACK_WAIT_MS,
        takenByAnotherMs: Math.round(retakenMs),
        endedMs: Math.round(nowMs() - killedAt),
        attempts: ended.attempts.map((a) => a.status),
        status: ended.status,
      },
    };
  } finally {
    for (const child of [...children.values()].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    for (const h of [hubHome, ...homes]) rmSync(h, { recursive: true, force: true });
  }
}

console.log(JSON.stringify(await main(), null, 2));
