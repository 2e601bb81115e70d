import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadOrCreateToken } from '../../src/core/token.ts';
import { runSvc } from '../support/cli.ts';
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

/** Runs `each` over `items`, two at a time (the machine has two cores). */
async function inPairs<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all([worker(), worker()]);
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

describe('svc command line', () => {
  test('serve starts, prints where it listens and its data dir, and stops cleanly on SIGTERM', async () => {
    const home = join(tempHome(), 'data');
    const port = await freePort();
    const svc = startSvc(['serve', '--port', String(port), '--home', home, '--proxy-port', '0']);
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
    const svc = startSvc(['serve', '--proxy-port', '0'], { SVC_HOME: home, SVC_PORT: String(port) });
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
    const result = spawnSync(process.execPath, [BIN, 'serve', '--port', String(port), '--home', tempHome(), '--proxy-port', '0'], { encoding: 'utf8', timeout: 20_000 });
    blocker.close();
    assert.notEqual(result.status, 0);
    const lines = result.stderr.trim().split('\n').filter((l) => l.startsWith('svc:'));
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, new RegExp(`port ${port} .*already in use`));
  });

  test('a busy web-routing proxy port is the same: one line naming it and the ways out, exit 1, nothing left running', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const { port: proxyPort } = blocker.address() as { port: number };
    const home = tempHome();
    const port = await freePort();
    const result = spawnSync(process.execPath, [BIN, 'serve', '--port', String(port), '--home', home, '--proxy-port', String(proxyPort)], { encoding: 'utf8', timeout: 20_000 });
    blocker.close();
    assert.equal(result.status, 1, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^svc: web-routing proxy port ${proxyPort} on 127\\.0\\.0\\.1 is already in use .*--proxy-port <n>, or --proxy-port 0 to run without the proxy\n$`));
    assert.doesNotMatch(result.stdout, /listening on/, 'it never said it was serving');
    assert.equal(await fetch(`http://127.0.0.1:${port}/api/health`).then(() => 'answered', () => 'closed'), 'closed');
    assert.ok(!existsSync(join(home, 'server.lock')), 'the home is free again');
  });

  test('token with no server: never makes a home or a token; prints a home\'s own token and says whence; status fails clearly', async () => {
    const user = tempHome();
    const home = join(user, 'data');
    const port = await freePort();
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, HOME: user, SVC_HOME: '', SVC_URL: '', SVC_PORT: String(port), ...env } });
    // no server has ever run with this home: no token to give, and none made up
    for (const args of [['token'], ['token', '--home', home]]) {
      const none = run(args);
      assert.equal(none.status, 1, args.join(' '));
      assert.equal(none.stdout, '', args.join(' '));
      assert.match(none.stderr, /^svc: no svc server has been started with \S+ yet, so there is no token; start one with `svc serve[^`]*`.*\n$/, args.join(' '));
    }
    assert.match(run(['token', '--home', home]).stderr, new RegExp(`with \`svc serve --home ${home}\``));
    assert.deepEqual(readdirSync(user), [], 'no ~/.svc, no --home');
    // a home a server made (its 0600 token file): printed on stdout alone, where it came from on stderr
    mkdirSync(home);
    const made = loadOrCreateToken(join(home, 'token'));
    for (const [args, env] of [[['token', '--home', home], {}], [['token'], { SVC_HOME: home }]] as const) {
      const token = run([...args], env);
      assert.equal(token.status, 0, token.stderr);
      assert.equal(token.stdout, `${made}\n`);
      assert.match(token.stderr, new RegExp(`^svc: no server answers for ${home}; printed its token file ${join(home, 'token')}`));
    }
    assert.deepEqual(readdirSync(home), ['token'], 'nothing else written');
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

  test('a mistyped command names the one meant, and a wrong option shows that command\'s help', () => {
    // a run builds only the command it names (src/cli/main.ts): a name that is none must still see them all
    const env = { ...process.env, HOME: tempHome(), SVC_HOME: '', SVC_URL: '' };
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 15_000 });
    const typo = run('stauts');
    assert.equal(typo.status, 1);
    assert.match(typo.stderr, /unknown command 'stauts'[\s\S]*Did you mean status\?/);
    const wrong = run('status', '--jsno');
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /unknown option '--jsno'[\s\S]*Usage: svc status/);
  });

  test('every command\'s help exits 0: `svc <command…> --help`, `svc help <command…>` (the same text) and `svc help --help`', async () => {
    const home = tempHome();
    const env = { HOME: home, SVC_HOME: '', SVC_URL: '', SVC_PORT: String(await freePort()) };
    const svc = (args: string[]) => runSvc(args, { env });
    // the names of a help's Commands: section (up to the blank line that ends it: the examples follow)
    const subcommands = (help: string) => [...(/\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(help)?.[1] ?? '').matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]!);
    // the whole tree as each help lists it, level by level (two processes at a time): each one's --help text
    const helps = new Map<string, string>();
    for (let level: string[][] = [[]]; level.length; ) {
      const next: string[][] = [];
      await inPairs(level, async (path) => {
        const help = await svc([...path, '--help']);
        const what = `svc ${[...path, '--help'].join(' ')}`;
        assert.deepEqual([help.code, help.stderr], [0, ''], what);
        if (path.length) assert.match(help.stdout, new RegExp(`^Usage: svc ${path.join(' ')}\\b`), what);
        helps.set(path.join(' '), help.stdout);
        // a help command's own help lists nothing, and is not walked into
        if (path.at(-1) !== 'help') for (const name of subcommands(help.stdout)) next.push([...path, name]);
      });
      level = next;
    }
    const names = [...helps.keys()];
    assert.ok(names.length > 50, `${names.length} commands`);
    for (const name of ['help', 'dashboard serve', 'goal run', 'browser', 'memory help', 'web-routing']) assert.ok(helps.has(name), `svc ${name} is listed`);
    // `svc help a b` gives the text of `svc a b --help`, and so does `svc a help b` in a group: one lookup
    // serves every command, so one of each kind (commander's help, a command's own, a group, a nested one)
    const askers = [
      [['help'], ''], [['help', 'help'], 'help'], [['help', 'token'], 'token'], [['help', 'browser'], 'browser'], [['help', 'web-routing'], 'web-routing'],
      [['help', 'web-ai'], 'web-ai'], [['help', 'goal'], 'goal'], [['help', 'dashboard', 'serve'], 'dashboard serve'], [['goal', 'help', 'run'], 'goal run'],
      [['help', 'channel', 'send'], 'channel send'], [['memory', 'help', 'search'], 'memory search'],
    ] as const;
    await inPairs(askers, async ([args, name]) => {
      const asked = await svc([...args]);
      assert.deepEqual([asked.code, asked.stderr, asked.stdout], [0, '', helps.get(name)], `svc ${args.join(' ')}`);
    });
    // an unknown name: one line that says where to look, exit 1
    for (const [args, where] of [[['help', 'nosuch'], 'svc'], [['help', 'goal', 'nosuch'], 'svc goal'], [['memory', 'help', 'nosuch'], 'svc memory']] as const) {
      const unknown = await svc([...args]);
      assert.equal(unknown.code, 1, args.join(' '));
      assert.equal(unknown.stderr, `svc: \`${where}\` has no command 'nosuch'; \`${where} --help\` lists them\n`);
    }
    assert.deepEqual(readdirSync(home), [], 'help created nothing');
  });

  test('client commands make no home: with no server, nothing is written to ~/.svc (a browser server already running included)', async (t) => {
    const user = tempHome();
    const file = join(tempHome(), 'notes.md');
    writeFileSync(file, 'notes');
    // a browser server that answers every action with an error: `svc browser tabs` talks to it, starts nothing
    const browser = createHttpServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"BROWSER_ERROR","message":"fake"}'));
    await new Promise<void>((r) => browser.listen(0, '127.0.0.1', r));
    t.after(() => browser.close());
    const env = { HOME: user, SVC_HOME: '', SVC_URL: '', SVC_PORT: String(await freePort()), SVC_BROWSER_PORT: String((browser.address() as { port: number }).port), SVC_RUN_TOKEN: '' };
    const commands = [
      ['status'], ['token'], ['chat', 'hello'], ['upload', file], ['memory', 'list'], ['orchestrate', 'status'], ['worker', 'list'],
      ['goal'], ['task', 'list'], ['channel', 'list'], ['audit', 'tail'], ['web-ai', 'status'], ['web-routing', 'list'], ['wakeup', 'list'],
      ['browser', 'status'], ['browser', 'tabs'],
    ];
    for (const args of commands) {
      const result = await runSvc(args, { env });
      assert.notEqual(result.code, null, args.join(' '));
      assert.deepEqual(readdirSync(user), [], `svc ${args.join(' ')} wrote to ${user}: ${result.stderr}`);
    }
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
