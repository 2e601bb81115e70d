// Soak: does a request, a run or an event leave anything behind in the server?
//
// `svc serve` runs as a user runs it (the installed bin, a clean environment) with the inspector on
// loopback. N messages (BENCH_SOAK_MESSAGES, default 10,000) go to S chat sessions (BENCH_SOAK_SESSIONS,
// default 30) with the custom provider (/bin/echo: a run as cheap as a run can be, so the server's own
// share is what is measured), one after another, each read to its end; an SSE reader and a WebSocket
// reader follow the event stream the whole time. It is done twice, each on a server of its own: all
// messages over one kept-alive connection, then each message on a new connection
// (BENCH_SOAK_CONNECTIONS=keep-alive or new-connections for one of them).
//
// Every 1,000 messages: the live heap after a forced full GC (the inspector's
// HeapProfiler.collectGarbage, then the server's process.memoryUsage(): the JS heap in use and the
// contents of its ArrayBuffers, which live outside that heap), RSS, open file descriptors and child
// processes of the server. At the end: each reader's agent_done events against the request ids the
// server gave (X-Request-Id): lost and doubled; and two heap snapshots (after the first 1,000 messages and
// at the end) compared, so whatever grows with the number of requests is named by what holds it.
//
// The figure: the slope of the live memory (heap and array buffers) against messages after warm-up, in
// MB per 1,000 messages (least squares over the checkpoints); the goal is ≤ 0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import WebSocket from 'ws';
import { tempHome } from '../test/support/server.ts';
import { freePort } from '../test/support/ports.ts';
import { cleanEnv, getStatus } from './support/start-probe.ts';
import { connectInspector, inspectorUrl, type Inspector, type LiveMemory } from './support/inspector.ts';
import { readHeapSnapshot } from './support/heap-snapshot.ts';
import { isMain, sleep } from './support/stats.ts';

const MESSAGES = Number(process.env.BENCH_SOAK_MESSAGES ?? 10_000);
const SESSIONS = Number(process.env.BENCH_SOAK_SESSIONS ?? 30);
const CHECKPOINT_EVERY = Math.min(1000, Math.max(1, Math.floor(MESSAGES / 10)));
/** Checkpoints before this many messages are warm-up (caches, JIT, the replay ring filling up). */
const WARM_UP = Math.min(2 * CHECKPOINT_EVERY, MESSAGES);
/** The first heap snapshot is taken here, before the window the figures come from: a snapshot grows RSS for good. */
const SNAPSHOT_AT = CHECKPOINT_EVERY;
/** The svc executable: this checkout's, or another build's (BENCH_SOAK_BIN) to compare two builds. */
const BIN = process.env.BENCH_SOAK_BIN ?? new URL('../bin/svc.js', import.meta.url).pathname;
const MB = 1024 * 1024;
/** What one request or connection would leave behind if it leaked. */
const PER_REQUEST_OBJECTS = ['IncomingMessage', 'ServerResponse', 'Socket', 'ReadableState', 'WritableState', 'Request', 'Reply'];

export type Connection = 'keep-alive' | 'new-connections';

export interface Checkpoint {
  messages: number;
  /** The JS heap in use and ArrayBuffer contents, after a full GC */
  heapMb: number;
  arrayBuffersMb: number;
  rssMb: number;
  /** RSS in anonymous memory (heap, malloc, SQLite's page cache) and in mapped files (the database's memory map) */
  rssAnonMb: number;
  rssFileMb: number;
  fds: number;
  children: number;
}

interface ServerProcess {
  child: ChildProcess;
  port: number;
  inspector: Inspector;
  stop(): Promise<void>;
}

async function startServer(home: string): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', BIN, 'serve', '--home', home, '--port', String(port), '--proxy-port', '0'], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 30_000;
  while ((await getStatus(port, '/api/health')) !== 200 || !inspectorUrl(stderr)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`svc serve did not start: ${stderr.slice(-500)}`);
    await sleep(20);
  }
  const inspector = await connectInspector(inspectorUrl(stderr)!);
  return {
    child,
    port,
    inspector,
    async stop() {
      inspector.close();
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function request(port: number, method: string, path: string, body: unknown, agent: http.Agent | false): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Counts the agent_done events of each request id that one reader of the event stream sees. */
class DoneCounter {
  readonly seen = new Map<string, number>();
  events = 0;

  take(json: string): void {
    this.events++;
    const event = JSON.parse(json) as { event?: string; requestId?: string };
    if (event.event === 'agent_done' && event.requestId) this.seen.set(event.requestId, (this.seen.get(event.requestId) ?? 0) + 1);
  }

  against(ids: readonly string[]): { events: number; lost: number; doubled: number } {
    return { events: this.events, lost: ids.filter((id) => !this.seen.has(id)).length, doubled: ids.filter((id) => (this.seen.get(id) ?? 0) > 1).length };
  }
}

function readSse(port: number, counter: DoneCounter): () => void {
  const req = http.get({ host: '127.0.0.1', port, path: '/api/events', agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
    let buffer = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) counter.take(data.slice(6));
      }
    });
  });
  req.on('error', () => {});
  return () => req.destroy();
}

