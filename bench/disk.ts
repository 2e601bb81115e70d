// Disk use: what trace retention costs.
// 1. A run's end (TraceRecorder.end: the trace closed, then retention's stat, running total and pass)
//    with retention on — a traces directory at its cap, so each end removes the oldest trace — against
//    the same run with retention off, alternating, RUNS each: p50/p99 and their ratio.
// 2. `svc serve` start-up (process start → first 200 from /api/health) with TRACES traces in its home
//    and a cap that makes the first pass remove half of them, against an empty home, alternating: the
//    medians and their ratio; and when the pass after listen was done (GET /api/disk says so).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../src/events/bus.ts';
import { TraceRecorder } from '../src/agent/traces.ts';
import { openDatabase } from '../src/store/db.ts';
import { SettingsRepo } from '../src/modules/settings/settings.repo.ts';
import { TracePinRepo, TraceRetention } from '../src/modules/traces/index.ts';
import { freePort } from '../test/support/ports.ts';
import { svcCommand } from '../test/support/startup.ts';
import { isMain, median, nowMs, ratio, sleep, summarize } from './support/stats.ts';

const RUNS = Number(process.env.BENCH_RUNS) || 400;
const STARTS = Number(process.env.BENCH_STARTS) || 6;
const TRACES = Number(process.env.BENCH_TRACES) || 5000;
/** About a short run's trace (the soak: ~8 KB with a short answer). */
const EVENTS_PER_RUN = 20;
const EVENT_PAD = 'x'.repeat(380);
const CAP = 2 * 1024 * 1024;

/** Node child processes get neither the CA bundle nor the options of this one. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  return env;
}

async function runEnds() {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-disk-'));
  const db = openDatabase(join(root, 'svc.db'));
  const bus = new EventBus();
  const make = (name: string, on: boolean) => {
    const dir = join(root, name);
    mkdirSync(dir);
    let retention: TraceRetention | undefined;
    const recorder: TraceRecorder = new TraceRecorder(dir, bus, () => [], on ? (id) => retention!.ended(id) : undefined);
    retention = new TraceRetention({ dir, settings: () => ({ maxBytes: CAP, maxAgeDays: 30 }), pins: new TracePinRepo(db), inFlight: (id) => recorder.isOpen(id) });
    return { recorder, retention, samples: [] as number[] };
  };
  const on = make('on', true);
  const off = make('off', false);
  await on.retention.start();
  let n = 0;
  const oneRun = async (side: ReturnType<typeof make>, measure: boolean) => {
    const traceId = `tr_bench${String(n++).padStart(8, '0')}`;
    side.recorder.begin(traceId);
    for (let i = 0; i < EVENTS_PER_RUN; i++) bus.publish('agent_output', { traceId, content: EVENT_PAD, offset: i });
    const at = nowMs();
    await side.recorder.end(traceId);
    if (measure) side.samples.push(nowMs() - at);
  };
  try {
    // fill the "on" directory to its cap first: from then on every end removes the oldest trace
    while (!on.retention.stats().lastPrune) await oneRun(on, false);
    for (let i = 0; i < RUNS; i++) {
      await oneRun(on, true);
      await oneRun(off, true);
    }
    const stats = on.retention.stats();
    const a = summarize(on.samples);
    const b = summarize(off.samples);
    return {
      runs: RUNS,
      traceBytes: Math.round(stats.bytes / stats.count),
      capBytes: CAP,
      removedByLastPass: stats.lastPrune?.count ?? 0,
      retentionOn: a,
      retentionOff: b,
      ratio: { p50: ratio(a.p50, b.p50), p99: ratio(a.p99, b.p99) },
    };
  } finally {
    on.retention.close();
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A home with `traces` trace files of ~8 KB and a cap of half their size. */
function homeWithTraces(home: string, traces: number) {
  mkdirSync(join(home, 'traces'), { recursive: true });
  const line = `${JSON.stringify({ ts: 0, seq: 1, event: 'agent_output', content: 'y'.repeat(8000) })}\n`;
  for (let i = 0; i < traces; i++) writeFileSync(join(home, 'traces', `tr_start${String(i).padStart(8, '0')}.ndjson`), line);
  const db = openDatabase(join(home, 'svc.db'));
  new SettingsRepo(db).writeSections({ traces: { maxBytes: Math.floor((traces * line.length) / 2), maxAgeDays: 30 } });
  db.close();
}

async function get(port: number, path: string, token?: string): Promise<{ status: number; body?: any }> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: r.status, body: r.ok ? await r.json() : undefined };
  } catch {
    return { status: 0 };
  }
}

/** Process start → first 200 from /api/health; then → the first retention pass done (GET /api/disk). */
async function startOnce(home: string): Promise<{ firstOkMs: number; pruneDoneMs: number }> {
  const port = await freePort();
  const { command, args } = svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', String(await freePort())]);
  const at = nowMs();
  const child = spawn(command, args, { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    while ((await get(port, '/api/health')).status !== 200) {
      if (child.exitCode !== null || nowMs() - at > 60_000) throw new Error(`svc serve did not answer: ${stderr.slice(-500)}`);
      await sleep(2);
    }
    const firstOkMs = nowMs() - at;
    const token = readFileSync(join(home, 'token'), 'utf8').trim();
    while (!(await get(port, '/api/disk?fresh=true', token)).body?.traces.scanned) await sleep(2);
    return { firstOkMs, pruneDoneMs: nowMs() - at };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

async function startUps() {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-disk-start-'));
  const large: { firstOkMs: number; pruneDoneMs: number }[] = [];
  const empty: { firstOkMs: number; pruneDoneMs: number }[] = [];
  try {
    for (let i = 0; i < STARTS; i++) {
      const full = join(root, `full-${i}`);
      homeWithTraces(full, TRACES);
      large.push(await startOnce(full));
      empty.push(await startOnce(join(root, `empty-${i}`)));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const m = (list: typeof large, k: 'firstOkMs' | 'pruneDoneMs') => Number(median(list.map((s) => s[k])).toFixed(1));
  return {
    starts: STARTS,
    traces: TRACES,
    largeHome: { firstOkMs: m(large, 'firstOkMs'), pruneDoneMs: m(large, 'pruneDoneMs') },
    emptyHome: { firstOkMs: m(empty, 'firstOkMs'), pruneDoneMs: m(empty, 'pruneDoneMs') },
    ratio: { firstOk: ratio(m(large, 'firstOkMs'), m(empty, 'firstOkMs')) },
  };
}

if (isMain(import.meta.url)) {
  const runEnd = await runEnds();
  process.stderr.write(`disk: run ends ${JSON.stringify(runEnd.ratio)}\n`);
  const startUp = await startUps();
  console.log(JSON.stringify({ runEnd, startUp }, null, 2));
}
