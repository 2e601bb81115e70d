// The read-only commands of `POST /api/svc-ceo/query`, checked before anything runs (pure): a
// command line is split into words without a shell, and only `git status|log|show|diff`, `rg`, `ls`
// and `cat` (a file read, done by svc itself) pass, with no option that writes a file or runs
// another program, and every path inside the project root.
import { isAbsolute, relative, resolve } from 'node:path';

export type QueryPlan =
  | { ok: true; kind: 'exec'; command: 'git' | 'rg' | 'ls'; args: string[] }
  | { ok: true; kind: 'read'; path: string }
  | { ok: false; reason: string };

/** Characters a shell would act on: never accepted, even quoted (nothing here needs them). */
const SHELL_META = /[;&|`$<>\n\r\0]/;
const GIT_SUBCOMMANDS = new Set(['status', 'log', 'show', 'diff']);
/** git options that write a file, run a program or read outside the repository. */
const GIT_REFUSED = ['--output', '--ext-diff', '--textconv', '--no-index', '--exec', '--upload-pack', '--open-files-in-pager'];
/** Real git options that are prefixes of a refused one. */
const GIT_EXACT = ['--text'];
/** rg options that run a program (preprocessors, decompressors) or read patterns or paths from a file. */
const RG_REFUSED = ['--pre', '--pre-glob', '--search-zip', '--file', '--ignore-file'];

const refuse = (reason: string): QueryPlan => ({ ok: false, reason });

/** Words of a command line: spaces separate, single or double quotes group; no escapes, no expansion. Null when malformed. */
export function splitWords(line: string): string[] | null {
  const words: string[] = [];
  const re = /\s+|"([^"]*)"|'([^']*)'|([^\s"']+)/y;
  let glued = false;
  while (re.lastIndex < line.length) {
    const m = re.exec(line);
    if (!m) return null; // an unbalanced quote
    if (!m[0].trim()) {
      glued = false;
      continue;
    }
    if (glued) return null; // a quote glued to a word: ambiguous, refused
    words.push(m[1] ?? m[2] ?? m[3]!);
    glued = true;
  }
  return words;
}

/** Whether a path argument stays inside the root (a lexical check; the runner resolves symlinks). */
export function insideRoot(root: string, path: string): boolean {
  if (isAbsolute(path)) return false;
  const rel = relative(root, resolve(root, path));
  return !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The refused option an argument stands for, if any: long options by exact name or by an
 * abbreviation (git accepts unambiguous prefixes), short ones anywhere in a cluster (`-iz`).
 */
export function refusedOption(arg: string, long: readonly string[], short: string, exact: readonly string[] = []): string | undefined {
  if (arg.startsWith('--')) {
    const name = arg.split('=')[0]!;
    if (name === '--' || exact.includes(name)) return undefined;
    return long.find((o) => o === name || (name.length > 3 && o.startsWith(name)));
  }
  if (/^-[A-Za-z0-9]/.test(arg)) {
    const letters = arg.slice(1);
    return [...letters].find((l) => short.includes(l));
  }
  return undefined;
}

export function planQuery(root: string, line: string): QueryPlan {
  if (line.length > 2000) return refuse('the command is too long (2000 characters at most)');
  if (SHELL_META.test(line)) return refuse('shell metacharacters (; & | ` $ < > and line breaks) are not accepted: commands run without a shell');
  const words = splitWords(line);
  if (!words || words.length === 0) return refuse('give one command, e.g. `git status` or `ls docs`');
  const [command, ...args] = words as [string, ...string[]];
  const paths = (list: string[]) => list.filter((a) => !a.startsWith('-'));
  const outside = (list: string[]) => list.find((p) => !insideRoot(root, p));
  switch (command) {
    case 'git': {
      const [sub, ...rest] = args;
      if (!sub || !GIT_SUBCOMMANDS.has(sub)) return refuse('git takes status, log, show or diff (and no option before them)');
      const bad = rest.find((a) => refusedOption(a, GIT_REFUSED, 'O', GIT_EXACT));
      if (bad) return refuse(`git ${sub} ${bad} is refused: it writes a file, runs a program or reads outside the project`);
      const dash = rest.indexOf('--');
      if (dash >= 0 && outside(rest.slice(dash + 1))) return refuse('paths must stay inside the project root');
      // a repository's own config may name text conversions or external diffs: never run them
      const safety = sub === 'status' ? [] : ['--no-ext-diff', '--no-textconv'];
      return { ok: true, kind: 'exec', command: 'git', args: [sub, ...safety, ...rest] };
    }
    case 'rg': {
      const bad = args.find((a) => refusedOption(a, RG_REFUSED, 'zf'));
      if (bad) return refuse(`rg ${bad} is refused: it runs a program or reads a list from a file`);
      const [, ...where] = paths(args);
      if (outside(where)) return refuse('paths must stay inside the project root');
      return { ok: true, kind: 'exec', command: 'rg', args: ['--no-config', ...args] };
    }
    case 'ls': {
      if (outside(paths(args))) return refuse('paths must stay inside the project root');
      return { ok: true, kind: 'exec', command: 'ls', args };
    }
    case 'cat': {
      if (args.length !== 1 || args[0]!.startsWith('-')) return refuse('cat reads one file: `cat <path>`');
      if (!insideRoot(root, args[0]!)) return refuse('paths must stay inside the project root');
      return { ok: true, kind: 'read', path: args[0]! };
    }
    default:
      return refuse(`'${command}' is not a read-only command here: use git status|log|show|diff, rg, ls or cat`);
  }
}

/** Caps output at `max` bytes (UTF-8), on a character boundary. */
export function capOutput(text: string, max: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, truncated: false };
  return { text: bytes.subarray(0, max).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}
