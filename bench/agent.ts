// Agent runtime benchmarks:
// 1. parser throughput per provider (lines/s) beside a bare JSON.parse loop over the same lines;
// 2. added latency from a CLI writing a line to an SSE client and to the NDJSON client (p50/p99),
//    beside a bare pipe (the same CLI read line by line by a plain child process reader);
// 3. memory over runs of 100k events, and after they end (run with --expose-gc).
import { readFileSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { adapterOf } from '../src/agent/providers/registry.ts';
import type { ProviderId } from '../src/agent/providers/registry.ts';
import { startServer } from '../test/support/server.ts';
import { postNdjson } from '../test/support/ndjson.ts';
import { openSse } from '../test/support/sse.ts';
import { isMain, nowMs, ratio, sleep, summarize } from './support/stats.ts';

const PROTOCOLS = new URL('../test/fixtures/protocols/', import.meta.url).pathname;
const EMITTER = new URL('./support/emitter-codex', import.meta.url).pathname;

export function parserThroughput() {
  const out: Record<string, unknown> = {};
  for (const provider of ['claude', 'codex', 'gemini', 'opencode', 'copilot'] as ProviderId[]) {
    // copilot's ACP recordings hold both directions ({dir, msg}): the adapter reads what the CLI sent
    const prefix = provider === 'copilot' ? 'copilot-acp-' : `${provider}-`;
    const files = readdirSync(PROTOCOLS).filter((f) => f.startsWith(prefix) && f.endsWith('.jsonl'));
    const read = (f: string) => readFileSync(`${PROTOCOLS}${f}`, 'utf8').split('\n').filter(Boolean);
    const runs = files.map((f) =>
      provider === 'copilot'
        ? read(f).map((l) => JSON.parse(l) as { dir: string; msg: unknown }).filter((l) => l.dir === 'in').map((l) => JSON.stringify(l.msg))
        : read(f),
    );
    const total = runs.reduce((n, r) => n + r.length, 0);
    const repeats = Math.ceil(200_000 / total);
    const adapter = adapterOf(provider);
    const request = { prompt: 'p', cwd: '/tmp', executable: provider, autoApprove: true, scratchDir: '/tmp' };
    const time = (fn: () => void) => {
      fn(); // warm-up
      const start = nowMs();
      fn();
      return nowMs() - start;
    };
    let sink = 0;
    const parseMs = time(() => {
      for (let i = 0; i < repeats; i++) {
        for (const lines of runs) {
          const state = adapter.initialState(request);
          for (const line of lines) sink += adapter.parseLine(state, line).events.length;
        }
      }
    });
    const jsonMs = time(() => {
      for (let i = 0; i < repeats; i++) for (const lines of runs) for (const line of lines) sink += JSON.parse(line) ? 1 : 0;
    });
    const lines = total * repeats;
    out[provider] = {
      lines,
      adapterLinesPerSec: Math.round(lines / (parseMs / 1000)),
      jsonParseLinesPerSec: Math.round(lines / (jsonMs / 1000)),
      ratioToJsonParse: ratio(jsonMs, parseMs),
      sink: sink > 0,
    };
  }
  return out;
}

async function barePipeLatency(lines: number, rate: number) {
  const child = spawn(EMITTER, [], { env: { ...process.env, BENCH_LINES: String(lines), BENCH_RATE: String(rate) } });
  const samples: number[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const match = /sent=([\d.]+)/.exec(line);
    if (match) samples.push(nowMs() - Number(match[1]));
  }
  return summarize(samples);
}

async function svcLatency(lines: number, rate: number) {
  const server = await startServer({ logLevel: 'silent' });
  server.app.services.settings.update({ agent: { provider: 'codex', executables: { codex: EMITTER }, env: { BENCH_LINES: String(lines), BENCH_RATE: String(rate) } } });
  const sse = await openSse(`${server.url}/api/events`);
  const sseSamples: number[] = [];
  const ndjsonSamples: number[] = [];
  const seen = sse.messages.length;
  const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'bench' });
  // sample on arrival: poll the collected arrays as they grow
  let sseIndex = seen;
  let ndIndex = 0;
  const done = stream.done;
  let finished = false;
  void done.then(() => (finished = true));
  const collect = () => {
    const t = nowMs();
    for (; sseIndex < sse.messages.length; sseIndex++) {
      const data = sse.messages[sseIndex]!.data;
      const m = data.event === 'agent_output' ? /sent=([\d.]+)/.exec(data.content ?? '') : null;
      if (m) sseSamples.push(t - Number(m[1]));
    }
    for (; ndIndex < stream.lines.length; ndIndex++) {
      const m = /sent=([\d.]+)/.exec(stream.lines[ndIndex].content ?? '');
      if (m) ndjsonSamples.push(t - Number(m[1]));
    }
  };
  while (!finished) {
    collect();
    await new Promise((r) => setImmediate(r));
  }
  await sleep(100);
  collect();
  sse.close();
  await server.close();
  return { sse: summarize(sseSamples), ndjson: summarize(ndjsonSamples) };
}

