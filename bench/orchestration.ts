// Orchestration benchmarks:
// 1. dispatch overhead: POST /api/orchestrate/dispatch → the worker CLI running (the time it stamps on its
//    first line), p50/p99, beside spawning the same CLI directly;
// 2. 10 worker runs at once of a fake CLI emitting 1,000 events each: server RSS, event loss (every line
//    in every run's output and trace), and the latency of an SSE event (orc_state after a PUT) during the
//    load, as a ratio of the same on the quiet server.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startServer, type TestServer } from '../test/support/server.ts';
import { openSse } from '../test/support/sse.ts';
import { isMain, nowMs, ratio, sleep, summarize } from './support/stats.ts';

const EMITTER = new URL('./support/emitter-codex', import.meta.url).pathname;
const WORKER = { name: 'bench', role: 'emits', provider: 'codex', model: '', instructions: '', capability: 'mutable' };

async function json(server: TestServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  return response.json() as Promise<any>;
}

/** The run once it ended; a run that did not succeed stops the benchmark with its reason (a figure of failed runs is none). */
async function ended(server: TestServer, runId: string) {
  for (;;) {
    const run = await json(server, 'GET', `/api/orchestrate/worker-runs/${runId}`);
    if (['queued', 'running'].includes(run.status)) {
      await sleep(20);
      continue;
    }
    if (run.status !== 'succeeded') throw new Error(`worker run ${runId} ${run.status}: ${run.reason}`);
    return run;
  }
}

/**
 * The runs' environment: the emitter stands in for codex, and svc refuses to start codex with no login it can
 * see (src/agent/readiness.ts), so the runs get a key the emitter never uses.
 */
const RUN_ENV = { OPENAI_API_KEY: 'bench-not-a-key' };

const firstStamp = (text: string) => Number(/sent=(\d+(?:\.\d+)?)/.exec(text)?.[1]);

/** Spawns the emitter directly; ms from spawn() to its first stamped line. */
function direct(): Promise<number> {
  return new Promise((resolve) => {
    const start = nowMs();
    const child = spawn(EMITTER, [], { env: { ...process.env, BENCH_LINES: '1' }, stdio: ['ignore', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout! });
    let got = false;
    lines.on('line', (line) => {
      const at = firstStamp(line);
      if (!got && at) {
        got = true;
        resolve(at - start);
      }
    });
  });
}

export async function dispatchOverhead(server: TestServer, samples = 20) {
  const viaServer: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    const start = nowMs();
    const { runId } = await json(server, 'POST', '/api/orchestrate/dispatch', { virtual: WORKER, task: `overhead ${i}` });
    await ended(server, runId);
    const output = await json(server, 'GET', `/api/orchestrate/worker-runs/${runId}/output?limit=200`);
    const spawnMs = firstStamp(output.text) - start;
    const directMs = await direct();
    if (i >= 2) {
      viaServer.push(spawnMs);
      bare.push(directMs);
    }
  }
  const s = summarize(viaServer, 1);
  const b = summarize(bare, 1);
  return { dispatchToSpawnMs: s, directSpawnMs: b, ratioP50: ratio(s.p50, b.p50) };
}

async function sseLatency(server: TestServer, sessionId: string, probes: number): Promise<number[]> {
  const sse = await openSse(`${server.url}/api/events`);
  const out: number[] = [];
  try {
    for (let i = 0; i < probes; i++) {
      // the session starts in I: I → P and P → I are both moves
      const phase = i % 2 === 0 ? 'P' : 'I';
      const before = sse.messages.length;
      const start = nowMs();
      await json(server, 'PUT', '/api/orchestrate/state', { phase, sessionId });
      while (!sse.messages.slice(before).some((m) => m.data?.event === 'orc_state' && m.data.phase === phase)) {
        if (nowMs() - start > 10_000) throw new Error(`no orc_state for ${phase} within 10 s`);
        await sleep(1);
      }
      out.push(nowMs() - start);
    }
  } finally {
    sse.close();
  }
  return out;
}

export async function concurrentRuns(server: TestServer, runs = 10, lines = 1000) {
  server.app.services.settings.update({ agent: { env: { ...RUN_ENV, BENCH_LINES: String(lines), BENCH_RATE: '500' } }, orchestration: { concurrency: runs } });
  const sessionId = server.app.services.chat.activeSession().id;
  await json(server, 'PUT', '/api/orchestrate/state', { phase: 'I', sessionId });
  const quiet = await sseLatency(server, sessionId, 20);
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) ids.push((await json(server, 'POST', '/api/orchestrate/dispatch', { virtual: WORKER, task: `load ${i}` })).runId);
  const loaded = await sseLatency(server, sessionId, 20);
  const results = await Promise.all(ids.map((id) => ended(server, id)));
  clearInterval(sampler);
  let lost = 0;
  for (const id of ids) {
    const output = await json(server, 'GET', `/api/orchestrate/worker-runs/${id}/output?limit=1000000`);
    lost += lines - (output.text.match(/sent=/g) ?? []).length;
    const trace = await json(server, 'GET', `/api/orchestrate/worker-runs/${id}/events?limit=500&offset=${lines}`);
    if (!trace.events.length) lost++;
  }
  const q = summarize(quiet, 2);
  const l = summarize(loaded, 2);
  return {
    runs,
    eventsPerRun: lines,
    statuses: [...new Set(results.map((r) => r.status))],
    lostEvents: lost,
    rssMb: { before: Math.round(rssBefore / 1e6), peak: Math.round(peak / 1e6) },
    sseLatencyMs: { quiet: q, loaded: l, ratioP50: ratio(l.p50, q.p50) },
  };
}

if (isMain(import.meta.url)) {
  const server = await startServer({ logLevel: 'silent' });
  try {
    // the delivered results start main-agent runs: a CLI that ends at once keeps them out of the figures
    server.app.services.settings.update({ agent: { executables: { codex: EMITTER, claude: 'true' }, retries: 0, env: { ...RUN_ENV, BENCH_LINES: '1' } }, orchestration: { concurrency: 3 } });
    const overhead = await dispatchOverhead(server);
    const load = await concurrentRuns(server);
    console.log(JSON.stringify({ overhead, load }, null, 2));
  } finally {
    await server.close();
  }
}
