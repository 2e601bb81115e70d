// Where runs' private directories go: only a root-only place (agent/run-dir.ts) keeps Gemini CLI from
// skipping the settings file that carries the run's MCP servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { PROJECT_ROOT } from '../support/real-clis.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseRunDirBase, clearRunDirs, namedAndResolved, notRootOnly, probePath, runDirBase, runDirCandidates, selfAndAncestors, type PathFacts } from '../../src/agent/run-dir.ts';

const ROOT_DIR: PathFacts = { uid: 0, mode: 0o40755 };
/** A file system where every directory is root's, 0755, except those named. */
const fs = (special: Record<string, PathFacts | undefined> = {}) => (path: string) => (path in special ? special[path] : ROOT_DIR);

test('each directory up to the root, nearest first', () => {
  assert.deepEqual(selfAndAncestors('/home/u/.svc/runs'), ['/home/u/.svc/runs', '/home/u/.svc', '/home/u', '/home', '/']);
  assert.deepEqual(selfAndAncestors('/'), ['/']);
});

test('root-only: root owns every directory and no one else may write to one', () => {
  assert.equal(notRootOnly(['/srv/svc/runs'], 0, fs()), undefined);
  // directories svc has yet to make are its own, 0700
  assert.equal(notRootOnly(['/srv/svc/runs'], 0, fs({ '/srv/svc/runs': undefined, '/srv/svc': undefined })), undefined);
});

test('a world-writable directory above, sticky or not, is not root-only', () => {
  assert.equal(notRootOnly(['/tmp/x/.svc/runs'], 0, fs({ '/tmp': { uid: 0, mode: 0o41777 } })), `'/tmp' is writable by its group and everyone (mode 1777)`);
  assert.equal(notRootOnly(['/o/runs'], 0, fs({ '/o': { uid: 0, mode: 0o41757 } })), `'/o' is writable by everyone (mode 1757)`);
  assert.equal(notRootOnly(['/w/home/runs'], 0, fs({ '/w': { uid: 0, mode: 0o40777 } })), `'/w' is writable by its group and everyone (mode 777)`);
  assert.equal(notRootOnly(['/g/runs'], 0, fs({ '/g': { uid: 0, mode: 0o40775 } })), `'/g' is writable by its group (mode 775)`);
});

test('a directory another user owns, or a link root does not own, is not root-only', () => {
  assert.equal(notRootOnly(['/home/u/.svc/runs'], 0, fs({ '/home/u': { uid: 1000, mode: 0o40700 } })), `'/home/u' is not owned by root (uid 1000)`);
  assert.equal(notRootOnly(['/l/runs'], 0, fs({ '/l': { uid: 0, mode: 0o40755, linkUid: 1000 } })), `'/l' is a symbolic link that root does not own`);
  // the path as resolved is checked too
  assert.match(notRootOnly(['/a/runs', '/b/runs'], 0, fs({ '/b': { uid: 0, mode: 0o41777 } }))!, /'\/b' is writable by its group and everyone/);
});

test('nothing svc writes is root-only unless svc runs as root', () => {
  assert.match(notRootOnly(['/srv/svc/runs'], 1000, fs())!, /svc runs as uid 1000, not as root/);
});

test('the first root-only candidate is chosen; when none is, the first, with the reason', () => {
  const tmp = fs({ '/tmp': { uid: 0, mode: 0o41777 } });
  const at = (dir: string, prefix = 'svc-run-') => ({ dir, prefix });
  assert.deepEqual(chooseRunDirBase([at('/srv/svc/runs'), at('/root/.cache/svc/runs', 'svc-run-k-')], 0, tmp), at('/srv/svc/runs'));
  assert.deepEqual(chooseRunDirBase([at('/tmp/h/runs'), at('/root/.cache/svc/runs', 'svc-run-k-')], 0, tmp), at('/root/.cache/svc/runs', 'svc-run-k-'));
  assert.deepEqual(chooseRunDirBase([at('/tmp/h/runs'), at('/tmp/c/svc/runs', 'svc-run-k-')], 0, tmp), { ...at('/tmp/h/runs'), notRootOnly: `'/tmp' is writable by its group and everyone (mode 1777)` });
  assert.equal(chooseRunDirBase([at('/srv/svc/runs'), at('/x')], 1000, fs()).dir, '/srv/svc/runs');
});