/** Reads a streaming response to its end without keeping anything. */
async function drain(response: Response): Promise<void> {
  const reader = response.body!.getReader();
  for (;;) if ((await reader.read()).done) return;
}

/**
 * Three runs of `events` each, with an SSE listener connected throughout and clients that keep
 * nothing. After each run (and a forced GC, so run node with --expose-gc) the heap and RSS are read:
 * a leak shows as heap growth from run to run. RSS moves with the allocator's free lists, not with
 * live data.
 */
async function memoryOverRuns(events: number) {
  const server = await startServer({ logLevel: 'silent' });
  server.app.services.settings.update({ agent: { provider: 'codex', executables: { codex: EMITTER }, env: { BENCH_LINES: String(events), BENCH_RATE: '0' } } });
  const sse = fetch(`${server.url}/api/events`).then(drain).catch(() => undefined);
  const gc = (globalThis as { gc?: () => void }).gc;
  const read = () => {
    gc?.();
    const m = process.memoryUsage();
    return { rssMb: Math.round(m.rss / 1048576), heapUsedMb: Math.round(m.heapUsed / 1048576) };
  };
  const before = read();
  const runs = [];
  for (let i = 0; i < 3; i++) {
    let peakRssMb = 0;
    const timer = setInterval(() => (peakRssMb = Math.max(peakRssMb, Math.round(process.memoryUsage().rss / 1048576))), 50);
    await drain(await fetch(`${server.url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"bench"}' }));
    clearInterval(timer);
    await sleep(500);
    runs.push({ peakRssMb, after: read() });
  }
  await server.close();
  await sse;
  return { eventsPerRun: events, gcExposed: Boolean(gc), before, runs, heapGrowthRun1ToRun3Mb: runs[2]!.after.heapUsedMb - runs[0]!.after.heapUsedMb };
}

export async function benchAgent() {
  if (process.env.BENCH_ONLY === 'parsers') return { parserThroughput: parserThroughput() };
  const bare = await barePipeLatency(2000, 500);
  const svc = await svcLatency(2000, 500);
  return {
    parserThroughput: parserThroughput(),
    lineLatencyMs: { linesAt500PerSec: 2000, barePipe: bare, sseClient: svc.sse, ndjsonClient: svc.ndjson, addedP50: { sse: Number((svc.sse.p50 - bare.p50).toFixed(3)), ndjson: Number((svc.ndjson.p50 - bare.p50).toFixed(3)) }, addedP99: { sse: Number((svc.sse.p99 - bare.p99).toFixed(3)), ndjson: Number((svc.ndjson.p99 - bare.p99).toFixed(3)) } },
    memoryOver100kEventRuns: await memoryOverRuns(Number(process.env.BENCH_RUN_EVENTS ?? 100_000)),
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchAgent(), null, 2));
