// A fleet machine's instance through the hub's tunnel over NATS, against the same instance reached over HTTP, in the
// same run. The hub (`svc dashboard serve --fleet`) and the machine (`svc serve` on a joined home) are built CLIs in
// processes of their own, with the real nats-server; the machine is registered twice on the hub, as the fleet instance
// (its tunnel) and added by URL (today's HTTP proxy and event bridge). Figures: GET /api/messages directly, through
// the HTTP proxy and through the tunnel (p50/p99, interleaved); 8 MiB up and down each way (MB/s); and an event's
// relay from the machine to the hub's stream (p50/p99): over the HTTP event bridge, and through JetStream (the fleet
// instance's events: the machine's outbox, the stream SVC_EVENTS, the hub's consumer).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homePaths } from '../src/core/home.ts';
import { findNatsServer, joinFleet } from '../src/modules/fleet/hub-side.ts';
import { openSse } from '../test/support/sse.ts';
import { freePort } from '../test/support/ports.ts';
import { json, until } from './support/fleet-http.ts';
import { nowMs, ratio, sleep, summarize } from './support/stats.ts';

const REQUESTS = Number(process.env.TUNNEL_REQUESTS ?? 300);
const EVENTS = Number(process.env.TUNNEL_EVENTS ?? 100);
const BULK_BYTES = 8 * 1024 * 1024;

async function timed(url: string, init: RequestInit = {}): Promise<number> {
  const start = nowMs();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return nowMs() - start;
}

async function main(): Promise<Record<string, unknown>> {
  if (!findNatsServer()) return { skipped: 'nats-server is not installed' };
  const hubHome = mkdtempSync(join(tmpdir(), 'svc-bench-hub-'));
  const machineHome = mkdtempSync(join(tmpdir(), 'svc-bench-machine-'));
  const [natsPort, hubPort, machinePort] = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const start = (args: string[], home: string) => {
    const child = spawn(process.execPath, ['bin/svc.js', ...args, '--home', home], { env: { PATH: process.env.PATH, HOME: home }, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  try {
    const hub = `http://127.0.0.1:${hubPort}`;
    start(['dashboard', 'serve', '--fleet', '--nats-port', String(natsPort), '--port', String(hubPort), '--count', '0'], hubHome);
    await until(async () => ((await json<{ nats: string }>(`${hub}/api/dashboard/fleet`)).nats === 'running' ? true : undefined), 'the hub');
    const { code } = await json<{ code: string }>(`${hub}/api/dashboard/fleet/invites`, { method: 'POST', body: '{}' });
    await joinFleet({ url: `nats://127.0.0.1:${natsPort}`, code, name: 'bench machine', home: machineHome });
    start(['serve', '--port', String(machinePort), '--proxy-port', '0'], machineHome);
    const direct = `http://127.0.0.1:${machinePort}`;
    await until(async () => ((await fetch(`${direct}/api/health`)).ok ? true : undefined), 'the machine');
    const token = readFileSync(homePaths(machineHome).token, 'utf8').trim();
    const added = (await json<{ id: string }>(`${hub}/api/dashboard/instances`, { method: 'POST', body: JSON.stringify({ url: direct, token, label: 'over HTTP' }) })).id;
    const fleetId = await until(async () => {
      const { instances } = await json<{ instances: { id: string; origin: string; status: string }[] }>(`${hub}/api/dashboard/instances`);
      return instances.find((i) => i.origin === 'fleet' && i.status === 'online')?.id;
    }, 'the fleet instance online');
    const auth = { authorization: `Bearer ${token}` };
    const paths = { direct: direct, http: `${hub}/i/${added}`, tunnel: `${hub}/i/${fleetId}` };

    // requests, interleaved so the three see the same noise
    const samples: Record<keyof typeof paths, number[]> = { direct: [], http: [], tunnel: [] };
    for (let i = 0; i < REQUESTS; i++) {
      for (const [name, base] of Object.entries(paths) as [keyof typeof paths, string][]) samples[name].push(await timed(`${base}/api/messages?limit=20`, name === 'direct' ? { headers: auth } : {}));
    }
    const messagesMs = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));

    // 8 MiB up (an upload) and down (the same file)
    const file = randomBytes(BULK_BYTES);
    const bulk: Record<string, { upMBps: number; downMBps: number }> = {};
    for (const [name, base] of Object.entries(paths)) {
      const headers = { 'content-type': 'application/octet-stream', ...(name === 'direct' ? auth : {}) };
      let at = nowMs();
      const up = await fetch(`${base}/api/upload?filename=bench-${name}.bin`, { method: 'POST', headers, body: file });
      const upMs = nowMs() - at;
      const { url } = (await up.json()) as { url: string };
      at = nowMs();
      const down = await fetch(`${base}${url}`, { headers: name === 'direct' ? auth : {} });
      const got = Buffer.from(await down.arrayBuffer());
      const downMs = nowMs() - at;
      if (!got.equals(file)) throw new Error(`${name}: the file came back different`);
      bulk[name] = { upMBps: Number((BULK_BYTES / 1e6 / (upMs / 1000)).toFixed(1)), downMBps: Number((BULK_BYTES / 1e6 / (downMs / 1000)).toFixed(1)) };
    }

    // an event on the machine, relayed to the hub's stream by each bridge (the same event, both bridges at once)
    const stream = await openSse(`${hub}/api/events`);
    const relay: Record<string, number[]> = { http: [], jetstream: [] };
    try {
      await sleep(1_000);
      for (let i = 0; i < EVENTS; i++) {
        const content = `bench task ${i} ${randomBytes(4).toString('hex')}`;
        const sent = nowMs();
        const seen = stream.messages.length;
        await fetch(`${direct}/api/task`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ action: 'add', content }) });
        for (const [name, id] of [['http', added], ['jetstream', fleetId]] as const) {
          const arrived = await until(async () => {
            const hit = stream.messages.slice(seen).find((m) => m.data.event === 'instance_event' && m.data.instanceId === id && m.data.data?.task?.content === content);
            return hit ? nowMs() : undefined;
          }, `the event over ${name}`, 10_000, 1);
          relay[name]!.push(arrived - sent);
        }
      }
    } finally {
      stream.close();
    }
    return {
      requests: REQUESTS,
      messagesMs,
      tunnelVsHttpP50: ratio(messagesMs.tunnel!.p50, messagesMs.http!.p50),
      tunnelVsDirectP50: ratio(messagesMs.tunnel!.p50, messagesMs.direct!.p50),
      bulk8MiB: bulk,
      eventRelayMs: { http: summarize(relay.http!), jetstream: summarize(relay.jetstream!) },
    };
  } finally {
    for (const child of children.reverse()) {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    }
    for (const h of [hubHome, machineHome]) rmSync(h, { recursive: true, force: true });
  }
}

console.log(JSON.stringify(await main(), null, 2));
