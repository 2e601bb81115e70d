// A file the user names on the command line that cannot be read is one line saying which, why and what
// to do, and exit 1: never a stack (src/cli/local-file.ts, and main.ts for any fs error a command lets
// escape). Checked before any server is asked: these point at a port where nothing listens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { fileErrorLine, LocalFileError } from '../../src/cli/local-file.ts';
import { runSvc } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';
import { tempHome } from '../support/server.ts';

test('orchestrate plan --file, upload and chat --attach: a missing file or a directory is one line and exit 1', async (t) => {
  const dir = tempHome('svc-files-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${await freePort()}`;
  const missing = '/nonexistent.md';
  const cases: [string[], string, RegExp][] = [
    [['orchestrate', 'plan', '--file', missing], missing, /no such file; check the path/],
    [['orchestrate', 'plan', '-f', dir], dir, /it is a directory; give a file/],
    [['upload', missing], missing, /no such file; check the path/],
    [['upload', dir], dir, /it is a directory; give a file/],
    [['chat', '-a', missing, 'look'], missing, /no such file; check the path/],
  ];
  for (const [args, path, why] of cases) {
    const result = await runSvc([...args, '--url', url], { env: { SVC_RUN_TOKEN: '' } });
    const what = `svc ${args.join(' ')}`;
    assert.equal(result.code, 1, `${what}: ${result.stderr}`);
    assert.equal(result.stdout, '', what);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${what}: one line, no stack: ${result.stderr}`);
    assert.ok(lines[0]!.startsWith(`svc: cannot read ${path}: `), `${what}: ${lines[0]}`);
    assert.match(lines[0]!, why, what);
  }
});

test('the shared handler: any fs error naming a path is that line; a network error or a bug is not a file problem', async () => {
  const raw = await readFile('/nonexistent/plan.md').catch((err: unknown) => err);
  assert.equal(fileErrorLine(raw), 'cannot read /nonexistent/plan.md: no such file; check the path');
  assert.equal(fileErrorLine(new LocalFileError('cannot read x: because')), 'cannot read x: because');
  const written = await mkdir('/nonexistent/dir/sub').catch((err: unknown) => err);
  assert.equal(fileErrorLine(written), 'cannot write /nonexistent/dir/sub: no such file; check the path');
  const refused = await fetch(`http://127.0.0.1:${await freePort()}/`).catch((err: Error) => err.cause);
  assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');
  assert.equal(fileErrorLine(refused), undefined);
  assert.equal(fileErrorLine(new TypeError('x is undefined')), undefined);
});
