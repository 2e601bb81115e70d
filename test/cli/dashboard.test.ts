// `svc dashboard serve`: the manager starts from the command line, answers, and stops on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempHome } from '../support/server.ts';
import { freePort } from '../support/ports.ts';

const BIN = join(import.meta.dirname, '../../bin/svc.js');

test('svc dashboard serve listens on --port with its own home, and SIGTERM stops it', async () => {
  const home = join(tempHome('svc-manager-'), 'mgr');
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'dashboard', 'serve', '--port', String(port), '--home', home, '--count', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        output += c;
        if (output.includes('no port scan')) resolve();
      });
      child.stderr!.on('data', (c: Buffer) => (output += c));
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    assert.match(output, new RegExp(`svc dashboard listening on http://127\\.0\\.0\\.1:${port}`));
    const health = (await (await fetch(`http://127.0.0.1:${port}/api/dashboard/health`)).json()) as { service: string; port: number };
    assert.equal(health.service, 'manager-dashboard');
    assert.equal(health.port, port);
    assert.ok(existsSync(join(home, 'dashboard.db')));
    assert.ok(existsSync(join(home, 'token')));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
});
