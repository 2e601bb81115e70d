// Records the permission requests of the CLIs that have an Agent Client Protocol mode besides Copilot
// (Gemini CLI `gemini --acp`, OpenCode `opencode acp`), against the fake model's `write` scenario,
// answering `session/request_permission` with "allow once" or "reject once". Evidence for
// docs/approvals.md: these modes carry a channel svc's runs (headless `gemini -p`, `opencode run`) lack.
//
//   node --import tsx scripts/record-acp-permissions.ts
//
// Writes test/fixtures/protocols/<cli>-acp-permission-{allow,deny}.jsonl ({"dir":"in"|"out","msg"} per
// message, as record-copilot-acp.ts), .stderr (the CLI's stderr, the prompt's answer, exit=, whether the
// file was written) and .server.log (the model requests). Needs scripts/install-real-clis.sh.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, type RealCliName } from '../test/support/real-clis.ts';
import { AcpClient, openSession, prompt, selectKind, type Msg } from './acp-client.ts';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');

const CLIS: { cli: RealCliName; args: string[]; env?: Record<string, string> }[] = [
  // the model as in the headless recordings (without -m gemini asks a router model first)
  { cli: 'gemini', args: ['--acp', '-m', 'gemini-2.5-flash'] },
  // opencode's defaults allow edits and commands unasked: `ask` is what makes it send requests
  { cli: 'opencode', args: ['acp'], env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ permission: { edit: 'ask', bash: 'ask', webfetch: 'ask' } }) } },
];

for (const { cli, args, env: extraEnv } of CLIS) {
  for (const [decision, kind] of [['allow', 'allow_once'], ['deny', 'reject_once']] as const) {
    const serverLog: string[] = [];
    const fake = await startFakeModel({ log: (l) => serverLog.push(`[fake] ${l}`) });
    const runDir = mkdtempSync(join(tmpdir(), `svc-acp-perm-${cli}-`));
    const env = prepareRealCliEnv(cli, fake.url, runDir);
    Object.assign(env.env, extraEnv);
    const log: { dir: 'in' | 'out'; msg: Msg }[] = [];
    const notes: string[] = [];
    const c = AcpClient.start(cli, args, env, log);
    c.onPermission = selectKind(kind);
    try {
      const sessionId = await openSession(c, env.cwd);
      const answer = await prompt(c, sessionId, 'Acceptance test prompt. scenario:write');
      notes.push(`prompt answer: ${JSON.stringify(answer['result'] ?? answer['error'])}`);
    } catch (err) {
      notes.push(`recorder error: ${err instanceof Error ? err.stack : String(err)}`);
    } finally {
      notes.push(`stderr:\n${c.stderr}`, `exit=${await c.stop()}`, `file written: ${existsSync(join(env.cwd, 'hello-from-tool.txt'))}`);
      await fake.close();
      rmSync(runDir, { recursive: true, force: true });
    }
    const scrub = (s: string) => s.split(runDir).join('/home/user/run').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
    const base = join(OUT_DIR, `${cli}-acp-permission-${decision}`);
    writeFileSync(`${base}.jsonl`, `${log.map((l) => scrub(JSON.stringify(l))).join('\n')}\n`);
    writeFileSync(`${base}.stderr`, `${scrub(notes.join('\n'))}\n`);
    writeFileSync(`${base}.server.log`, `${scrub(serverLog.join('\n'))}\n`);
    console.log(`${cli}-acp-permission-${decision}: ${log.length} messages -> ${base}.jsonl`);
  }
}
