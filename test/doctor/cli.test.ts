// `svc doctor` run as a user runs it (the built bin/svc.js doctor), on a home, a HOME and a PATH the test
// makes: fake provider CLIs (sh scripts printing a version), their login files present or not, no
// server on the port it asks. Statuses, fixes, the exit code, and no secret in what it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../src/store/db.ts';
import { SettingsRepo } from '../../src/modules/settings/settings.repo.ts';
import { PushRepo } from '../../src/modules/push/push.repo.ts';
import { makeCertificate } from '../support/tls.ts';
import { SVC_BIN } from '../support/cli.ts';

const ROOT = join(import.meta.dirname, '../..');
/** The provider CLIs svc knows by command name (custom has none). */
const CLIS = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'pi'];
/** Where each one keeps its login, as src/agent/providers/<id>/info.ts says (copilot and pi: none svc can see). */
const LOGIN_FILES: Record<string, string> = {
  claude: '.claude/.credentials.json',
  codex: '.codex/auth.json',
  gemini: '.gemini/oauth_creds.json',
  opencode: '.local/share/opencode/auth.json',
};
const SECRET = 'svc-known-token-5f0c1e2d3a4b';

interface Setup {
  dir: string;
  home: string;
  userHome: string;
  bin: string;
  port: number;
}

/** A port nothing listens on (taken and let go). */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const writeExecutable = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
};

const writeFile = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** A home with a token, a HOME with every login, a PATH with every CLI: all fine until a test changes it. */
async function setup(t: import('node:test').TestContext): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-doctor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = { dir, home: join(dir, 'svc-home'), userHome: join(dir, 'user'), bin: join(dir, 'bin'), port: await closedPort() };
  mkdirSync(s.home, { recursive: true, mode: 0o700 });
  writeFile(join(s.home, 'token'), `${SECRET}\n`);
  for (const cli of CLIS) writeExecutable(join(s.bin, cli), `#!/bin/sh\necho "${cli} 1.2.3"\n`);
  for (const file of Object.values(LOGIN_FILES)) writeFile(join(s.userHome, file), '{"token":"x"}');
  return s;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `svc doctor --home <home> …` with only the variables given (PATH, HOME, the port of no server). */
