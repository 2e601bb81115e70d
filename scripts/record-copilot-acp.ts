// Records the Agent Client Protocol (ACP) conversation of the real `copilot --acp` (JSON-RPC 2.0, one JSON
// message per line over stdio) against the fake model, acting as a minimal ACP client.
//
//   node --import tsx scripts/record-copilot-acp.ts [scenario ...]
//
// Scenarios: text thinking tool write error resume cancel cancel-permission bad-session tool-allowall
// write-allowall (default: all). Each writes
// test/fixtures/protocols/copilot-acp-<scenario>.jsonl with one {"dir":"in"|"out","msg":{…}} line per
// message ("out" = client → copilot, "in" = copilot → client), plus .stderr and .server.log beside it.
// Needs copilot from scripts/install-real-clis.sh. What was learned is in test/fixtures/protocols/COPILOT-ACP.md.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startFakeModel, type FakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, killGroup, prepareRealCliEnv, realCliPath, type RealCliEnv } from '../test/support/real-clis.ts';

type Msg = Record<string, any>;
const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');
const REQUEST_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One `copilot --acp` process driven as an ACP client; every line in both directions goes to `log`. */
class AcpClient {
  private nextId = 1;
  private pending = new Map<number, { resolve: (m: Msg) => void; timer: NodeJS.Timeout }>();
  private listeners: ((m: Msg) => void)[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly log: { dir: 'in' | 'out'; msg: Msg }[],
    /** Answers session/request_permission; undefined = leave it unanswered (the caller answers). */
    public onPermission: (params: Msg) => Msg | undefined = allowOnce,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  }

  static start(env: RealCliEnv, log: { dir: 'in' | 'out'; msg: Msg }[], extraArgs: string[] = []): AcpClient {
    const bin = realCliPath('copilot');
    if (!bin) throw new Error('copilot not installed: run scripts/install-real-clis.sh');
    const child = spawn(bin, ['--acp', ...extraArgs], { cwd: env.cwd, env: env.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    return new AcpClient(child, log);
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let msg: Msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.stderr += `[non-JSON stdout line] ${line}\n`;
      return;
    }
    this.log.push({ dir: 'in', msg });
    if (msg['id'] !== undefined && msg['method'] === undefined) {
      const p = this.pending.get(msg['id']);
      if (p) {
        clearTimeout(p.timer);
        this.pending.delete(msg['id']);
        p.resolve(msg);
      }
    } else if (msg['id'] !== undefined) {
      this.answerAgentRequest(msg);
    }
    for (const l of this.listeners) l(msg);
  }

  private answerAgentRequest(msg: Msg): void {
    if (msg['method'] === 'session/request_permission') {
      const result = this.onPermission(msg['params']);
      if (result) this.write({ jsonrpc: '2.0', id: msg['id'], result });
    } else {
      // We advertised no fs / terminal capability: anything else is not supported here.
      this.write({ jsonrpc: '2.0', id: msg['id'], error: { code: -32601, message: `Method not found: ${msg['method']}` } });
    }
  }

  write(msg: Msg): void {
    this.log.push({ dir: 'out', msg });
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  request(method: string, params: Msg, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Msg> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ jsonrpc: '2.0', id, error: { code: -1, message: `recorder: no answer to ${method} within ${timeoutMs} ms` } });
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: Msg): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** Resolves with the first incoming message matching `pred`. */
  waitFor(pred: (m: Msg) => boolean, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Msg | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const listener = (m: Msg) => pred(m) && done(m);
      const done = (m: Msg | undefined) => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(m);
      };
      this.listeners.push(listener);
    });
  }

  /** Closes stdin (the ACP way to end), then escalates to signals on the process group. */
  async stop(): Promise<number | null> {
    this.child.stdin.end();
    const code = await Promise.race([this.exited, sleep(5000).then(() => 'timeout' as const)]);
    if (code !== 'timeout') {
      killGroup(this.child.pid); // leftovers (shells the agent started)
      return code;
    }
    this.stderr += '[recorder] no exit 5 s after stdin closed: SIGTERM\n';
    killGroup(this.child.pid, 'SIGTERM');
    const code2 = await Promise.race([this.exited, sleep(3000).then(() => 'timeout' as const)]);
    if (code2 !== 'timeout') return code2;
    this.stderr += '[recorder] still running 3 s after SIGTERM: SIGKILL\n';
    killGroup(this.child.pid, 'SIGKILL');
    return this.exited;
  }
}

function allowOnce(params: Msg): Msg {
  const options: Msg[] = params?.['options'] ?? [];
  const pick =
    options.find((o) => o['kind'] === 'allow_once') ??
    options.find((o) => o['kind'] === 'allow_always') ??
    options.find((o) => /allow|yes|approve/i.test(`${o['optionId']} ${o['name']}`));
  return pick ? { outcome: { outcome: 'selected', optionId: pick['optionId'] } } : { outcome: { outcome: 'cancelled' } };
}

