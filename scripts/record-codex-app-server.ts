// Records Codex asking a person for tool permissions over its app server (`codex app-server`, JSON-RPC
// over stdio) against the fake model: the `write` scenario (a new file) and the `tool` scenario (a shell
// command), each approval answered with an allow or a deny. codex is driven by svc's own adapter (what
// it writes is what svc writes), as a run that asks permissions.
//
//   node --import tsx scripts/record-codex-app-server.ts
//
// Writes test/fixtures/protocols/codex-app-server-{write,tool}-{allow,deny}.jsonl (codex's stdout, byte for
// byte) and .stderr (its stderr, then `exit=<code>`). Needs codex from scripts/install-real-clis.sh; its
// test config (approval_policy "never", sandbox "danger-full-access") is overridden by the thread's own.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { codexAdapter } from '../src/agent/providers/codex/adapter.ts';
import type { AdapterOutput, InvocationRequest } from '../src/agent/providers/types.ts';
import { startFakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath } from '../test/support/real-clis.ts';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');
const codex = realCliPath('codex');
if (!codex) throw new Error('codex is not installed: run scripts/install-real-clis.sh');
const fake = await startFakeModel();

for (const scenario of ['write', 'tool'] as const) {
  for (const decision of ['allow', 'deny'] as const) {
    const runDir = mkdtempSync(join(tmpdir(), 'svc-record-codex-'));
    const { env, cwd } = prepareRealCliEnv('codex', fake.url, runDir);
    const req: InvocationRequest = { prompt: `Do it. scenario:${scenario}`, cwd, executable: codex, autoApprove: false, askPermissions: true, scratchDir: runDir };
    const invocation = codexAdapter.buildInvocation(req);
    const state = codexAdapter.initialState(req);
    const child = spawn(invocation.command, invocation.args, { cwd, env: { ...env, ...invocation.env } });
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const apply = (output: AdapterOutput) => {
      for (const line of output.writes ?? []) child.stdin.write(`${line}\n`);
      if (output.closeStdin) child.stdin.end();
      for (const event of output.events) {
        if (event.kind !== 'permission_request') continue;
        apply(codexAdapter.answerPermission!(state, event.requestId, decision === 'allow' ? { allow: true } : { allow: false, reason: 'not now' }));
      }
    };
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      apply(codexAdapter.parseLine(state, line));
    });
    apply(codexAdapter.start!(state, req));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const name = `codex-app-server-${scenario}-${decision}`;
    writeFileSync(join(OUT_DIR, `${name}.jsonl`), `${lines.join('\n')}\n`);
    writeFileSync(join(OUT_DIR, `${name}.stderr`), `${stderr}exit=${code}\n`);
    console.log(`${name}: ${lines.length} lines, exit ${code}`);
  }
}
await fake.close();
