// `svc serve --tls-cert --tls-key` and `svc dashboard serve` with the same: HTTPS from the command line,
// client commands that find the server through its lock file and pin its certificate (no CA, no
// NODE_TLS_REJECT_UNAUTHORIZED), and one-line errors for files that cannot serve.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { resolveTarget } from '../../src/cli/target.ts';
import { homePaths } from '../../src/core/home.ts';
import { acquireServerLock } from '../../src/core/server-lock.ts';
import { TLS_PIN_ENV } from '../../src/core/tls-pin-env.ts';
import { makeCertificate } from '../support/tls.ts';
import { tempHome } from '../support/server.ts';
import { SVC_BIN } from '../support/cli.ts';

// The built program (npm test builds it first), as a user runs it: from the sources through tsx each
// start cost 2.4 s of CPU, and these tests start eleven.
const ROOT = join(import.meta.dirname, '../..');
// client commands find their server through --home only
const ENV = { ...process.env, SVC_URL: '', SVC_PORT: '', SVC_TOKEN: '', SVC_TLS_CERT: '', SVC_TLS_KEY: '', SVC_TLS_FINGERPRINT: '', NODE_TLS_REJECT_UNAUTHORIZED: '' };

const homes: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a server command and resolves with the URL it printed once it listens. */
function start(args: string[], listening: RegExp): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c;
      const url = listening.exec(output)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr!.on('data', (c: Buffer) => (output += c));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

test('which certificate a client command pins: the lock file\'s, or SVC_TLS_FINGERPRINT with SVC_URL; none for --url', () => {
  const home = tempHome('svc-tls-target-');
  homes.push(home);
  const lock = acquireServerLock(homePaths(home).lock);
  try {
    lock.listening('https://127.0.0.1:4443', 'AB:CD');
    assert.deepEqual(resolveTarget({ home }, {}), { url: 'https://127.0.0.1:4443', pin: 'AB:CD' });
    const env = { SVC_URL: 'https://127.0.0.1:5443', [TLS_PIN_ENV]: 'EF:01' };
    assert.deepEqual(resolveTarget({}, env), { url: 'https://127.0.0.1:5443', pin: 'EF:01' });
    // an address given on the command line is verified the usual way, whatever the environment holds
    assert.deepEqual(resolveTarget({ url: 'https://127.0.0.1:6443' }, env), { url: 'https://127.0.0.1:6443' });
  } finally {
    lock.release();
  }
});

test('svc serve --tls-cert --tls-key serves HTTPS; svc status and svc token reach it by pinning the lock file\'s fingerprint', async () => {
  const tls = makeCertificate();
  const home = tempHome('svc-tls-cli-');
  homes.push(home);
  const { child, url } = await start(['serve', '--home', home, '--port', '0', '--proxy-port', '0', '--tls-cert', tls.certFile, '--tls-key', tls.keyFile], /listening on (https:\/\/\S+)/);
  try {
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const status = await run(['status', '--home', home]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`is running at ${url.replace(/\./g, '\\.')}`));
    const token = await run(['token', '--home', home]);
    assert.equal(token.code, 0, token.stderr);
    assert.equal(token.stdout.trim(), readFileSync(homePaths(home).token, 'utf8').trim());

    // a lock file naming another certificate: the client refuses the server rather than trust it
    const lockPath = homePaths(home).lock;
    const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(lockPath, JSON.stringify({ ...lock, certFingerprint: makeCertificate('other').fingerprint }));
    const refused = await run(['status', '--home', home]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /certificate .* is not the one expected/);
    writeFileSync(lockPath, JSON.stringify(lock));
  } finally {
    await stop(child);
  }
});

test('svc dashboard serve --tls-cert --tls-key serves the manager over HTTPS', async () => {
  const tls = makeCertificate();
  const home = join(tempHome('svc-tls-manager-'), 'mgr');
  homes.push(home);
  const { child, url } = await start(['dashboard', 'serve', '--home', home, '--port', '0', '--count', '0', '--tls-cert', tls.certFile, '--tls-key', tls.keyFile], /listening on (https:\/\/\S+)/);
  try {
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    await stop(child);
  }
});

test('certificate and key files that cannot serve are one line and exit 1, before anything starts', async () => {
  const tls = makeCertificate();
  const other = makeCertificate('other');
  const home = tempHome('svc-tls-bad-');
  homes.push(home);
  const notPem = join(home, 'not.pem');
  writeFileSync(notPem, 'hello\n');
  const cases: [string[], RegExp][] = [
    [['--tls-cert', tls.certFile], /needs its private key too: give --tls-key/],
    [['--tls-key', tls.keyFile], /needs its certificate too: give --tls-cert/],
    [['--tls-cert', join(home, 'missing.pem'), '--tls-key', tls.keyFile], /cannot read .*missing\.pem: no such file/],
    [['--tls-cert', notPem, '--tls-key', tls.keyFile], /not\.pem is not a PEM certificate/],
    [['--tls-cert', tls.certFile, '--tls-key', notPem], /not\.pem is not a PEM private key/],
    [['--tls-cert', tls.certFile, '--tls-key', other.keyFile], /does not match the certificate/],
  ];
  const serve = ['serve', '--home', join(home, 'core'), '--port', '0', '--proxy-port', '0'];
  const dashboard = ['dashboard', 'serve', '--home', join(home, 'mgr'), '--port', '0', '--count', '0'];
  // every case through `svc serve`; `svc dashboard serve` shares the loader, so one case there. The
  // runs are independent (each must exit before it makes anything), so they start together: each
  // spends seconds loading the CLI through tsx.
  const runs = cases.flatMap(([flags, message]) => (flags === cases.at(-1)![0] ? [serve, dashboard] : [serve]).map((command) => ({ command, flags, message })));
  const results = await Promise.all(runs.map(({ command, flags }) => run([...command, ...flags])));
  runs.forEach(({ command, flags, message }, i) => {
    const result = results[i]!;
    assert.equal(result.code, 1, `${command[0]} ${flags.join(' ')}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.doesNotMatch(result.stdout, /listening/);
  });
  assert.equal(existsSync(join(home, 'core')), false, 'no data directory was made');
  assert.equal(existsSync(join(home, 'mgr')), false, "no manager's home was made");
});

test('the help of serve and dashboard serve names --tls-cert and --tls-key', async () => {
  for (const command of [['serve'], ['dashboard', 'serve']]) {
    const help = await run([...command, '--help']);
    assert.match(help.stdout, /--tls-cert <file>/);
    assert.match(help.stdout, /--tls-key <file>/);
  }
});
