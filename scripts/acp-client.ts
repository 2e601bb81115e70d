// A minimal Agent Client Protocol client for the recorders (scripts/record-copilot-acp.ts,
// scripts/record-acp-permissions.ts): JSON-RPC 2.0, one message per line over the agent's stdio.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { killGroup, realCliPath, type RealCliEnv, type RealCliName } from '../test/support/real-clis.ts';

export type Msg = Record<string, any>;
const REQUEST_TIMEOUT_MS = 60_000;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One ACP agent process driven as a client; every line in both directions goes to `log`. */
export class AcpClient {
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

  /** `cli` with `args` (its ACP mode) in the prepared environment. */
  static start(cli: RealCliName, args: string[], env: RealCliEnv, log: { dir: 'in' | 'out'; msg: Msg }[]): AcpClient {
    const bin = realCliPath(cli);
    if (!bin) throw new Error(`${cli} not installed: run scripts/install-real-clis.sh`);
    const child = spawn(bin, args, { cwd: env.cwd, env: env.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
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

/** The first option of these kinds, as a `selected` outcome; `cancelled` when there is none. */
export const selectKind =
  (...kinds: string[]) =>
  (params: Msg): Msg => {
    const options: Msg[] = params?.['options'] ?? [];
    const pick = kinds.map((kind) => options.find((o) => o['kind'] === kind)).find(Boolean);
    return pick ? { outcome: { outcome: 'selected', optionId: pick['optionId'] } } : { outcome: { outcome: 'cancelled' } };
  };

export const allowOnce = selectKind('allow_once', 'allow_always');

export const INIT_PARAMS = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'svc-acp-recorder', version: '0.1.0' },
};

/** initialize, then session/new in `cwd`: the session id. */
export async function openSession(c: AcpClient, cwd: string): Promise<string> {
  const init = await c.request('initialize', INIT_PARAMS);
  if (init['error']) throw new Error(`initialize failed: ${JSON.stringify(init['error'])}`);
  const created = await c.request('session/new', { cwd, mcpServers: [] });
  const sessionId = created['result']?.['sessionId'];
  if (!sessionId) throw new Error(`session/new failed: ${JSON.stringify(created)}`);
  return sessionId;
}

export const prompt = (c: AcpClient, sessionId: string, text: string, timeoutMs?: number) =>
  c.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }, timeoutMs);
