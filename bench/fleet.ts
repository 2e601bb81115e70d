// The fleet's hub under 200 machines: `svc dashboard serve --fleet` (the built CLI, its own process, the real
// nats-server) joined by 200 machines that are light FleetMembers in this process, each beating once a second
// (five times the default rate). Figures: join latency (each join rewrites and reloads nats-server's config),
// the time until all 200 show online, and the hub's and nats-server's CPU and RSS over 20 s: idle first with
// no machine (the baseline, same run), then with the 200 beating.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMembership } from '../src/modules/fleet/membership.ts';
import { findNatsServer, joinFleet } from '../src/modules/fleet/hub-side.ts';
import { FleetMember } from '../src/modules/fleet/machine-side.ts';
import { freePort } from '../test/support/ports.ts';
import { nowMs, ratio, sleep, summarize } from './support/stats.ts';

const MACHINES = Number(process.env.FLEET_MACHINES ?? 200);
const WINDOW_MS = 20_000;
const TICK = 100; // clock ticks a second (USER_HZ)

/** CPU seconds and RSS of a process, from /proc. */
function usage(pid: number): { cpu: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { cpu: (Number(fields[11]) + Number(fields[12])) / TICK, rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024 };
}

async function window(pids: Record<string, number>): Promise<Record<string, { cpuPercent: number; rssMb: number }>> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, usage(pid)]));
  await sleep(WINDOW_MS);
  return Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => {
      const after = usage(pid);
      return [k, { cpuPercent: Number((((after.cpu - before[k]!.cpu) / (WINDOW_MS / 1000)) * 100).toFixed(1)), rssMb: Number(after.rssMb.toFixed(1)) }];
    }),
  );
}

async function main(): Promise<Record<string, unknown>> {
  if (!findNatsServer()) return { skipped: 'nats-server is not installed' };
  const managerHome = mkdtempSync(join(tmpdir(), 'svc-bench-hub-'));
  const homes: string[] = [];
  const natsPort = await freePort();
  const httpPort = await freePort();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: managerHome };
  const hub = spawn(process.execPath, ['bin/svc.js', 'dashboard', 'serve', '--fleet', '--nats-port', String(natsPort), '--port', String(httpPort), '--count', '0', '--home', managerHome], { env, stdio: 'ignore' });
  const members: FleetMember[] = [];
  try {
    const api = `http://127.0.0.1:${httpPort}`;
    const url = `nats://127.0.0.1:${natsPort}`;
    let natsPid: number | undefined;
    for (const end = Date.now() + 20_000; Date.now() < end && !natsPid; await sleep(100)) {
      const status = await fetch(`${api}/api/dashboard/fleet`).then((r) => r.json() as Promise<{ nats?: string }>, () => undefined);
      if (status?.nats === 'running') natsPid = Number(readFileSync(`/proc/${hub.pid}/task/${hub.pid}/children`, 'utf8').trim().split(' ')[0]);
    }
    if (!natsPid) throw new Error('the hub did not start');
    const pids = { hub: hub.pid!, natsServer: natsPid };
    const idle = await window(pids);

    const joins: number[] = [];
    for (let i = 0; i < MACHINES; i++) {
      const home = mkdtempSync(join(tmpdir(), 'svc-bench-machine-'));
      homes.push(home);
      const { code } = (await (await fetch(`${api}/api/dashboard/fleet/invites`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { code: string };
      const start = nowMs();
      await joinFleet({ url, code, name: `machine ${i}`, home });
      joins.push(nowMs() - start);
    }
    const started = nowMs();
    for (const home of homes) {
      const member = new FleetMember({ home, membership: readMembership(home)!, version: 'bench', heartbeatMs: 1000, instances: () => [{ key: '000000000000', url: 'http://127.0.0.1:3457', version: 'bench', provider: 'claude', busy: false }], token: () => undefined, accept: () => undefined });
      members.push(member);
      await member.start();
    }
    let allOnlineMs: number | null = null;
    for (const end = Date.now() + 30_000; Date.now() < end; await sleep(200)) {
      const { machines } = (await (await fetch(`${api}/api/dashboard/machines`)).json()) as { machines: { online: boolean }[] };
      if (machines.filter((m) => m.online).length === MACHINES) {
        allOnlineMs = Math.round(nowMs() - started);
        break;
      }
    }
    const loaded = await window(pids);
    return {
      machines: MACHINES,
      heartbeatsPerSecond: MACHINES,
      joinMs: summarize(joins, 1),
      allOnlineMs,
      idle,
      loaded,
      hubCpuPerHeartbeatMs: Number((((loaded.hub!.cpuPercent - idle.hub!.cpuPercent) / 100) * 1000 / MACHINES).toFixed(3)),
      rssRatio: { hub: ratio(loaded.hub!.rssMb, idle.hub!.rssMb), natsServer: ratio(loaded.natsServer!.rssMb, idle.natsServer!.rssMb) },
    };
  } finally {
    await Promise.all(members.map((m) => m.close()));
    hub.kill('SIGTERM');
    await new Promise((resolve) => hub.once('exit', resolve));
    for (const h of [managerHome, ...homes]) rmSync(h, { recursive: true, force: true });
  }
}

console.log(JSON.stringify(await main(), null, 2));
