// `svc service …` as a user runs it on Linux, against fake systemctl and loginctl that log their
// arguments (test/service/support.ts), with HOME, XDG_CONFIG_HOME and the data directory in a temp
// directory; and the plans and executor of launchd and Task Scheduler with their fakes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lineDiff, renderLogLine, lastLines } from '../../src/cli/service.ts';
import { installedService } from '../../src/service/installed.ts';
import { execute, managerFor, NO_USER_BUS, parseStatus, plan, ServiceError, describeStep, type ServiceTarget } from '../../src/service/platform.ts';
import { freePort } from '../support/ports.ts';
import { SVC_BIN } from '../support/cli.ts';
import { fakeManagers, logLines, ROOT, svcBuilt, tempDir } from './support.ts';

const root = tempDir('svc-service-cli-');
after(() => rmSync(root, { recursive: true, force: true }));
const bin = fakeManagers(join(root, 'bin'));
const user = userInfo().username;

/** A fresh machine: its own HOME, config directory, data directory and manager log. */
function machine(name: string) {
  const base = join(root, name);
  const home = join(base, 'home');
  const data = join(home, 'svc data 100%');
  const log = join(base, 'managers.log');
  const runtime = join(base, 'run');
  mkdirSync(home, { recursive: true });
  mkdirSync(runtime, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    XDG_CONFIG_HOME: join(base, 'config'),
    XDG_RUNTIME_DIR: runtime,
    SVC_HOME: data,
    PATH: bin,
    FAKE_LOG: log,
  };
  const unit = join(base, 'config', 'systemd', 'user', 'svc.service');
  const svc = (args: string[], extra: NodeJS.ProcessEnv = {}) => svcBuilt(['service', ...args], { ...env, ...extra });
  return { base, home, data, log, env, unit, svc, calls: () => logLines(log) };
}

test('install writes the unit, then daemon-reload, enable, start; a second install changes nothing', async () => {
  const m = machine('install');
  const port = await freePort();
  const first = m.svc(['install', '--port', String(port)]);
  assert.equal(first.status, 0, first.stderr);
  const unit = readFileSync(m.unit, 'utf8');
  assert.match(unit, new RegExp(`^ExecStart=.* serve --port ${port} --home "${m.data.replaceAll('%', '%%')}"$`, 'm'));
  assert.match(unit, new RegExp(`^Environment=PATH=${bin}$`, 'm'));
  const runs = m.calls().filter((l) => l.startsWith('systemctl') && !l.includes('show-environment'));
  assert.deepEqual(runs, ['systemctl --user daemon-reload', 'systemctl --user enable svc.service', 'systemctl --user start svc.service']);
  // the user's variables file, created once
  assert.match(readFileSync(join(m.data, 'service.env'), 'utf8'), /^# Environment variables of the svc service/);
  assert.match(first.stdout, /installed and started/);
  // linger is off (the fake says so): a warning with the fix, not a failure
  assert.match(first.stderr, new RegExp(`loginctl enable-linger ${user}`));

  // what `svc doctor` reads back
  const installed = installedService('serve', { platform: 'linux', env: m.env });
  assert.equal(installed?.manager, 'systemd');
  assert.equal(installed?.file, m.unit);
  assert.equal(installed?.env.PATH, bin);
  assert.equal(installed?.env.SVC_SERVICE, 'systemd');
  writeFileSync(join(m.data, 'service.env'), 'MY_KEY="from the file"\n');
  assert.equal(installedService('serve', { platform: 'linux', env: m.env })?.env.MY_KEY, 'from the file');

  const before = m.calls().length;
  const second = m.svc(['install', '--port', String(port)]);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /already installed, unchanged/);
  assert.equal(m.calls().length, before);
  // never overwritten by a re-install
  assert.equal(readFileSync(join(m.data, 'service.env'), 'utf8'), 'MY_KEY="from the file"\n');

  // svc's own older unit (another port) is replaced without --force, and the service restarted
  const other = await freePort();
  const third = m.svc(['install', '--port', String(other)]);
  assert.equal(third.status, 0, third.stderr);
  assert.match(readFileSync(m.unit, 'utf8'), new RegExp(`--port ${other} `));
  assert.deepEqual(m.calls().slice(before).filter((l) => !l.includes('show-environment') && !l.startsWith('loginctl')), [
    'systemctl --user daemon-reload',
    'systemctl --user enable svc.service',
    'systemctl --user restart svc.service',
  ]);
});