async function readWs(port: number, counter: DoneCounter): Promise<() => void> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  socket.on('message', (data) => counter.take(String(data)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return () => socket.close();
}

function checkpoint(pid: number, messages: number, live: LiveMemory): Checkpoint {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
  let children = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // the parent pid is the second field after the command name (which may hold spaces: it ends at the last ')')
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children++;
    } catch {
      // the process ended while the list was read
    }
  }
  return { messages, heapMb: round(live.heapUsed / MB), arrayBuffersMb: round(live.arrayBuffers / MB), rssMb: mb('VmRSS'), rssAnonMb: mb('RssAnon'), rssFileMb: mb('RssFile'), fds: readdirSync(`/proc/${pid}/fd`).length, children };
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

/** Least-squares slope of y against x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

export async function soak(connection: Connection) {
  const home = tempHome('svc-soak-');
  const server = await startServer(home);
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const agent = connection === 'keep-alive' ? keepAlive : false;
  const stops: (() => void)[] = [];
  try {
    const { port, inspector } = server;
    const pid = server.child.pid!;
    const settings = await request(port, 'PUT', '/api/settings', { agent: { provider: 'custom', customCommand: ['/bin/echo', '{prompt}'] } }, agent);
    if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${settings.text}`);
    const sessions: string[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const created = await request(port, 'POST', '/api/chat-sessions', { title: `soak ${s}`, activate: false }, agent);
      sessions.push((JSON.parse(created.text) as { session: { id: string } }).session.id);
    }
    const sse = new DoneCounter();
    const ws = new DoneCounter();
    stops.push(readSse(port, sse), await readWs(port, ws));

    const requestIds: string[] = [];
    const checkpoints: Checkpoint[] = [checkpoint(pid, 0, await inspector.liveMemory())];
    let connections = 0;
    let failed = 0;
    let atFirstSnapshot = new Set<number>();
    const started = performance.now();
    for (let i = 1; i <= MESSAGES; i++) {
      const answer = await request(port, 'POST', '/api/message', { prompt: `soak message ${i}`, sessionId: sessions[i % SESSIONS] }, agent);
      if (!answer.reused) connections++;
      if (answer.status !== 200 || !answer.text.includes('"type":"done","status":"ok"')) failed++;
      requestIds.push(String(answer.headers['x-request-id']));
      if (i % CHECKPOINT_EVERY === 0 || i === MESSAGES) {
        checkpoints.push(checkpoint(pid, i, await inspector.liveMemory()));
        process.stderr.write(`soak ${connection}: ${JSON.stringify(checkpoints.at(-1))}\n`);
      }
      if (i === SNAPSHOT_AT) atFirstSnapshot = readHeapSnapshot(await inspector.heapSnapshot()).ids();
    }
    const seconds = (performance.now() - started) / 1000;
    // the readers may be a few events behind the last answer
    const deadline = Date.now() + 30_000;
    while ((sse.seen.size < requestIds.length || ws.seen.size < requestIds.length) && Date.now() < deadline) await sleep(50);
    const end = readHeapSnapshot(await inspector.heapSnapshot());
    const endCounts = end.countByName(PER_REQUEST_OBJECTS);
    const afterWarm = checkpoints.filter((c) => c.messages >= WARM_UP);
    const retainedMbPer1000 = round(slope(afterWarm.map((c) => ({ x: c.messages / 1000, y: c.heapMb + c.arrayBuffersMb }))), 3);
    return {
      connection,
      messages: MESSAGES,
      sessions: SESSIONS,
      connections,
      failed,
      messagesPerSec: round(MESSAGES / seconds, 1),
      retainedMbPer1000,
      heapMb: { first: checkpoints[0]!.heapMb, afterWarmUp: afterWarm[0]!.heapMb, last: checkpoints.at(-1)!.heapMb },
      arrayBuffersMb: { afterWarmUp: afterWarm[0]!.arrayBuffersMb, last: checkpoints.at(-1)!.arrayBuffersMb },
      rssMb: { afterWarmUp: afterWarm[0]!.rssMb, last: checkpoints.at(-1)!.rssMb },
      rssAnonMb: { afterWarmUp: afterWarm[0]!.rssAnonMb, last: checkpoints.at(-1)!.rssAnonMb },
      rssFileMb: { afterWarmUp: afterWarm[0]!.rssFileMb, last: checkpoints.at(-1)!.rssFileMb },
      fds: { afterWarmUp: afterWarm[0]!.fds, last: checkpoints.at(-1)!.fds },
      children: { afterWarmUp: afterWarm[0]!.children, last: checkpoints.at(-1)!.children },
      events: { sse: sse.against(requestIds), ws: ws.against(requestIds) },
      liveAtEnd: Object.fromEntries(PER_REQUEST_OBJECTS.map((name) => [name, endCounts[name] ?? 0])),
      // objects made since the first snapshot and alive at the end, by what holds them (the event
      // stream's replay ring shows here: its 1,000 frames are replaced as events pass, not added to)
      heldSinceFirstSnapshot: end.growthSince(atFirstSnapshot, 6),
      checkpoints,
    };
  } finally {
    for (const stop of stops) stop();
    keepAlive.destroy();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const results = [];
  const wanted = (process.env.BENCH_SOAK_CONNECTIONS ?? 'keep-alive,new-connections').split(',') as Connection[];
  for (const connection of wanted) results.push(await soak(connection));
  console.log(JSON.stringify({ goal: 'retainedMbPer1000 <= 0.1, fds and children flat, 0 events lost', runs: results }, null, 2));
}
