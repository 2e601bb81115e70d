// `svc browser` from a terminal: the browser server it starts is announced, and `status` and `stop`
// show and end it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { tempHome } from '../support/server.ts';
import { freePort } from '../support/ports.ts';

const BIN = join(import.meta.dirname, '../../bin/svc.js');

function svc(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('svc browser open says the browser server stays; status shows it; stop ends it', { timeout: 120_000 }, async (t) => {
  const page = createServer((_req, res) => res.end('<title>hello</title>')).listen(0, '127.0.0.1');
  await new Promise((r) => page.once('listening', r));
  t.after(() => page.close());
  const pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}/`;
  const home = tempHome();
  const env = { SVC_HOME: home, SVC_BROWSER_PORT: String(await freePort()), SVC_SERVER_PID: '', SVC_URL: '' };
  t.after(async () => {
    await svc(['browser', 'stop'], env);
    rmSync(home, { recursive: true, force: true });
  });
  const none = await svc(['browser', 'status'], env);
  assert.equal(none.status, 0);
  assert.match(none.stdout, /^no browser server on 127\.0\.0\.1:\d+/);

  const open = await svc(['browser', 'open', pageUrl], env);
  assert.equal(open.status, 0, open.stderr);
  assert.match(open.stderr, /the browser server now runs on 127\.0\.0\.1:\d+ .* stop it with `svc browser stop`/);

  const running = await svc(['browser', 'status'], env);
  assert.match(running.stdout, /browser server on 127\.0\.0\.1:\d+: its browser runs \(launch, headless, pid \d+\), 1 tab/);
  const again = await svc(['browser', 'tabs'], env);
  assert.doesNotMatch(again.stderr, /now runs/, 'only the command that started it says so');

  const stop = await svc(['browser', 'stop'], env);
  assert.match(stop.stdout, /^stopped the browser server/);
  assert.match((await svc(['browser', 'status'], env)).stdout, /^no browser server/);
});