function doctor(s: Setup, args: string[] = ['--json'], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, 'doctor', '--home', s.home, ...args], {
      cwd: ROOT,
      env: { PATH: s.bin, HOME: s.userHome, SVC_PORT: String(s.port), SVC_TOKEN: SECRET, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Check {
  id: string;
  status: 'ok' | 'warn' | 'fail';
  summary: string;
  fix?: string;
}

function parse(run: Run): { checks: Check[]; ok: boolean; byId: Record<string, Check> } {
  assert.equal(run.stderr, '', 'nothing on stderr');
  const report = JSON.parse(run.stdout) as { checks: Check[]; ok: boolean };
  return { ...report, byId: Object.fromEntries(report.checks.map((c) => [c.id, c])) };
}

test('all fine: every CLI found, run and logged in; no server is a warning only; exit 0', async (t) => {
  const s = await setup(t);
  const run = await doctor(s);
  const { checks, ok, byId } = parse(run);
  assert.equal(run.code, 0, run.stdout);
  assert.equal(ok, true);
  assert.deepEqual(checks.filter((c) => c.status === 'fail'), []);
  for (const cli of CLIS) assert.equal(byId[`provider.${cli}`]!.status, 'ok', byId[`provider.${cli}`]!.summary);
  assert.match(byId['provider.claude']!.summary, /^Claude Code 1\.2\.3 at .*\/bin\/claude, logged in \(~\/\.claude\/\.credentials\.json\), the default provider$/);
  assert.equal(byId['provider.custom']!.status, 'ok');

  const server = byId.server!;
  assert.equal(server.status, 'warn');
  assert.match(server.summary, new RegExp(`no svc server answers at http://127\\.0\\.0\\.1:${s.port}`));
  assert.match(server.fix!, /svc serve/);

  assert.deepEqual(byId.service, { id: 'service', status: 'ok', summary: 'not installed (svc runs when you start it)', fix: 'svc service install' });
  assert.equal(byId.disk!.status, 'ok');
  assert.match(byId.disk!.summary, /svc-home holds \d/);
  assert.deepEqual(byId.tls, { id: 'tls', status: 'ok', summary: 'plain HTTP on loopback' });
  assert.deepEqual(byId.fleet, { id: 'fleet', status: 'ok', summary: 'not joined to a fleet' });
  assert.equal(byId.push!.summary, 'push not set up (the web UI sets it up when you allow notifications)');
  assert.ok(!run.stdout.includes(SECRET));
});

test('the text form: one line per check with its status and name, the fix on warn and fail lines', async (t) => {
  const s = await setup(t);
  rmSync(join(s.bin, 'claude'));
  // a password in the address is not shown either
  const run = await doctor(s, ['--url', `http://doctor:${SECRET}@127.0.0.1:${s.port}`]);
  assert.equal(run.code, 1);
  assert.equal(run.stderr, '');
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.length, 13, run.stdout);
  assert.match(lines[0]!, new RegExp(`^warn\\s+server\\s+no svc server answers at http://127\\.0\\.0\\.1:${s.port} .* \\(fix: svc serve, or svc service install to keep it running\\)$`));
  const claude = lines.find((l) => / provider\.claude /.test(l))!;
  assert.match(claude, /^fail\s+provider\.claude\s+Claude Code: 'claude' is not on PATH \(the default provider\) \(fix: npm install -g @anthropic-ai\/claude-code; or give its path in Settings \(agent\.executables\)\)$/);
  assert.match(lines.find((l) => / provider\.codex /.test(l))!, /^ok\s+provider\.codex\s+Codex CLI 1\.2\.3 at /);
  assert.ok(!run.stdout.includes(SECRET));
});

test('a CLI missing: the default provider fails (exit 1); another one only warns and names the default', async (t) => {
  const s = await setup(t);
  rmSync(join(s.bin, 'claude'));
  rmSync(join(s.bin, 'gemini'));
  const { byId, ok } = parse(await doctor(s));
  assert.equal(ok, false);
  assert.equal(byId['provider.claude']!.status, 'fail');
  assert.match(byId['provider.claude']!.fix!, /^npm install -g @anthropic-ai\/claude-code/);
  assert.equal(byId['provider.gemini']!.status, 'warn');
  assert.match(byId['provider.gemini']!.summary, /'gemini' is not on PATH \(the default provider is claude\)/);
  assert.match(byId['provider.gemini']!.fix!, /^npm install -g @google\/gemini-cli/);

  // with codex as the default provider (the home's settings), claude missing is a warning: exit 0
  const db = openDatabase(join(s.home, 'svc.db'));
  // agent.env is passed to the CLIs and is secret: used for their login, never printed
  new SettingsRepo(db).writeSections({ agent: { provider: 'codex', executables: {}, customCommand: [], env: { OPENAI_API_KEY: SECRET } } });
  db.close();
  const run = await doctor(s);
  const again = parse(run);
  assert.equal(run.code, 0, run.stdout);
  assert.equal(again.byId['provider.claude']!.status, 'warn');
  assert.match(again.byId['provider.claude']!.summary, /the default provider is codex/);
  assert.match(again.byId['provider.codex']!.summary, /logged in \(OPENAI_API_KEY\), the default provider$/);
  assert.ok(!run.stdout.includes(SECRET));
});

test("logged out: the provider's own login command; the default provider's missing login fails", async (t) => {
  const s = await setup(t);
  rmSync(join(s.userHome, LOGIN_FILES.claude!));
  rmSync(join(s.userHome, LOGIN_FILES.codex!));
  const run = await doctor(s);
  const { byId } = parse(run);
  assert.equal(run.code, 1);
  assert.equal(byId['provider.claude']!.status, 'fail');
  assert.match(byId['provider.claude']!.summary, /not logged in \(the default provider\)/);
  assert.equal(byId['provider.claude']!.fix, 'run claude in a terminal and log in, or set ANTHROPIC_API_KEY in Settings (agent.env)');
  assert.equal(byId['provider.codex']!.status, 'warn');
  assert.equal(byId['provider.codex']!.fix, 'run codex login in a terminal and log in, or set OPENAI_API_KEY in Settings (agent.env)');
});

test('a #!/usr/bin/env node CLI on a PATH without node: a failure that names the PATH problem', async (t) => {
  const s = await setup(t);
  writeExecutable(join(s.bin, 'gemini'), '#!/usr/bin/env node\nconsole.log("0.61.0")\n');
  const run = await doctor(s);
  const { byId } = parse(run);
  assert.equal(run.code, 1);
  const gemini = byId['provider.gemini']!;
  assert.equal(gemini.status, 'fail');
  assert.match(gemini.summary, /cannot run: its first line \(#!\/usr\/bin\/env node\) finds no node on PATH/);
  assert.equal(gemini.fix, "add node's directory to PATH");

  // with node's directory on PATH it runs
  const fine = parse(await doctor(s, ['--json'], { PATH: `${s.bin}:${dirname(process.execPath)}` }));
  assert.equal(fine.byId['provider.gemini']!.status, 'ok');
  assert.match(fine.byId['provider.gemini']!.summary, /Gemini CLI 0\.61\.0/);
});

test("an installed service: the CLIs are run on the service's PATH, not the shell's", { skip: process.platform !== 'linux' && 'systemd units on Linux only' }, async (t) => {
  const s = await setup(t);
  // the service's PATH holds a node CLI but not node; the shell that runs doctor has node
  const serviceBin = join(s.dir, 'service-bin');
  for (const cli of CLIS) writeExecutable(join(serviceBin, cli), `#!/bin/sh\necho "${cli} 2.0.0"\n`);
  writeExecutable(join(serviceBin, 'claude'), '#!/usr/bin/env node\nconsole.log("2.0.0")\n');
  const unit = join(s.userHome, '.config/systemd/user/svc.service');
  writeFile(
    unit,
    [
      '[Service]',
      `ExecStart=${process.execPath} /opt/svc/bin/svc.js serve --port ${s.port} --home ${s.home}`,
      `Environment=PATH=${serviceBin}`,
      `Environment=HOME=${s.userHome}`,
      'Environment=SVC_SERVICE=systemd',
      `EnvironmentFile=-${join(s.home, 'service.env')}`,
      '',
    ].join('\n'),
  );
  // a secret in service.env: used, never printed
  writeFile(join(s.home, 'service.env'), `OPENAI_API_KEY=${SECRET}\n`);
  const run = await doctor(s, ['--json'], { PATH: `${s.bin}:${dirname(process.execPath)}` });
  const { byId } = parse(run);
  assert.equal(run.code, 1);
  assert.deepEqual(byId.service, { id: 'service', status: 'ok', summary: `installed (systemd, ${unit})` });
  assert.match(byId.server!.fix!, /svc service start/);
  const claude = byId['provider.claude']!;
  assert.equal(claude.status, 'fail');
  assert.match(claude.summary, new RegExp(`${serviceBin}/claude cannot run: .*finds no node on the service's PATH`));
  assert.equal(claude.fix, `add node's directory to the service's PATH: run svc service install again from a shell where claude works, or set PATH in ${join(s.home, 'service.env')} and svc service restart`);
  assert.match(byId['provider.codex']!.summary, /Codex CLI 2\.0\.0 .*logged in \(OPENAI_API_KEY\)/);
  assert.ok(!run.stdout.includes(SECRET));
});

test('a running server: its version and service manager; push keys and subscriptions counted, keys not shown', async (t) => {
  const s = await setup(t);
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/api/runtime' ? JSON.stringify({ version: '9.8.7', uptimeMs: 1, service: 'launchd' }) : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const privateKey = 'PRIVATE-vapid-key-must-not-show';
  writeFile(join(s.home, 'push-vapid.json'), JSON.stringify({ publicKey: 'BPUBLIC', privateKey }));
  const db = openDatabase(join(s.home, 'svc.db'));
  new PushRepo(db).upsert('sub1', 'https://push.example/abc', { p256dh: 'p', auth: 'a' }, 'phone', Date.now());
  db.close();
  writeFile(join(s.home, 'fleet', 'membership.json'), '{}');

  const files = readdirSync(s.home).sort();
  const run = await doctor(s, ['--json', '--url', url]);
  const { byId } = parse(run);
  assert.deepEqual(readdirSync(s.home).sort(), files, 'doctor wrote nothing to the home (no -wal or -shm left by reading the database)');
  assert.equal(run.code, 0, run.stdout);
  assert.deepEqual(byId.server, { id: 'server', status: 'ok', summary: `svc 9.8.7 is running at ${url}, as a service (launchd)` });
  assert.deepEqual(byId.push, { id: 'push', status: 'ok', summary: 'VAPID keys present; 1 subscribed device' });
  assert.equal(byId.fleet!.status, 'warn');
  assert.match(byId.fleet!.summary, /fleet\/membership\.json \(or the machine's key beside it\) cannot be read/);
  assert.ok(!run.stdout.includes(privateKey));
  assert.ok(!run.stdout.includes(SECRET));
});

test('TLS: a certificate near its end is a warning; one that does not exist a failure naming where it was set', async (t) => {
  const s = await setup(t);
  // valid for a day
  const { certFile } = makeCertificate();
  t.after(() => rmSync(dirname(certFile), { recursive: true, force: true }));
  const soon = parse(await doctor(s, ['--json'], { SVC_TLS_CERT: certFile })).byId.tls!;
  assert.equal(soon.status, 'warn');
  assert.match(soon.summary, /the certificate .*cert\.pem expires in 0 days/);
  assert.match(soon.fix!, /^renew .*cert\.pem/);

  const run = await doctor(s, ['--json'], { SVC_TLS_CERT: join(s.dir, 'gone.pem') });
  const { byId } = parse(run);
  assert.equal(run.code, 1);
  assert.equal(byId.tls!.status, 'fail');
  assert.match(byId.tls!.summary, /gone\.pem \(SVC_TLS_CERT in this shell\) cannot be used: no such file/);
});
