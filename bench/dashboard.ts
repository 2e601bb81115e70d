// The manager dashboard with many instances (the 50 idle + 10 busy fake-CLI instances by
// default; BENCH_IDLE / BENCH_BUSY change it):
// 1. the manager's RSS and CPU with no instance (the baseline) and with all of them subscribed;
// 2. event latency: instance → manager stream, beside the instance's own stream (the same events).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openSse } from '../test/support/sse.ts';
import { isMain, nowMs, ratio, sleep, summarize } from './support/stats.ts';

const IDLE = Number(process.env.BENCH_IDLE ?? 50);
const BUSY = Number(process.env.BENCH_BUSY ?? 10);
const TICKS = 100; // USER_HZ on Linux

function child(script: string, args: string[]): Promise<{ proc: ChildProcess; line: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve({ proc, line }));
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

/** RSS and CPU share of one core over a window. */
async function sample(pid: number, ms: number) {
  const t0 = cpuTicks(pid);
  await sleep(ms);
  return { rssMb: Number(rssMb(pid).toFixed(1)), cpuPercent: Number((((cpuTicks(pid) - t0) / TICKS / (ms / 1000)) * 100).toFixed(1)) };
}

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

export async function dashboardBench() {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-manager-'));
  const manager = await child('./support/dashboard-manager.ts', [home]);
  const url = manager.line.trim();
  const pid = manager.proc.pid!;
  let instancesProc: ChildProcess | undefined;
  try {
    await sleep(2000);
    const empty = await sample(pid, 10_000);
    const host = await child('./support/dashboard-instances.ts', [String(IDLE), String(BUSY)]);
    instancesProc = host.proc;
    const list = JSON.parse(host.line) as { url: string; token: string; busy: boolean }[];
    const ids: string[] = [];
    for (const i of list) ids.push(((await (await post(`${url}/api/dashboard/instances`, { url: i.url, token: i.token })).json()) as { id: string }).id);
    for (;;) {
      const rows = ((await (await fetch(`${url}/api/dashboard/instances`)).json()) as { instances: { stream: string }[] }).instances;
      if (rows.every((r) => r.stream === 'connected')) break;
      await sleep(200);
    }
    await sleep(3000);
    const loaded = await sample(pid, 10_000);

    // latency: the same events at the instance's stream and at the manager's
    const target = list.find((i) => !i.busy)!;
    const direct = await openSse(`${target.url}/api/events`, { headers: { authorization: `Bearer ${target.token}` } });
    const relayed = await openSse(`${url}/api/events`);
    const atDirect = new Map<string, number>();
    const atManager = new Map<string, number>();
    const seenD = { n: 0 };
    const seenM = { n: 0 };
    const poll = setInterval(() => {
      for (; seenD.n < direct.messages.length; seenD.n++) if (direct.messages[seenD.n]!.id) atDirect.set(direct.messages[seenD.n]!.id!, nowMs());
      for (; seenM.n < relayed.messages.length; seenM.n++) {
        const d = relayed.messages[seenM.n]!.data;
        if (d.event === 'instance_event' && list[ids.indexOf(d.instanceId)] === target) atManager.set(d.instanceEventId, nowMs());
      }
    }, 0);
    // each event's latency counts from the send of the message whose run it belongs to
    const sentAt: number[] = [];
    for (let n = 0; n < 20; n++) {
      sentAt.push(nowMs());
      await (await post(`${target.url}/api/message`, { prompt: `q${n} scenario:text` }, target.token)).text();
    }
    await sleep(500);
    clearInterval(poll);
    direct.close();
    relayed.close();
    const both = [...atDirect].filter(([id]) => atManager.has(id));
    const deltas = both.map(([id, t]) => atManager.get(id)! - t);
    const sendOf = (t: number) => sentAt.filter((s) => s <= t).at(-1) ?? t;
    const fromSend = { direct: both.map(([, t]) => t - sendOf(t)), manager: both.map(([id, t]) => atManager.get(id)! - sendOf(t)) };
    const atInstance = summarize(fromSend.direct, 2);
    const viaManager = summarize(fromSend.manager, 2);
    return {
      instances: {
        idle: IDLE,
        busy: BUSY,
        note: `${IDLE >= 50 && BUSY >= 10 ? 'the issue\'s size' : 'bounded (BENCH_IDLE/BENCH_BUSY); the issue asks 50 idle + 10 busy'}. Busy = a run in progress (the fake CLI stays alive but prints little after its first answer)`,
      },
      manager: { noInstances: empty, withInstances: loaded, rssRatio: ratio(loaded.rssMb, empty.rssMb) },
      latency: {
        events: deltas.length,
        missingAtManager: atDirect.size - deltas.length,
        addedMs: summarize(deltas, 2),
        fromSendMs: { instanceStream: atInstance, managerStream: viaManager, ratioP50: ratio(viaManager.p50, atInstance.p50), ratioP99: ratio(viaManager.p99, atInstance.p99) },
        note: 'added = arrival at the manager stream minus arrival at the instance stream, same event, same client process; fromSend = arrival minus the send of the message whose run published it',
      },
    };
  } finally {
    instancesProc?.kill('SIGTERM');
    manager.proc.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await dashboardBench(), null, 2));