const INIT_PARAMS = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'svc-acp-recorder', version: '0.1.0' },
};

async function openSession(c: AcpClient, cwd: string): Promise<string> {
  const init = await c.request('initialize', INIT_PARAMS);
  if (init['error']) throw new Error(`initialize failed: ${JSON.stringify(init['error'])}`);
  const created = await c.request('session/new', { cwd, mcpServers: [] });
  const sessionId = created['result']?.['sessionId'];
  if (!sessionId) throw new Error(`session/new failed: ${JSON.stringify(created)}`);
  return sessionId;
}

const prompt = (c: AcpClient, sessionId: string, text: string, timeoutMs?: number) =>
  c.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }, timeoutMs);

interface Recording {
  log: { dir: 'in' | 'out'; msg: Msg }[];
  notes: string[];
}

type ScenarioFn = (env: RealCliEnv, rec: Recording, fake: FakeModel) => Promise<void>;

/** A single-prompt scenario: initialize, session/new, session/prompt, stop. */
const single =
  (scenario: string, extraArgs: string[] = []): ScenarioFn =>
  async (env, rec) => {
    const c = AcpClient.start(env, rec.log, extraArgs);
    try {
      const sessionId = await openSession(c, env.cwd);
      const r = await prompt(c, sessionId, `Acceptance test prompt. scenario:${scenario}`);
      rec.notes.push(`prompt answer: ${JSON.stringify(r['result'] ?? r['error'])}`);
    } finally {
      rec.notes.push(`stderr:\n${c.stderr}`);
      rec.notes.push(`exit=${await c.stop()}`);
    }
  };

