// One attempt (src/agent/attempt.ts) whose CLI stays after its turn: a stand-in ACP agent that answers the
// prompt and then ignores its closed stdin, as `gemini --acp` does while an MCP server runs. It is ended a few
// seconds later and the run keeps its answer, instead of waiting for the idle watchdog and failing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attempt } from '../../src/agent/attempt.ts';
import { adapterOf } from '../../src/agent/providers/registry.ts';

/** What the agent prints after each request it reads: initialize, session/new, session/prompt. */
const ANSWERS = [
  ['{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'],
  ['{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-1"}}'],
  [
    '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}',
    '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}',
  ],
];

test('a CLI that does not exit once its turn is over is ended, and the run keeps its answer', { timeout: 30_000 }, async (t) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-attempt-exit-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(dir, 'agent');
  const script = ANSWERS.map((lines) => ['read line', ...lines.map((line) => `echo '${line}'`)].join('\n')).join('\n');
  // after the answer it reads no more: stdin's end changes nothing
  writeFileSync(cli, `#!/bin/sh\n${script}\nsleep 60\n`, { mode: 0o755 });
  const started = Date.now();
  const attempt = new Attempt(
    {
      adapter: adapterOf('copilot'),
      request: { prompt: 'hi', cwd: dir, executable: cli, autoApprove: true },
      env: { PATH: process.env.PATH },
      pidDir: dir,
      scratchRoot: dir,
      idleTimeoutMs: 60_000,
      maxRunMs: 120_000,
      killGraceMs: 200,
    },
    { onEvent: () => undefined, onRawLine: () => undefined },
  );
  assert.deepEqual(await attempt.done, { status: 'ok', text: 'done' });
  assert.ok(Date.now() - started < 15_000, 'ended seconds after its answer, not by the idle watchdog');
});