test('candidates: the home\'s runs directory, then the user\'s cache with a prefix of this home\'s own', () => {
  const [runs, cache] = runDirCandidates('/tmp/h/runs', { HOME: '/root' });
  assert.deepEqual(runs, { dir: '/tmp/h/runs', prefix: 'svc-run-' });
  assert.equal(cache!.dir, '/root/.cache/svc/runs');
  assert.match(cache!.prefix, /^svc-run-[0-9a-f]{16}-$/);
  assert.notEqual(runDirCandidates('/tmp/other/runs', { HOME: '/root' })[1]!.prefix, cache!.prefix, 'two homes never share one');
  assert.equal(runDirCandidates('/tmp/h/runs', { HOME: '/root', XDG_CACHE_HOME: '/var/cache/u' })[1]!.dir, '/var/cache/u/svc/runs');
});

test('a start-up clears its own run directories, not another home\'s', (t) => {
  const base = mkdtempSync(join(tmpdir(), 'svc-clear-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const env = { HOME: base, XDG_CACHE_HOME: join(base, 'cache') };
  const [mine, mineShared] = runDirCandidates(join(base, 'a', 'runs'), env);
  const [, theirs] = runDirCandidates(join(base, 'b', 'runs'), env);
  for (const dir of [join(mine!.dir, 'svc-run-1'), join(mineShared!.dir, `${mineShared!.prefix}1`), join(theirs!.dir, `${theirs!.prefix}1`)]) mkdirSync(dir, { recursive: true });
  clearRunDirs(join(base, 'a', 'runs'), env);
  assert.equal(existsSync(mine!.dir), false);
  assert.deepEqual(readdirSync(mineShared!.dir), [`${theirs!.prefix}1`]);
  clearRunDirs(join(base, 'c', 'runs'), { HOME: join(base, 'nowhere') }); // nothing there: no error
});

test('on this machine: a home under a world-writable directory is not where runs go', { skip: process.platform === 'win32' || process.geteuid?.() !== 0 ? 'needs root on POSIX' : false }, (t) => {
  const world = mkdtempSync(join(tmpdir(), 'svc-world-'));
  t.after(() => rmSync(world, { recursive: true, force: true }));
  chmodSync(world, 0o777);
  const runs = join(world, 'home', 'runs');
  assert.equal(probePath(world)!.uid, 0);
  assert.equal(probePath(world)!.mode & 0o777, 0o777);
  assert.equal(probePath(join(world, 'missing')), undefined);
  assert.match(runDirBase([{ dir: runs, prefix: 'svc-run-' }]).notRootOnly!, new RegExp(`'${world}' is writable by its group and everyone \\(mode 777\\)`));
  // a link to it is seen through
  const link = `${world}-link`;
  symlinkSync(world, link);
  t.after(() => rmSync(link, { force: true }));
  assert.deepEqual(namedAndResolved(join(link, 'home', 'runs')), [join(link, 'home', 'runs'), runs]);
  assert.match(runDirBase([{ dir: join(link, 'home', 'runs'), prefix: 'svc-run-' }]).notRootOnly!, /writable by its group and everyone/);
});

test('on this machine: the next candidate when it is root-only', { skip: process.platform === 'win32' || process.geteuid?.() !== 0 ? 'needs root on POSIX' : notRootOnly([PROJECT_ROOT], 0, probePath) ? 'the checkout is not in a root-only place' : false }, (t) => {
  const world = mkdtempSync(join(tmpdir(), 'svc-world-'));
  t.after(() => rmSync(world, { recursive: true, force: true }));
  chmodSync(world, 0o777);
  mkdirSync(join(PROJECT_ROOT, 'test-output'), { recursive: true });
  const secure = mkdtempSync(join(PROJECT_ROOT, 'test-output', 'svc-secure-'));
  t.after(() => rmSync(secure, { recursive: true, force: true }));
  const at = (dir: string) => ({ dir, prefix: 'svc-run-' });
  assert.deepEqual(runDirBase([at(join(world, 'home', 'runs')), at(join(secure, 'runs'))]), at(join(secure, 'runs')));
});
