import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempHome } from '../support/server.ts';
import { freePort } from '../support/ports.ts';

const BIN = join(import.meta.dirname, '../../bin/svc.js');


function startSvc(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string; ready: Promise<void> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('data directory:')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c));
    child.on('exit', (code) => reject(new Error(`svc exited with ${code}: ${output}`)));
  });
  return { child, output: () => output, ready };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

describe('svc command line', () => {
  test('serve starts, prints where it listens and its data dir, and stops cleanly on SIGTERM', async () => {
    const home = join(tempHome(), 'data');
    const port = await freePort();
    const svc = startSvc(['serve', '--port', String(port), '--home', home]);
    await svc.ready;
    assert.match(svc.output(), new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`));
    assert.match(svc.output(), new RegExp(`data directory: ${home}`));
    assert.equal(statSync(home).mode & 0o777, 0o700);
    const health = await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
    assert.equal(health.ok, true);
    const root = await fetch(`http://127.0.0.1:${port}/`);
    assert.match(root.headers.get('content-type') ?? '', /text\/html/);

    const status = spawnSync(process.execPath, [BIN, 'status', '--url', `http://127.0.0.1:${port}`], { encoding: 'utf8' });
    assert.equal(status.status, 0);
    assert.match(status.stdout, /is running/);

    // an open SSE listener must not hold the shutdown
    const events = await fetch(`http://127.0.0.1:${port}/api/events`);
    assert.equal(events.status, 200);
    svc.child.kill('SIGTERM');
    assert.equal(await exited(svc.child), 0);
    assert.ok(!existsSync(join(home, 'svc.db-wal')) || statSync(join(home, 'svc.db-wal')).size === 0, 'WAL flushed');
    const db = new Database(join(home, 'svc.db'), { readonly: true });
    assert.equal((db.prepare('SELECT count(*) AS n FROM chat_sessions').get() as { n: number }).n, 1);
    db.close();
  });

  test('SVC_HOME and SVC_PORT are honoured', async () => {
    const home = tempHome();
    const port = await freePort();
    const svc = startSvc(['serve'], { SVC_HOME: home, SVC_PORT: String(port) });
    await svc.ready;
    assert.match(svc.output(), new RegExp(`:${port}`));
    assert.ok(existsSync(join(home, 'svc.db')));
    svc.child.kill('SIGINT');
    assert.equal(await exited(svc.child), 0);
  });

  test('a port already in use is a one-line error and a non-zero exit', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const { port } = blocker.address() as { port: number };
    const result = spawnSync(process.execPath, [BIN, 'serve', '--port', String(port), '--home', tempHome()], { encoding: 'utf8', timeout: 20_000 });
    blocker.close();
    assert.notEqual(result.status, 0);
    const lines = result.stderr.trim().split('\n').filter((l) => l.startsWith('svc:'));
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`port ${port} .*already in use`));
  });

  test('token prints the install token (the 0600 file), status fails clearly when nothing runs', async () => {
    const home = tempHome();
    const token = spawnSync(process.execPath, [BIN, 'token', '--home', home], { encoding: 'utf8' });
    assert.equal(token.status, 0);
    assert.equal(token.stdout.trim(), readFileSync(join(home, 'token'), 'utf8').trim());
    assert.ok(token.stdout.trim().length >= 40);
    const again = spawnSync(process.execPath, [BIN, 'token', '--home', home], { encoding: 'utf8' });
    assert.equal(again.stdout, token.stdout, 'stable per install');
    const port = await freePort();
    const status = spawnSync(process.execPath, [BIN, 'status', '--url', `http://127.0.0.1:${port}`], { encoding: 'utf8' });
    assert.equal(status.status, 1);
    assert.match(status.stderr, /not reachable.*svc serve/);
    const version = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  test('help needs no server and writes no file, lists the subcommands, and shows each default once', () => {
    const home = tempHome();
    const env = { ...process.env, HOME: home, SVC_HOME: '', SVC_URL: '' };
    const help = (...args: string[]) => {
      const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 15_000 });
      assert.equal(result.status, 0, `svc ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    assert.match(help('--help'), /Examples:\n\s+svc serve/);
    for (const args of [['browser', '--help'], ['browser', 'help'], ['browser']]) {
      const text = help(...args);
      assert.match(text, /svc browser open <url>/);
      assert.match(text, /stop .*stop the browser server/);
    }
    assert.match(help('browser', 'serve', '--help'), /--cdp-url URL/);
    assert.match(help('web-routing', '--help'), /svc web-routing <subcommand>[\s\S]*mock <METHOD\|ANY>/);
    assert.match(help('vision-click', 'help'), /--describe/);
    const serveHelp = help('serve', '--help');
    assert.equal(serveHelp.match(/3458/g)?.length, 1, serveHelp);
    assert.equal(serveHelp.match(/127\.0\.0\.1/g)?.length, 2, 'the host default, and the proxy address');
    assert.deepEqual(readdirSync(home), [], 'help created nothing');
  });

  test('one way to name the server: --url, SVC_URL (empty = unset), --home via the running server\'s lock; token and status follow it', async () => {
    const home = tempHome();
    const port = await freePort();
    const svc = startSvc(['serve', '--port', String(port), '--home', home, '--proxy-port', '0']);
    await svc.ready;
    try {
      // serve tells what each provider needs, right after it listens
      for (const start = Date.now(); !/providers:\n {2}\S+ +claude +Claude Code/.test(svc.output()); await new Promise((r) => setTimeout(r, 20))) {
        assert.ok(Date.now() - start < 5000, svc.output());
      }
      const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
        spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, SVC_URL: '', SVC_HOME: '', SVC_PORT: '', ...env }, timeout: 20_000 });
      const token = readFileSync(join(home, 'token'), 'utf8').trim();
      // the running server's token, whichever home it was started with
      assert.equal(run(['token', '--url', `http://127.0.0.1:${port}`]).stdout.trim(), token);
      assert.equal(run(['token'], { SVC_PORT: String(port) }).stdout.trim(), token);
      // status: --home finds the server through its lock file; SVC_URL is honoured; an empty one is unset
      const byHome = run(['status', '--home', home]);
      assert.equal(byHome.status, 0, byHome.stderr);
      assert.match(byHome.stdout, new RegExp(`running at http://127\\.0\\.0\\.1:${port}`));
      assert.match(byHome.stdout, /providers:\n(.*\n)*\s+\S*\s*claude\s+Claude Code/);
      assert.equal(run(['status'], { SVC_URL: `http://127.0.0.1:${port}` }).status, 0);
      const emptyUrl = run(['status'], { SVC_URL: '', SVC_PORT: String(port) });
      assert.equal(emptyUrl.status, 0, emptyUrl.stderr);
      const badUrl = run(['status'], { SVC_URL: 'not a url' });
      assert.equal(badUrl.status, 2);
      assert.match(badUrl.stderr, /^svc: 'not a url' is not a server address/);
      // chat honours SVC_URL too
      const chat = run(['chat', '/status'], { SVC_URL: `http://127.0.0.1:${port}` });
      assert.doesNotMatch(chat.stderr, /cannot reach/);
      // a second server on the same home refuses, naming the first
      const second = run(['serve', '--port', String(await freePort()), '--home', home, '--proxy-port', '0']);
      assert.equal(second.status, 1);
      assert.match(second.stderr, new RegExp(`another svc server \\(pid ${svc.child.pid}, http://127\\.0\\.0\\.1:${port}\\) is already using this data directory`));
    } finally {
      svc.child.kill('SIGTERM');
      await exited(svc.child);
    }
    assert.ok(!existsSync(join(home, 'server.lock')), 'the lock goes with the server');
  });
});
