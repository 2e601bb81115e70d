// The log a service keeps in its home: JSON lines, rotated by size, and what `svc serve` writes there
// when it runs as a service (SVC_SERVICE), and not otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLogLine, LogFile, rotationRenames } from '../../src/core/log-file.ts';
import { runningAs } from '../../src/core/service-env.ts';
import { SVC_BIN } from '../support/cli.ts';
import { getJson, tempHome } from '../support/server.ts';

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('a line is one JSON object: time, level, the message without the svc: prefix', () => {
  const line = formatLogLine('warn', 'svc: disk almost full\n', new Date(Date.UTC(2026, 10, 28, 12)));
  assert.equal(line, '{"ts":"2026-11-28T12:00:00.000Z","level":"warn","msg":"disk almost full"}\n');
});

test('rotation renames oldest first, so no file is overwritten before it moved', () => {
  assert.deepEqual(rotationRenames('/h/logs/svc.log', 3), [
    ['/h/logs/svc.log.2', '/h/logs/svc.log.3'],
    ['/h/logs/svc.log.1', '/h/logs/svc.log.2'],
    ['/h/logs/svc.log', '/h/logs/svc.log.1'],
  ]);
});

test('past its size the log rotates, keeping the newest entries in order and at most `keep` old files', () => {
  const home = tempHome('svc-log-');
  try {
    const path = join(home, 'logs', 'svc.log');
    const log = new LogFile({ path, maxBytes: 300, keep: 2 });
    for (let i = 0; i < 40; i++) log.write('info', `entry ${i}`);
    log.close();
    assert.deepEqual(readdirSync(join(home, 'logs')).sort(), ['svc.log', 'svc.log.1', 'svc.log.2']);
    const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)].map((e) => Number(e.msg.split(' ')[1]));
    assert.equal(kept.at(-1), 39, 'the newest entry is in the current file');
    assert.deepEqual(kept, kept.map((_, i) => kept[0]! + i), 'consecutive: nothing lost between the files kept, nothing doubled');
    for (const file of ['svc.log', 'svc.log.1', 'svc.log.2']) assert.ok(readFileSync(join(home, 'logs', file)).length <= 300);
    // a new writer appends to what is there
    const again = new LogFile({ path, maxBytes: 300, keep: 2 });
    again.write('error', 'after a restart');
    again.close();
    assert.equal(lines(path).at(-1).msg, 'after a restart');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('SVC_SERVICE names the manager; anything else is not a service', () => {
  assert.equal(runningAs({ SVC_SERVICE: 'systemd' }), 'systemd');
  assert.equal(runningAs({ SVC_SERVICE: ' launchd ' }), 'launchd');
  assert.equal(runningAs({ SVC_SERVICE: 'yes' }), null);
  assert.equal(runningAs({}), null);
});

/** `svc serve` on a free port with `env`; resolves once it listens, with its URL. */
async function serve(home: string, env: NodeJS.ProcessEnv, extraArgs: string[] = []) {
  const child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', '--proxy-port', '0', '--home', home, ...extraArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`svc serve exited ${code}: ${out}`)));
  });
  return { child, url };
}

test('svc serve as a service logs to <home>/logs/svc.log (start, listening, stop) and says so in its runtime facts', async () => {
  const home = tempHome('svc-service-log-');
  try {
    const { child, url } = await serve(home, { SVC_SERVICE: 'systemd' });
    const runtime = await getJson(`${url}/api/runtime`, { headers: { authorization: `Bearer ${readFileSync(join(home, 'token'), 'utf8').trim()}` } });
    assert.equal(runtime.body.service, 'systemd');
    child.kill('SIGTERM');
    await once(child, 'exit');
    const entries = lines(join(home, 'logs', 'svc.log'));
    const messages = entries.map((e) => e.msg);
    assert.match(messages[0], /^starting as a systemd service \(pid \d+\)$/);
    assert.ok(messages.some((m) => m.startsWith(`svc `) && m.includes(`listening on ${url}`)), messages.join('\n'));
    assert.ok(messages.includes('SIGTERM received, shutting down'), messages.join('\n'));
    for (const e of entries) assert.ok(!Number.isNaN(Date.parse(e.ts)) && ['info', 'warn', 'error'].includes(e.level));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('svc serve in a terminal writes no log file, and its runtime facts say it is not a service', async () => {
  const home = tempHome('svc-service-log-');
  try {
    const { child, url } = await serve(home, { SVC_SERVICE: '' });
    const runtime = await getJson(`${url}/api/runtime`, { headers: { authorization: `Bearer ${readFileSync(join(home, 'token'), 'utf8').trim()}` } });
    assert.equal(runtime.body.service, null);
    child.kill('SIGTERM');
    await once(child, 'exit');
    assert.equal(existsSync(join(home, 'logs')), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('as a Task Scheduler task (--service schtasks, no variables): the log, and the user\'s variables from <home>/service.env', async () => {
  const home = tempHome('svc-service-log-');
  try {
    writeFileSync(join(home, 'service.env'), '# mine\nSVC_LOG_LEVEL=info\nEXAMPLE_API_KEY="sk-secret-value"\n');
    const { child, url } = await serve(home, { SVC_SERVICE: '', SVC_LOG_LEVEL: '' }, ['--service', 'schtasks']);
    const runtime = await getJson(`${url}/api/runtime`, { headers: { authorization: `Bearer ${readFileSync(join(home, 'token'), 'utf8').trim()}` } });
    assert.equal(runtime.body.service, 'schtasks');
    child.kill('SIGTERM');
    await once(child, 'exit');
    const text = readFileSync(join(home, 'logs', 'svc.log'), 'utf8');
    const messages = lines(join(home, 'logs', 'svc.log')).map((e) => e.msg);
    assert.equal(messages[0], `starting as a schtasks service (pid ${runtime.body.pid})`);
    assert.ok(messages.includes(`variables from ${join(home, 'service.env')}: SVC_LOG_LEVEL, EXAMPLE_API_KEY`), messages.join('\n'));
    assert.ok(!text.includes('sk-secret-value'), 'names only, never the values');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
