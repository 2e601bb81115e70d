// One attempt (src/agent/attempt.ts) with the codex adapter and a stand-in CLI that prints what codex prints
// offline ("Reconnecting... waiting for network", over and over): the wait is bounded, progress starts the
// clock again, and a CLI svc knows is not logged in is never started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attempt, type AttemptOptions } from '../../src/agent/attempt.ts';
import { adapterOf } from '../../src/agent/providers/registry.ts';
import type { NormalizedEvent } from '../../src/agent/providers/types.ts';

const WAIT = '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}';
const MESSAGE = '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"still here"}}';

function setup(t: { after(fn: () => unknown): void }, body: string) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-attempt-net-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(dir, 'codex');
  writeFileSync(cli, `#!/bin/sh\ntouch '${join(dir, 'ran')}'\necho '{"type":"thread.started","thread_id":"t-1"}'\necho '{"type":"turn.started"}'\n${body}\n`, { mode: 0o755 });
  const run = (options: Partial<AttemptOptions> = {}) => {
    const events: NormalizedEvent[] = [];
    const attempt = new Attempt(
      {
        adapter: adapterOf('codex'),
        request: { prompt: 'hi', cwd: dir, executable: cli, autoApprove: true },
        env: { PATH: process.env.PATH },
        pidDir: dir,
        scratchRoot: dir,
        idleTimeoutMs: 60_000,
        maxRunMs: 120_000,
        killGraceMs: 200,
        ...options,
      },
      { onEvent: (e) => events.push(e), onRawLine: () => {} },
    );
    return { attempt, events };
  };
  return { dir, run, ran: () => existsSync(join(dir, 'ran')) };
}

test('a CLI that only waits for the network is stopped when the wait passes its bound: a network failure in its own words', async (t) => {
  const { run } = setup(t, `while :; do echo '${WAIT}'; sleep 0.05; done`);
  const { attempt, events } = run({ networkWaitMs: 300 });
  const outcome = await attempt.done;
  assert.deepEqual(outcome, { status: 'error', text: '', failure: 'network', message: 'no connection for 300 ms; waiting for the network: Connection failed: error sending request' });
  const waits = events.filter((e) => e.kind === 'provider_retry');
  assert.ok(waits.length >= 2, `the waits were reported as they came (${waits.length})`);
  assert.ok(waits.every((e) => e.kind === 'provider_retry' && e.offline));
});

test('progress starts the clock again: waits that add up to more than the bound, each spell shorter, do not stop the CLI', async (t) => {
  // six spells of about 0.3 s each, 1.8 s in all, with an answer between them; the bound is 1.5 s
  const spell = `echo '${WAIT}'; sleep 0.1; echo '${WAIT}'; sleep 0.1; echo '${WAIT}'; sleep 0.1; echo '${MESSAGE}'`;
  const { run } = setup(t, `for i in 1 2 3 4 5 6; do ${spell}; done\necho '{"type":"turn.completed","usage":{}}'`);
  const outcome = await run({ networkWaitMs: 1500 }).attempt.done;
  assert.equal(outcome.status, 'ok', JSON.stringify(outcome));
});

test('a CLI svc knows is not logged in is not started: an auth failure found by svc; a check that fails lets it run', async (t) => {
  const { run, ran } = setup(t, `echo '${MESSAGE}'\necho '{"type":"turn.completed","usage":{}}'`);
  const refused = await run({ missingLogin: async () => 'svc found no CODEX_API_KEY' }).attempt.done;
  assert.deepEqual(refused, { status: 'error', text: '', failure: 'auth', message: 'svc found no CODEX_API_KEY', preflight: true });
  assert.equal(ran(), false, 'the CLI never ran');
  const stopped = run({ missingLogin: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 50)) });
  stopped.attempt.stop('stopped by user');
  assert.deepEqual(await stopped.attempt.done, { status: 'stopped', text: '', reason: 'stopped by user' }, 'a stop during the check: nothing starts');
  assert.equal(ran(), false);
  const ok = await run({ missingLogin: () => { throw new Error('cannot read'); } }).attempt.done;
  assert.equal(ok.status, 'ok');
  assert.equal(ran(), true);
});
