// Finding an executable the way a shell would, without one: the candidates of a command name (a path, a
// bare name on PATH, with PATHEXT on Windows), pure, and the check that one may be run. Shared by the
// provider detection (src/agent/detect.ts), the offline voice engine and `svc service`.
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

export interface ResolveOptions {
  /** The PATH value to scan for bare names. */
  pathEnv: string | undefined;
  /** Base for relative paths like `./bin/tool` (default: process.cwd()). */
  cwd?: string;
  /** For `~/…` (default: os.homedir()). */
  home?: string;
  platform?: NodeJS.Platform;
  /** Windows only: executable extensions (default: PATHEXT or .COM;.EXE;.BAT;.CMD). */
  pathExt?: string;
}

/**
 * The paths to try, in order, for `command`. Pure: no file system access.
 * - '' or whitespace → none.
 * - `~/x` → under the home directory.
 * - a name with a path separator → that path (relative ones against `cwd`); PATH is not used.
 * - a bare name → `<dir>/<name>` for each absolute PATH entry (empty and relative entries are
 *   skipped: they would make the result depend on the service's working directory), no duplicates.
 * On Windows each candidate is also tried with the PATHEXT extensions.
 */
export function executableCandidates(command: string, opts: ResolveOptions): string[] {
  const platform = opts.platform ?? process.platform;
  const path = platform === 'win32' ? win32 : posix;
  const name = command.trim();
  if (!name) return [];
  const withExt = (p: string): string[] => {
    if (platform !== 'win32') return [p];
    const exts = (opts.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
    const hasExt = exts.some((e) => p.toLowerCase().endsWith(e.toLowerCase()));
    return hasExt ? [p] : [p, ...exts.map((e) => p + e)];
  };
  if (name === '~' || name.startsWith('~/') || (platform === 'win32' && name.startsWith('~\\'))) {
    return withExt(path.join(opts.home ?? homedir(), name.slice(1)));
  }
  const hasSeparator = name.includes('/') || (platform === 'win32' && name.includes('\\'));
  if (hasSeparator) return withExt(path.resolve(opts.cwd ?? process.cwd(), name));
  const out: string[] = [];
  const delimiter = platform === 'win32' ? ';' : ':';
  for (const raw of (opts.pathEnv ?? '').split(delimiter)) {
    const dir = platform === 'win32' ? raw.replace(/^"(.*)"$/, '$1') : raw;
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const candidate of withExt(path.join(dir, name))) if (!out.includes(candidate)) out.push(candidate);
  }
  return out;
}

/**
 * A regular file this process may execute. Synchronous: a PATH scan asks about a dozen paths per CLI, most
 * of them missing, and a stat that finds nothing is a few microseconds in-process where the promise API
 * made each one a thread-pool round trip and an exception; svc serve's first answers waited on them.
 */
export function isExecutableFileSync(p: string): boolean {
  if (!statSync(p, { throwIfNoEntry: false })?.isFile()) return false;
  try {
    accessSync(p, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}


/** The file a command name runs through PATH, or null (no shell is involved, so PATH is searched here). */
export function findOnPath(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  const candidates = executableCandidates(command, { pathEnv: env.PATH ?? env.Path, platform, ...(env.PATHEXT ? { pathExt: env.PATHEXT } : {}) });
  return candidates.find(isExecutableFileSync) ?? null;
}
