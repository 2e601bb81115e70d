// The fleet's hub under 200 machines: `svc dashboard serve --fleet` (the built CLI, its own process, the real
// nats-server) joined by 200 machines that are light FleetMembers in this process, each beating once a second
// (five times the default rate). Figures: join latency (each join rewrites and reloads nats-server's config),
// the time until all 200 show online, and the hub's and nats-server's CPU and RSS over 20 s: idle first with
// no machine (the baseline, same run), then with the 200 beating, then with each machine's instance (a small HTTP
// server in this process that the hub reaches through the machine's tunnel) also sending 2 events a second through
// the machine's outbox and JetStream: relay latency to the hub's GET /api/events and events lost. The same events
// relayed today's way, from 60 local instances (core servers in a child process) read by the hub's HTTP event bridge,
// are measured first in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readMembership } from '../src/modules/fleet/membership.ts';
import { findNatsServer, joinFleet } from '../src/modules/fleet/hub-side.ts';
import { FleetMember } from '../src/modules/fleet/machine-side.ts';
import { freePort } from '../test/support/ports.ts';
import { openSse, type SseConnection } from '../test/support/sse.ts';
import { nowMs, ratio, sleep, summarize } from './support/stats.ts';

const MACHINES = Number(process.env.FLEET_MACHINES ?? 200);
const LOCAL_INSTANCES = 60;
const EVENTS_PER_SECOND = 2;
const WINDOW_MS = 20_000;
/** How long the relay may take to deliver what was sent before the window closed. */
const DRAIN_MS = 5_000;
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

/** The relayed `task_update`s on the hub's stream, by instance: each one's `removed` is when it was sent. */
function relayed(sse: SseConnection, from: number, ids: ReadonlySet<string>): { latencies: number[]; perInstance: Map<string, number> } {
  const latencies: number[] = [];
  const perInstance = new Map<string, number>();
  for (const m of sse.messages.slice(from)) {
    const d = m.data as { event?: string; instanceId?: string; name?: string; data?: { removed?: number } };
    if (d.event !== 'instance_event' || d.name !== 'task_update' || !ids.has(d.instanceId!)) continue;
    perInstance.set(d.instanceId!, (perInstance.get(d.instanceId!) ?? 0) + 1);
    latencies.push(m.receivedAt - d.data!.removed!);
  }
  return { latencies, perInstance };
}

/** The hub's instances, by id, with their status and whether the hub reads their events. */
async function instances(api: string): Promise<{ id: string; status: string; origin: string; stream: string }[]> {
  return ((await (await fetch(`${api}/api/dashboard/instances`)).json()) as { instances: { id: string; status: string; origin: string; stream: string }[] }).instances;
}

/** Waits until the hub reads the events of every one of `ids` (online, and its bridge connected). */
const streaming = (api: string, ids: ReadonlySet<string>, what: string) =>
  until(async () => (await instances(api)).filter((i) => ids.has(i.id) && i.status === 'online' && i.stream === 'connected').length === ids.size, what, 120_000);

