// Records the Agent Client Protocol (ACP) conversation of the real `copilot --acp` (JSON-RPC 2.0, one JSON
// message per line over stdio) against the fake model, acting as a minimal ACP client.
//
//   node --import tsx scripts/record-copilot-acp.ts [scenario ...]
//
// Scenarios: text thinking tool write write-deny error resume cancel cancel-permission bad-session
// tool-allowall write-allowall (default: all). Each writes
// test/fixtures/protocols/copilot-acp-<scenario>.jsonl with one {"dir":"in"|"out","msg":{…}} line per
// message ("out" = client → copilot, "in" = copilot → client), plus .stderr and .server.log beside it.
// Needs copilot from scripts/install-real-clis.sh. What was learned is in test/fixtures/protocols/COPILOT-ACP.md.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, type RealCliEnv } from '../test/support/real-clis.ts';
import { AcpClient, allowOnce, INIT_PARAMS, openSession, prompt, selectKind, sleep, type Msg } from './acp-client.ts';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');
/** `copilot --acp` with extra flags. */
const startCopilot = (env: RealCliEnv, log: { dir: 'in' | 'out'; msg: Msg }[], extraArgs: string[] = []) => AcpClient.start('copilot', ['--acp', ...extraArgs], env, log);


interface Recording {
  log: { dir: 'in' | 'out'; msg: Msg }[];
  notes: string[];
}

type ScenarioFn = (env: RealCliEnv, rec: Recording, fake: FakeModel) => Promise<void>;

/** A single-prompt scenario: initialize, session/new, session/prompt, stop. */
const single =
  (scenario: string, extraArgs: string[] = [], onPermission: (params: Msg) => Msg | undefined = allowOnce): ScenarioFn =>
  async (env, rec) => {
    const c = startCopilot(env, rec.log, extraArgs);
    c.onPermission = onPermission;
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
  // the person says no: what copilot tells the model (`.server.log`) and whether the file is written
  'write-deny': async (env, rec, fake) => {
    await single('write', [], selectKind('reject_once'))(env, rec, fake);
    rec.notes.push(`file written: ${existsSync(join(env.cwd, 'hello-from-tool.txt'))}`);
  },
  error: single('error'),
  'tool-allowall': single('tool', ['--allow-all-tools']),
  'write-allowall': single('write', ['--allow-all-tools']),

  resume: async (env, rec) => {
    const c1 = startCopilot(env, rec.log);
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
    const c2 = startCopilot(env, rec.log);
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
    const c = startCopilot(env, rec.log);
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
    const c = startCopilot(env, rec.log);
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
    const c = startCopilot(env, rec.log);
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