test('a unit edited by hand is not replaced without --force: the diff is printed, exit 1; --force replaces it', async () => {
  const m = machine('edited');
  const port = String(await freePort());
  assert.equal(m.svc(['install', '--port', port]).status, 0);
  const edited = readFileSync(m.unit, 'utf8').replace('RestartSec=2', 'RestartSec=30');
  writeFileSync(m.unit, edited);
  const before = m.calls().length;
  const refused = m.svc(['install', '--port', port]);
  assert.equal(refused.status, 1);
  assert.match(refused.stdout, /^-RestartSec=30$/m);
  assert.match(refused.stdout, /^\+RestartSec=2$/m);
  assert.match(refused.stderr, /^svc service: .*svc\.service was changed since svc wrote it .*--force replaces it\n$/);
  assert.equal(readFileSync(m.unit, 'utf8'), edited);
  assert.equal(m.calls().length, before);
  const forced = m.svc(['install', '--port', port, '--force']);
  assert.equal(forced.status, 0, forced.stderr);
  assert.match(readFileSync(m.unit, 'utf8'), /^RestartSec=2$/m);
  assert.ok(m.calls().slice(before).includes('systemctl --user restart svc.service'));
});

test('uninstall: disable --now, the unit removed, daemon-reload; the data directory and service.env kept', async () => {
  const m = machine('uninstall');
  assert.equal(m.svc(['install', '--port', String(await freePort())]).status, 0);
  writeFileSync(join(m.data, 'svc.db'), 'data');
  const before = m.calls().length;
  const result = m.svc(['uninstall']);
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(m.calls().slice(before).filter((l) => !l.includes('show-environment')), ['systemctl --user disable --now svc.service', 'systemctl --user daemon-reload']);
  assert.ok(!existsSync(m.unit));
  assert.ok(existsSync(join(m.data, 'svc.db')));
  assert.ok(existsSync(join(m.data, 'service.env')));
  assert.match(result.stdout, /uninstalled/);
  assert.equal(installedService('serve', { platform: 'linux', env: m.env }), null);
  // again: nothing to do
  assert.match(m.svc(['uninstall']).stdout, /is not installed/);
});

test('start, stop, restart and status run their systemctl commands; status --json has the pid and restarts', async () => {
  const m = machine('control');
  assert.equal(m.svc(['status']).status, 1);
  assert.match(m.svc(['start']).stderr, /^svc service: svc is not installed: svc service install\n$/);
  assert.equal(m.svc(['install', '--port', String(await freePort())]).status, 0);
  const before = m.calls().length;
  for (const action of ['stop', 'start', 'restart']) assert.equal(m.svc([action]).status, 0);
  const status = m.svc(['status', '--json']);
  assert.equal(status.status, 0, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.deepEqual({ installed: report.installed, active: report.active, pid: report.pid, restarts: report.restarts, file: report.file }, { installed: true, active: true, pid: 4242, restarts: 3, file: m.unit });
  assert.match(m.svc(['status']).stdout, /^svc: installed \(systemd\), running: active \(running\)\npid 4242\nrestarts: 3\n/);
  assert.deepEqual(m.calls().slice(before).filter((l) => !l.includes('show-environment')), [
    'systemctl --user stop svc.service',
    'systemctl --user start svc.service',
    'systemctl --user restart svc.service',
    'systemctl --user show -p ActiveState,SubState,MainPID,NRestarts svc.service',
    'systemctl --user show -p ActiveState,SubState,MainPID,NRestarts svc.service',
  ]);
});

test('no user bus, or no systemctl at all: one line, exit 1, nothing written', async () => {
  const m = machine('nobus');
  const port = String(await freePort());
  const noBus = m.svc(['install', '--port', port], { FAKE_NO_BUS: '1' });
  assert.equal(noBus.status, 1);
  assert.equal(noBus.stderr, `svc service: ${NO_USER_BUS}\n`);
  assert.match(noBus.stderr, /--system/);
  assert.ok(!existsSync(m.unit));
  if (process.getuid?.() === 0) {
    // root with no XDG_RUNTIME_DIR has no user manager to ask
    const rootNoRuntime = m.svc(['install', '--port', port], { XDG_RUNTIME_DIR: '' });
    assert.equal(rootNoRuntime.stderr, `svc service: ${NO_USER_BUS}\n`);
  }
  const empty = join(m.base, 'empty-bin');
  mkdirSync(empty);
  const missing = m.svc(['install', '--port', port], { PATH: empty });
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, 'svc service: systemctl not found: this system has no systemd user manager; run svc serve under your own supervisor, or --print to see the unit\n');
  assert.ok(!existsSync(m.unit));
  assert.ok(!existsSync(join(m.data, 'service.env')));
});

