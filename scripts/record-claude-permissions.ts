// Records Claude Code asking a person for a tool permission over stdio (`--permission-prompt-tool
// stdio`, stream-json both ways) against the fake model's `write` scenario, answering the can_use_tool
// control request with an allow or a deny.
//
//   node --import tsx scripts/record-claude-permissions.ts
//
// Writes test/fixtures/protocols/claude-permission-{allow,deny}.jsonl (the CLI's stdout, byte for byte)
// and .stderr (its stderr, then `exit=<code>`). Needs claude from scripts/install-real-clis.sh. Runs as
// the user it is started by, without IS_SANDBOX (a person is asked, so no permission is skipped).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startFakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath } from '../test/support/real-clis.ts';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');
const claude = realCliPath('claude');
if (!claude) throw new Error('claude is not installed: run scripts/install-real-clis.sh');
const fake = await startFakeModel();

for (const decision of ['allow', 'deny'] as const) {
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-record-perm-')));
  const { IS_SANDBOX: _sandbox, ...childEnv } = env;
  const child = spawn(claude, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-prompt-tool', 'stdio'], { cwd, env: childEnv });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    const message = JSON.parse(line) as { type: string; request_id?: string; request?: { subtype: string; input: unknown } };
    if (message.type === 'control_request' && message.request?.subtype === 'can_use_tool') {
      const response = decision === 'allow' ? { behavior: 'allow', updatedInput: message.request.input } : { behavior: 'deny', message: 'the user said no: not now' };
      child.stdin.write(`${JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response } })}\n`);
    }
    if (message.type === 'result') child.stdin.end();
  });
  child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'write the file scenario:write' }] } })}\n`);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  writeFileSync(join(OUT_DIR, `claude-permission-${decision}.jsonl`), `${lines.join('\n')}\n`);
  writeFileSync(join(OUT_DIR, `claude-permission-${decision}.stderr`), `${stderr}exit=${code}\n`);
  console.log(`claude-permission-${decision}: ${lines.length} lines, exit ${code}`);
}
await fake.close();
