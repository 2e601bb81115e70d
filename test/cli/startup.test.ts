// Start-up as a user meets it: the executable `svc` itself on
// the built CLI. `svc serve` comes up and answers, and the client commands run and exit 0. How fast
// they start is measured by bench/startup.ts beside bare Node (the figures and targets are in the
// README): a timing limit here would fail `npm test` whenever the machine is busy, whatever the code.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { after, test } from 'node:test';
import { freePort } from '../support/ports.ts';
import { tempHome } from '../support/server.ts';
import { BIN, svcCommand } from '../support/startup.ts';

const { CORE_COMMANDS } = createRequire(import.meta.url)('../../bin/run-bundle.js') as { CORE_COMMANDS: Set<string | undefined> };

const bundle = new URL('../../dist/cli.bundle.js', import.meta.url).pathname;
const home = tempHome('svc-startup-');
after(() => rmSync(home, { recursive: true, force: true }));

/** `svc <args>` to its end, as the executable; its exit status and what it printed. */
function svc(args: string[]) {
  const { command, args: full } = svcCommand(args);
  // client commands find the server through the home; no address from the environment
  const result = spawnSync(command, full, { encoding: 'utf8', env: { ...process.env, SVC_HOME: home, SVC_URL: '', SVC_PORT: '' }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, error: result.error };
}

test('the built CLI exists (npm test builds it first)', () => {
  assert.ok(existsSync(bundle), `${bundle} is missing: run \`npm run build\``);
});

test('svc serve starts and answers 200 on /api/health; the client commands run against it and exit 0', async () => {
  const port = await freePort();
  const { command, args } = svcCommand(['serve', '--port', String(port), '--home', home, '--proxy-port', String(await freePort())]);
  const server = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    // a guard against a server that never comes up, not a measure of how soon it does
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.ok(!gone, `svc serve exited before answering: ${stderr}`);
      assert.ok(Date.now() < deadline, `svc serve did not answer on port ${port} within 60 s: ${stderr}`);
      const status = await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status, () => 0);
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const args of [['--version'], ['--help'], ['token'], ['status']]) {
      const result = svc(args);
      assert.equal(result.status, 0, `svc ${args.join(' ')} exited with ${result.status ?? result.error}: ${result.stderr}`);
      assert.notEqual(result.stdout.trim(), '', `svc ${args.join(' ')} printed nothing`);
    }
    // status found this server through the home, not some other svc on the default port
    assert.match(svc(['status']).stdout, new RegExp(`is running at http://127\\.0\\.0\\.1:${port}\\b`));
    // the commands run from the core client bundle find all their code in it
    for (const command of CORE_COMMANDS as Set<string | undefined>) {
      const result = svc(command === undefined ? [] : [command]);
      assert.notEqual(`${result.stdout}${result.stderr}`.trim(), '', `svc ${command ?? ''} printed nothing`);
      assert.doesNotMatch(result.stderr, /is in dist\/|runs this command from there/, `svc ${command ?? ''} needs code the core bundle lacks`);
      assert.ok(result.status === 0 || command === undefined, `svc ${command} exited with ${result.status}: ${result.stderr}`);
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
});

test('Node modules loaded by the first answer of `svc serve` and by `svc status`: none of those their work does not need', async () => {
  const dir = tempHome('svc-loaded-');
  const record = join(dir, 'record.cjs');
  const list = join(dir, 'modules.txt');
  // the modules Node has loaded, written when the server gets its first request, or as the command exits
  writeFileSync(
    record,
    `const { writeFileSync } = require('node:fs');
const save = () => writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n'));
if (process.argv.includes('serve')) {
  const { Server } = require('node:http');
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (event, ...args) { if (event === 'request') { save(); Server.prototype.emit = emit; } return emit.call(this, event, ...args); };
} else process.on('exit', save);`,
  );
  const loaded = () => new Set(readFileSync(list, 'utf8').split('\n').filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)));
  const home = join(dir, 'home');
  const port = await freePort();
  /** `svc serve` on the test's home, once it answers its first 200; `preload` runs before it. */
  const serve = async (preload: string[]) => {
    // HOME: a user's cache with no run directories in it (this machine's may hold other tests')
    const child = spawn(process.execPath, [...preload, BIN, 'serve', '--port', String(port), '--home', home, '--proxy-port', '0'], { stdio: 'ignore', env: { ...process.env, HOME: dir, XDG_CACHE_HOME: '' } });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let tries = 0; (await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status, () => 0)) !== 200; tries++) {
      assert.ok(tries < 1200, 'svc serve answered within 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    return { stop: () => (child.kill('SIGTERM'), exited) };
  };
  // a start as every one but the first is: the home, its token and its first chat are made
  await (await serve([])).stop();
  const server = await serve(['-r', record]);
  try {
    const atFirstAnswer = loaded();
    assert.ok(atFirstAnswer.has('http'), 'the record is of a server');
    // assert and perf_hooks: Fastify's stand-ins; crypto: the lazy builtins (scripts/build.mjs), and no hashing
    // or random bytes at start; the rest: loaded where they are used
    for (const unneeded of ['assert', 'perf_hooks', 'crypto', 'https', 'http2', 'tls', 'zlib', 'readline']) assert.ok(!atFirstAnswer.has(unneeded), `svc serve loaded node:${unneeded}`);

    const status = spawnSync(process.execPath, ['-r', record, BIN, 'status', '--url', `http://127.0.0.1:${port}`], { encoding: 'utf8', env: { ...process.env, SVC_TOKEN: '' } });
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /is running/);
    const byStatus = loaded();
    assert.ok(byStatus.has('net'));
    for (const unneeded of ['http', '_http_client', 'https', 'tls']) assert.ok(!byStatus.has(unneeded), `svc status loaded node:${unneeded}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
