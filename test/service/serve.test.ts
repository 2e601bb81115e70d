// The unit's ExecStart line is a command that runs: a real `svc serve` started the way systemd would start
// it (the words of ExecStart, split by systemd's quoting, with only the unit's Environment= values) answers
// GET /api/health, comes back after a kill -9 when started again as Restart=always does, and stops on the
// SIGTERM systemd sends. It runs bin/svc.js, so the built CLI when
// there is one (`npm run build`), else the sources.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { buildSpec } from '../../src/service/spec.ts';
import { parseSystemdUnit, renderSystemdUnit } from '../../src/service/systemd.ts';
import { freePort } from '../support/ports.ts';
import { ROOT, tempDir } from './support.ts';

const dir = tempDir('svc-service-serve-');
after(() => rmSync(dir, { recursive: true, force: true }));

test('svc serve started as the unit says answers /api/health; after kill -9 the restart the unit asks for serves again; SIGTERM stops it', { timeout: 120_000 }, async () => {
  const userHome = join(dir, 'user home 100%');
  mkdirSync(userHome, { recursive: true });
  const port = await freePort();
  const spec = buildSpec({
    kind: 'serve',
    port,
    home: join(userHome, '.svc'),
    userHome,
    node: realpathSync(process.execPath),
    script: realpathSync(join(ROOT, 'bin/svc.js')),
    pathEnv: process.env.PATH,
    platform: 'linux',
  });
  // the web-routing proxy's fixed port (3458) may be taken on a machine that runs tests: off for this one
  spec.args.push('--proxy-port', '0');
  const text = renderSystemdUnit(spec);
  const unit = parseSystemdUnit(text);
  const [program, ...args] = unit.execStart;
  assert.equal(program, spec.node);
  // What systemd does with this unit, done by hand: no systemd user manager runs on a test machine
  // (a container has none), so the test is the supervisor, and it follows the unit's own settings.
  assert.match(text, /^Restart=always$/m);
  const restartSec = Number(/^RestartSec=(\d+)$/m.exec(text)?.[1]);
  const start = () => {
    const child = spawn(program!, args, { cwd: unit.workingDirectory, env: unit.environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    return { child, output: () => output };
  };
  const serving = async (run: ReturnType<typeof start>) => {
    const started = Date.now();
    while ((await health(port)) !== 200) {
      assert.equal(run.child.exitCode, null, `svc serve exited: ${run.output()}`);
      assert.ok(Date.now() - started < 60_000, `no answer on ${port} in 60 s: ${run.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // the data directory is the unit's --home, and this process holds it
    assert.ok(readFileSync(join(spec.home, 'server.lock'), 'utf8').includes(String(run.child.pid)));
  };
  const first = start();
  let second: ReturnType<typeof start> | undefined;
  try {
    await serving(first);
    // kill -9: no shutdown at all (the lock file and the database's WAL stay as they were)
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await new Promise((r) => setTimeout(r, restartSec * 1000));
    second = start();
    await serving(second);
    const starts = readFileSync(join(spec.home, 'logs', 'svc.log'), 'utf8').split('\n').filter((l) => l.includes('starting as a systemd service'));
    assert.equal(starts.length, 2, 'the service log has both starts');
  } finally {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
    second?.child.kill('SIGTERM');
  }
  const [code, signal] = await once(second!.child, 'exit');
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, second!.output());
});

function health(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