const scenarios: Record<string, ScenarioFn> = {
  text: single('text'),
  thinking: single('thinking'),
  tool: single('tool'),
  write: single('write'),
  error: single('error'),
  'tool-allowall': single('tool', ['--allow-all-tools']),
  'write-allowall': single('write', ['--allow-all-tools']),

  resume: async (env, rec) => {
    const c1 = AcpClient.start(env, rec.log);
    let sessionId = '';
    try {
      sessionId = await openSession(c1, env.cwd);
      const r = await prompt(c1, sessionId, 'Remember the secret word pineapple. scenario:text');
      rec.notes.push(`turn 1 (${sessionId}): ${JSON.stringify(r['result'] ?? r['error'])}`);
    } finally {
      rec.notes.push(`process 1 stderr:\n${c1.stderr}`);
      rec.notes.push(`process 1 exit=${await c1.stop()}`);
    }
    // A second process with the same HOME loads the session and continues it.
    const c2 = AcpClient.start(env, rec.log);
    try {
      const init = await c2.request('initialize', INIT_PARAMS);
      rec.notes.push(`process 2 loadSession capability: ${JSON.stringify(init['result']?.['agentCapabilities']?.['loadSession'])}`);
      const loaded = await c2.request('session/load', { sessionId, cwd: env.cwd, mcpServers: [] });
      rec.notes.push(`session/load: ${JSON.stringify(loaded['result'] ?? loaded['error'])}`);
      const r = await prompt(c2, sessionId, 'What was the secret word? scenario:text');
      rec.notes.push(`turn 2: ${JSON.stringify(r['result'] ?? r['error'])}`);
    } finally {
      rec.notes.push(`process 2 stderr:\n${c2.stderr}`);
      rec.notes.push(`process 2 exit=${await c2.stop()}`);
    }
  },

  cancel: async (env, rec, fake) => {
    const c = AcpClient.start(env, rec.log);
    try {
      const sessionId = await openSession(c, env.cwd);
      const firstChunk = c.waitFor((m) => m['method'] === 'session/update' && m['params']?.['update']?.['sessionUpdate'] === 'agent_message_chunk');
      const started = Date.now();
      const answer = prompt(c, sessionId, 'Acceptance test prompt. scenario:slow');
      const chunk = await firstChunk;
      await sleep(300); // a few more chunks
      rec.notes.push(`first chunk after ${Date.now() - started} ms: ${chunk ? 'yes' : 'none'}; sending session/cancel`);
      const cancelledAt = Date.now();
      c.notify('session/cancel', { sessionId });
      const r = await answer;
      rec.notes.push(`prompt answer ${Date.now() - cancelledAt} ms after cancel: ${JSON.stringify(r['result'] ?? r['error'])}`);
      // Did copilot drop the model's HTTP stream? (the slow answer takes 20 x 100 ms)
      const slow = fake.modelRequests()[0];
      for (let i = 0; i < 40 && slow?.streamedChunks === undefined; i++) await sleep(100);
      rec.notes.push(
        `model stream after cancel: ${slow?.aborted ? 'aborted by copilot' : 'NOT aborted, streamed to the end'} ` +
          `(${slow?.streamedChunks} chunks written, ${Date.now() - cancelledAt} ms after cancel)`,
      );
      // Is the session still usable after a cancel?
      const again = await prompt(c, sessionId, 'Acceptance test prompt after cancel. scenario:text');
      rec.notes.push(`next prompt: ${JSON.stringify(again['result'] ?? again['error'])}`);
    } finally {
      rec.notes.push(`stderr:\n${c.stderr}`);
      rec.notes.push(`exit=${await c.stop()}`);
    }
  },

  // JSON-RPC errors: prompting / loading a session that does not exist, an unknown method.
  'bad-session': async (env, rec) => {
    const c = AcpClient.start(env, rec.log);
    try {
      await c.request('initialize', INIT_PARAMS);
      const missing = '00000000-0000-4000-8000-000000000000';
      for (const [method, params] of [
        ['session/prompt', { sessionId: missing, prompt: [{ type: 'text', text: 'hello scenario:text' }] }],
        ['session/load', { sessionId: missing, cwd: env.cwd, mcpServers: [] }],
        ['session/unknown_method', {}],
      ] as const) {
        const r = await c.request(method, params, 20_000);
        rec.notes.push(`${method}: ${JSON.stringify(r['result'] ?? r['error'])}`);
      }
    } finally {
      rec.notes.push(`stderr:\n${c.stderr}`);
      rec.notes.push(`exit=${await c.stop()}`);
    }
  },

  // session/cancel while a permission request is pending: ACP says the client must then answer the
  // pending request with the `cancelled` outcome.
  'cancel-permission': async (env, rec) => {
    const c = AcpClient.start(env, rec.log);
    c.onPermission = () => undefined;
    try {
      const sessionId = await openSession(c, env.cwd);
      const asked = c.waitFor((m) => m['method'] === 'session/request_permission');
      const answer = prompt(c, sessionId, 'Acceptance test prompt. scenario:tool');
      const req = await asked;
      if (!req) throw new Error('no permission request came');
      const cancelledAt = Date.now();
      c.notify('session/cancel', { sessionId });
      c.write({ jsonrpc: '2.0', id: req['id'], result: { outcome: { outcome: 'cancelled' } } });
      const r = await answer;
      rec.notes.push(`prompt answer ${Date.now() - cancelledAt} ms after cancel: ${JSON.stringify(r['result'] ?? r['error'])}`);
      c.onPermission = allowOnce;
      const again = await prompt(c, sessionId, 'Acceptance test prompt after cancel. scenario:text');
      rec.notes.push(`next prompt: ${JSON.stringify(again['result'] ?? again['error'])}`);
    } finally {
      rec.notes.push(`stderr:\n${c.stderr}`);
      rec.notes.push(`exit=${await c.stop()}`);
    }
  },
};

async function record(name: string, fn: ScenarioFn): Promise<void> {
  const serverLog: string[] = [];
  const fake: FakeModel = await startFakeModel({ log: (l) => serverLog.push(`[fake ${new Date().toISOString()}] ${l}`) });
  const runDir = mkdtempSync(join(tmpdir(), `svc-acp-${name}-`));
  const rec: Recording = { log: [], notes: [] };
  const started = Date.now();
  try {
    await fn(prepareRealCliEnv('copilot', fake.url, runDir), rec, fake);
  } catch (err) {
    rec.notes.push(`recorder error: ${err instanceof Error ? err.stack : String(err)}`);
  } finally {
    await fake.close();
    rmSync(runDir, { recursive: true, force: true });
  }
  const base = join(OUT_DIR, `copilot-acp-${name}`);
  const scrub = (s: string) => s.split(runDir).join('/home/user/run').split(PROJECT_ROOT).join('<project>').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
  writeFileSync(`${base}.jsonl`, rec.log.map((l) => scrub(JSON.stringify(l))).join('\n') + '\n');
  writeFileSync(`${base}.stderr`, scrub(rec.notes.join('\n')) + '\n');
  writeFileSync(`${base}.server.log`, scrub(serverLog.join('\n')) + '\n');
  console.log(`${name}: ${rec.log.length} messages in ${Date.now() - started} ms -> ${base}.jsonl`);
}

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(scenarios);
mkdirSync(OUT_DIR, { recursive: true });
for (const n of names) {
  const fn = scenarios[n];
  if (!fn) {
    console.error(`unknown scenario ${n}; known: ${Object.keys(scenarios).join(' ')}`);
    process.exitCode = 2;
    continue;
  }
  await record(n, fn);
}