/** Today's relay: LOCAL_INSTANCES core servers (a child process) added by URL, each sending EVENTS_PER_SECOND. */
async function localRelay(api: string, pids: Record<string, number>, sse: SseConnection) {
  const host = spawn(process.execPath, ['--import', 'tsx', new URL('./support/dashboard-instances.ts', import.meta.url).pathname, String(LOCAL_INSTANCES), '0', String(EVENTS_PER_SECOND)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: host.stdout! })[Symbol.asyncIterator]();
  try {
    const list = JSON.parse((await lines.next()).value as string) as { url: string; token: string }[];
    const ids = new Set<string>();
    for (const i of list) ids.add(((await (await fetch(`${api}/api/dashboard/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: i.url, token: i.token }) })).json()) as { id: string }).id);
    await streaming(api, ids, 'the local instances\' events read');
    const from = sse.messages.length;
    host.kill('SIGUSR1');
    const usage = await window(pids);
    host.kill('SIGUSR2');
    const { published } = JSON.parse((await lines.next()).value as string) as { published: number };
    await sleep(DRAIN_MS);
    const { latencies, perInstance } = relayed(sse, from, ids);
    for (const id of ids) await fetch(`${api}/api/dashboard/instances/${id}`, { method: 'DELETE' });
    return { instances: ids.size, eventsPerSecond: ids.size * EVENTS_PER_SECOND, relayMs: summarize(latencies, 1), sent: published, received: [...perInstance.values()].reduce((a, b) => a + b, 0), usage };
  } finally {
    await stop(host);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(200)) if (await check()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A machine's instance as the hub reaches it through the tunnel: the few routes the hub reads of an instance (its
 * health, runtime and session, its newest messages), from one HTTP server that takes the tunnels as connections.
 */
function fakeInstance() {
  const routes: Record<string, unknown> = {
    '/api/health': { ok: true, version: 'bench', uptimeMs: 1 },
    '/api/runtime': { version: 'bench', uptimeMs: 1, home: '/bench', pid: process.pid, agent: { busy: false, pending: 0 } },
    '/api/session': { provider: 'claude', model: '', workingDir: '/bench' },
    '/api/messages': { messages: [] },
  };
  return createServer((req, res) => {
    const body = routes[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'NOT_FOUND', message: 'not in the bench' }));
  });
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
    const sse = await openSse(`${api}/api/events`);
    const local = await localRelay(api, pids, sse);

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
    const instanceServer = fakeInstance();
    let emitting = false;
    let sent = 0;
    for (const [n, home] of homes.entries()) {
      const member = new FleetMember({
        home,
        membership: readMembership(home)!,
        version: 'bench',
        heartbeatMs: 1000,
        instances: () => [{ key: '000000000000', url: 'http://127.0.0.1:3457', version: 'bench', provider: 'claude', busy: false }],
        token: () => 'bench-token',
        accept: (_key, connection) => instanceServer.emit('connection', connection),
        events: (_key, outbox) => {
          let seq = 0;
          const timer = setInterval(() => {
            if (!emitting) return;
            sent++;
            outbox.send({ id: `bench${n}-${++seq}`, json: JSON.stringify({ event: 'task_update', topic: 'task', action: 'clear', removed: Date.now() }) });
          }, 1000 / EVENTS_PER_SECOND);
          return () => clearInterval(timer);
        },
      });
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
    const fleetIds = new Set((await instances(api)).filter((i) => i.origin === 'fleet').map((i) => i.id));
    await streaming(api, fleetIds, 'every machine\'s instance\'s events read');
    const from = sse.messages.length;
    // the bench's own process (the 200 members, their connections, the instances' server, the stream's reader) delays
    // what it measures when its event loop lags: that lag, beside the latencies
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    emitting = true;
    const withEvents = await window(pids);
    emitting = false;
    lag.disable();
    await sleep(DRAIN_MS);
    const fleetRelay = relayed(sse, from, fleetIds);
    const received = [...fleetRelay.perInstance.values()].reduce((a, b) => a + b, 0);
    sse.close();
    return {
      machines: MACHINES,
      heartbeatsPerSecond: MACHINES,
      joinMs: summarize(joins, 1),
      allOnlineMs,
      idle,
      loaded,
      hubCpuPerHeartbeatMs: Number((((loaded.hub!.cpuPercent - idle.hub!.cpuPercent) / 100) * 1000 / MACHINES).toFixed(3)),
      rssRatio: { hub: ratio(loaded.hub!.rssMb, idle.hub!.rssMb), natsServer: ratio(loaded.natsServer!.rssMb, idle.natsServer!.rssMb) },
      relay: {
        fleet: {
          instances: fleetIds.size,
          eventsPerSecond: fleetIds.size * EVENTS_PER_SECOND,
          relayMs: summarize(fleetRelay.latencies, 1),
          sent,
          received,
          lost: sent - received,
          usage: withEvents,
          benchEventLoopLagMs: { p50: Number((lag.percentile(50) / 1e6).toFixed(1)), p99: Number((lag.percentile(99) / 1e6).toFixed(1)), max: Number((lag.max / 1e6).toFixed(1)) },
        },
        local,
        relayP50Ratio: ratio(summarize(fleetRelay.latencies, 1).p50, local.relayMs.p50),
      },
    };
  } finally {
    await Promise.all(members.map((m) => m.close()));
    hub.kill('SIGTERM');
    await new Promise((resolve) => hub.once('exit', resolve));
    for (const h of [managerHome, ...homes]) rmSync(h, { recursive: true, force: true });
  }
}

console.log(JSON.stringify(await main(), null, 2));
