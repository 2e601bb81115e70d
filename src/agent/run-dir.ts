// Where a run's private directory is made. Every CLI reads the per-run files svc writes there wherever
// they are, but one: Gemini CLI reads its system settings layer (GEMINI_CLI_SYSTEM_DEFAULTS_PATH, svc's
// only per-run way to give it MCP servers) only from a "root-only" place, and otherwise skips the file
// with a line on stderr and runs without the servers. Gemini 0.61 (packages/core/src/utils/security.ts,
// isFileAndDirectorySecureSync) wants the file and every directory above it, both as named and as
// resolved through symbolic links, to be owned by root (uid 0) and writable by neither group nor others
// (no exception for a sticky /tmp), and a symbolic link among them to be root's too. Only root can make
// such a file, and a home under /tmp (a world-writable directory) is never such a place.
//
// So a run directory is made in the first root-only candidate: svc's <home>/runs, then the user's cache,
// where the run directories of each home carry a prefix of their own. When none is (svc runs as another
// user, or the cache is under /tmp too), it is made in <home>/runs all the same and the adapter is told
// why, to say so to the user.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** What Gemini looks at of one path. */
export interface PathFacts {
  /** Owner and permission bits of what the path names, through symbolic links (stat). */
  uid: number;
  mode: number;
  /** When the path itself is a symbolic link: the link's owner (lstat). */
  linkUid?: number;
}

/** The facts of a path; undefined when nothing is there (svc makes it: the user's, 0700). */
export type Probe = (path: string) => PathFacts | undefined;

/** Where run directories are made: `dir`/`prefix`XXXXXX (mkdtemp). */
export interface RunDirPlace {
  dir: string;
  prefix: string;
}

export interface RunDirBase extends RunDirPlace {
  /** Why a file in a run directory made here is not root-only; absent when it is. */
  notRootOnly?: string;
}

/** The path and each directory above it, nearest first, up to the root. */
export function selfAndAncestors(path: string): string[] {
  const out: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    out.push(current);
    if (dirname(current) === current) return out;
  }
}

/**
 * Why a file that a process of `uid` writes in a new private directory under `base` would be skipped by
 * Gemini; undefined when Gemini reads it. `paths` are `base` as named and as resolved (the deepest
 * existing directory through its symbolic links, the rest appended): Gemini checks the ancestors of both.
 */
export function notRootOnly(paths: readonly string[], uid: number, probe: Probe): string | undefined {
  // the file and the run directory are svc's own: root's only when svc runs as root
  if (uid !== 0) return `svc runs as uid ${uid}, not as root, and only root can own such a file`;
  for (const dir of new Set(paths.flatMap(selfAndAncestors))) {
    const facts = probe(dir);
    if (!facts) continue;
    if (facts.linkUid !== undefined && facts.linkUid !== 0) return `'${dir}' is a symbolic link that root does not own`;
    if (facts.uid !== 0) return `'${dir}' is not owned by root (uid ${facts.uid})`;
    const writers = [facts.mode & 0o020 ? 'its group' : '', facts.mode & 0o002 ? 'everyone' : ''].filter(Boolean);
    if (writers.length) return `'${dir}' is writable by ${writers.join(' and ')} (mode ${(facts.mode & 0o7777).toString(8)})`;
  }
  return undefined;
}

/**
 * The first candidate whose run directories are root-only; when none is, the first candidate with the
 * reason it is not. `pathsOf` names a candidate's directory as Gemini will see it (see notRootOnly).
 */
export function chooseRunDirBase(candidates: readonly RunDirPlace[], uid: number, probe: Probe, pathsOf: (dir: string) => string[] = (d) => [d]): RunDirBase {
  let first: RunDirBase | undefined;
  for (const place of candidates) {
    const reason = notRootOnly(pathsOf(place.dir), uid, probe);
    if (!reason) return { ...place };
    first ??= { ...place, notRootOnly: reason };
    // nothing svc writes is root's: no other candidate can do better
    if (uid !== 0) break;
  }
  if (!first) throw new Error('no candidate for a run directory');
  return first;
}

const RUN_PREFIX = 'svc-run-';

/**
 * Where runs of the svc home whose runs directory is `runs` may be made, in order: that directory, then
 * the user's cache, shared by every home, where a hash of `runs` in the prefix tells this home's run
 * directories from another's (each server's start-up removes its own: clearRunDirs).
 */
export function runDirCandidates(runs: string, env: NodeJS.ProcessEnv = process.env): RunDirPlace[] {
  return [{ dir: resolve(runs), prefix: RUN_PREFIX }, { dir: sharedRunsDir(env), prefix: sharedRunPrefix(runs) }];
}

const sharedRunsDir = (env: NodeJS.ProcessEnv) => join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'svc', 'runs');
const sharedRunPrefix = (runs: string) => `${RUN_PREFIX}${createHash('sha256').update(resolve(runs)).digest('hex').slice(0, 16)}-`;

/**
 * Removes the run directories of the home whose runs directory is `runs` (those a crash left). The
 * shared directory's prefix is hashed only when it holds run directories: most starts find none, and
 * would otherwise load node:crypto (~5 ms) for it.
 */
export function clearRunDirs(runs: string, env: NodeJS.ProcessEnv = process.env): void {
  rmSync(resolve(runs), { recursive: true, force: true });
  const shared = sharedRunsDir(env);
  let names: string[] = [];
  try {
    names = readdirSync(shared).filter((name) => name.startsWith(RUN_PREFIX));
  } catch {
    // none yet
  }
  if (names.length === 0) return;
  const prefix = sharedRunPrefix(runs);
  for (const name of names) if (name.startsWith(prefix)) rmSync(join(shared, name), { recursive: true, force: true });
}

/** The file system's answer for `path` (what Gemini reads of it). */
export const probePath: Probe = (path) => {
  try {
    const link = lstatSync(path);
    const target = link.isSymbolicLink() ? statSync(path) : link;
    return { uid: target.uid, mode: target.mode, ...(link.isSymbolicLink() ? { linkUid: link.uid } : {}) };
  } catch {
    return undefined;
  }
};

/** `dir` as named and as resolved through symbolic links (its deepest existing directory, the rest appended). */
export function namedAndResolved(dir: string): string[] {
  const named = resolve(dir);
  for (let existing = named; ; existing = dirname(existing)) {
    try {
      const real = realpathSync(existing);
      return real === existing ? [named] : [named, join(real, named.slice(existing.length))];
    } catch {
      if (dirname(existing) === existing) return [named];
    }
  }
}

/** Picks, on this machine, where a run directory is made among `candidates` (runDirCandidates). */
export function runDirBase(candidates: readonly RunDirPlace[]): RunDirBase {
  // Gemini checks access lists on Windows, which svc does not model: the first candidate, as ever
  if (process.platform === 'win32' || !process.geteuid) return { ...candidates[0]! };
  return chooseRunDirBase(candidates, process.geteuid(), probePath, namedAndResolved);
}