test('--print prints the unit and the commands and writes nothing', async () => {
  const m = machine('print');
  const result = m.svc(['install', '--print', '--port', String(await freePort())], { PATH: join(m.base, 'nowhere') });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^\[Service\]$/m);
  assert.match(result.stdout, /^systemctl --user daemon-reload\nsystemctl --user enable svc.service\nsystemctl --user start svc.service\n$/m);
  assert.deepEqual(readdirSync(m.base).sort(), ['home', 'run']);
  assert.deepEqual(readdirSync(m.home), []);
  assert.deepEqual(m.calls(), []);
  // the dashboard's: its own name, command and home
  const dashboard = m.svc(['install', '--print', '--dashboard']);
  assert.match(dashboard.stdout, /svc-dashboard\.service/);
  assert.match(dashboard.stdout, new RegExp(`dashboard serve --port 24576 --home ${join(m.home, '.svc-dashboard')}`));
});

test('a port in use is refused before anything is written', async () => {
  const m = machine('port');
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as { port: number };
    const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      // spawned, not spawnSync: this process's listener must stay up while svc probes the port
      const child = spawn(process.execPath, [SVC_BIN, 'service', 'install', '--port', String(port)], { cwd: ROOT, env: m.env });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (status) => resolve({ status, stderr }));
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`^svc service: port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.ok(!existsSync(m.unit));
    assert.ok(!existsSync(join(m.data, 'service.env')));
    assert.deepEqual(m.calls().filter((l) => !l.includes('show-environment')), []);
  } finally {
    server.close();
  }
});

test('logs: the last lines of the log and its rotated files; none yet is one line; -f follows appends and a rotation', async () => {
  const m = machine('logs');
  const none = m.svc(['logs']);
  assert.equal(none.status, 0);
  assert.equal(none.stdout, `no log yet: once svc runs as a service it writes ${join(m.data, 'logs', 'svc.log')}\n`);
  const logs = join(m.data, 'logs');
  mkdirSync(logs, { recursive: true });
  const entry = (n: number) => `${JSON.stringify({ ts: `2025-01-01T00:00:0${n}.000Z`, level: n % 2 ? 'info' : 'warn', msg: `line ${n}` })}\n`;
  writeFileSync(join(logs, 'svc.log.2'), entry(1) + entry(2));
  writeFileSync(join(logs, 'svc.log.1'), entry(3));
  writeFileSync(join(logs, 'svc.log'), entry(4) + 'not json\n');
  const last = m.svc(['logs', '-n', '4']);
  assert.equal(last.stdout, '2025-01-01T00:00:02.000Z warn line 2\n2025-01-01T00:00:03.000Z info line 3\n2025-01-01T00:00:04.000Z warn line 4\nnot json\n');
  assert.equal(m.svc(['logs']).stdout.split('\n').length, 6);

  const child = spawn(process.execPath, [SVC_BIN, 'service', 'logs', '-f', '-n', '1'], { cwd: ROOT, env: m.env });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const waitFor = async (text: string) => {
    for (const start = Date.now(); !out.includes(text); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() - start > 20_000) assert.fail(`no ${JSON.stringify(text)} in ${JSON.stringify(out)}`);
    }
  };
  await waitFor('not json');
  appendFileSync(join(logs, 'svc.log'), entry(5));
  await waitFor('line 5');
  // rotation: the rest of the old file, then the new one
  appendFileSync(join(logs, 'svc.log'), entry(6));
  renameSync(join(logs, 'svc.log'), join(logs, 'svc.log.1'));
  writeFileSync(join(logs, 'svc.log'), entry(7));
  await waitFor('line 7');
  // truncation: read again from the start
  writeFileSync(join(logs, 'svc.log'), '');
  await new Promise((r) => setTimeout(r, 400));
  writeFileSync(join(logs, 'svc.log'), entry(8));
  await waitFor('line 8');
  child.kill('SIGINT');
  const [code] = await once(child, 'close');
  assert.equal(code, 0);
  assert.deepEqual(out.trim().split('\n').map((l) => l.split(' ').slice(-2).join(' ')), ['not json', 'line 5', 'line 6', 'line 7', 'line 8']);
});

test('an unknown platform is one line; a bad --port is refused by the option parser', () => {
  assert.throws(() => managerFor('aix'), (err: unknown) => err instanceof ServiceError && /^svc service does not know the service manager of aix/.test(err.message) && !err.message.includes('\n'));
  const m = machine('usage');
  const bad = m.svc(['install', '--port', 'x']);
  assert.equal(bad.status, 1); // commander's own exit for an invalid argument
  assert.match(bad.stderr, /--port/);
});

test('launchd: install, start, stop, restart, status, uninstall plans run against a fake launchctl', () => {
  const base = join(root, 'launchd');
  const file = join(base, 'LaunchAgents', 'dev.svc.svc.plist');
  const target: ServiceTarget = { manager: 'launchd', name: 'svc', file, system: false, uid: 501, logDir: join(base, 'Logs', 'svc') };
  const log = join(base, 'managers.log');
  const env = { PATH: bin, FAKE_LOG: log };
  execute(plan('install', target), { env, files: new Map([[file, '<plist/>']]) });
  assert.ok(existsSync(file));
  assert.ok(existsSync(target.logDir!));
  for (const action of ['stop', 'start', 'restart'] as const) execute(plan(action, target), { env, files: new Map() });
  const status = execute(plan('status', target), { env, files: new Map() })[0]!;
  assert.deepEqual(parseStatus('launchd', status.stdout, status.status), { state: 'running', active: true, pid: 777, restarts: 1 });
  execute(plan('uninstall', target), { env, files: new Map() });
  assert.ok(!existsSync(file));
  assert.deepEqual(logLines(log), [
    'launchctl bootout gui/501/dev.svc.svc',
    `launchctl bootstrap gui/501 ${file}`,
    'launchctl bootout gui/501/dev.svc.svc',
    `launchctl bootstrap gui/501 ${file}`,
    'launchctl kickstart -k gui/501/dev.svc.svc',
    'launchctl print gui/501/dev.svc.svc',
    'launchctl bootout gui/501/dev.svc.svc',
  ]);
  assert.deepEqual(parseStatus('launchd', '', 113), { state: 'not loaded', active: false, pid: null, restarts: null });
});

test('Task Scheduler: the schtasks commands of each action, and a failure named in one line', () => {
  const base = join(root, 'schtasks');
  const file = join(base, 'svc-task.xml');
  const target: ServiceTarget = { manager: 'schtasks', name: 'svc', file, system: false };
  const log = join(base, 'managers.log');
  mkdirSync(base, { recursive: true });
  const env = { PATH: bin, FAKE_LOG: log };
  execute(plan('install', target), { env, files: new Map([[file, Buffer.from('xml')]]) });
  for (const action of ['stop', 'start', 'restart'] as const) execute(plan(action, target), { env, files: new Map() });
  const status = execute(plan('status', target), { env, files: new Map() })[0]!;
  assert.deepEqual(parseStatus('schtasks', status.stdout, status.status), { state: 'Running', active: true, pid: null, restarts: null });
  execute(plan('uninstall', target), { env, files: new Map() });
  assert.deepEqual(logLines(log), [
    `schtasks /Create /TN svc\\svc /XML ${file} /F`,
    'schtasks /Run /TN svc\\svc',
    'schtasks /End /TN svc\\svc',
    'schtasks /Run /TN svc\\svc',
    'schtasks /End /TN svc\\svc',
    'schtasks /Run /TN svc\\svc',
    'schtasks /Query /TN svc\\svc /FO LIST /V',
    'schtasks /End /TN svc\\svc',
    'schtasks /Delete /TN svc\\svc /F',
  ]);
  assert.ok(!existsSync(file));
  assert.throws(
    () => execute(plan('start', target), { env: { ...env, FAKE_FAIL: '/Run' }, files: new Map() }),
    (err: unknown) => err instanceof ServiceError && err.message === '`schtasks /Run /TN svc\\svc` failed (exit 1): schtasks: /Run failed',
  );
  assert.equal(describeStep({ command: 'systemctl', args: ['--user', 'start', 'a b'] }), 'systemctl --user start "a b"');
});

test('the pure helpers: line diff, log lines', () => {
  assert.deepEqual(lineDiff('a\nb\nc', 'a\nx\nc', 'f').slice(2), [' a', '-b', '+x', ' c']);
  assert.equal(renderLogLine('{"ts":"T","level":"error","msg":"boom"}'), 'T error boom');
  assert.equal(renderLogLine('{"other":1}'), '{"other":1}');
  assert.deepEqual(lastLines(['a\nb\n', 'c\n\n'], 2), ['b', 'c']);
  assert.deepEqual(lastLines(['a\n'], 0), []);
});
