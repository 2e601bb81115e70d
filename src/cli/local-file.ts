// Files the user names on the command line (`--file plan.md`, `svc upload a.png`, `svc chat -a shot.png`).
// A file that cannot be read ends the command with one line that names it, says why and what to do, and
// exit code 1: never a stack. Commands read through these helpers, and main.ts turns any file-system error
// that still escapes a command into the same line, so a command added later cannot print a stack either.
import { readFileSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/** A local file that cannot be used; its message is the whole line after `svc: `. */
export class LocalFileError extends Error {}

/** Why a file-system call failed, for people: what is wrong, then what to do. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file; check the path',
  ENOTDIR: 'a part of the path is not a directory; check the path',
  EACCES: 'permission denied; check the file\'s permissions',
  EPERM: 'permission denied; check the file\'s permissions',
  EISDIR: 'it is a directory; give a file',
  ELOOP: 'too many symbolic links; check the path',
  ENAMETOOLONG: 'the path is too long',
  EMFILE: 'too many open files; close some programs and try again',
};

const reason = (err: NodeJS.ErrnoException) => (err.code && REASONS[err.code]) ?? err.code ?? err.message;

/** The error for `path`: `cannot read <path>: <reason>`. */
export function unreadable(path: string, err: NodeJS.ErrnoException): LocalFileError {
  return new LocalFileError(`cannot read ${path}: ${reason(err)}`);
}

/** File-system calls that change something: their failure is not a read's. */
const WRITES = new Set(['write', 'mkdir', 'rename', 'unlink', 'rmdir', 'rm', 'copyfile', 'chmod', 'symlink', 'link', 'utime']);

/** The one line for an error a command let escape, when it is about a local file; undefined otherwise. */
export function fileErrorLine(err: unknown): string | undefined {
  if (err instanceof LocalFileError) return err.message;
  // a file-system error names its path and its call (open, stat, scandir…); a network error has neither
  const e = err as NodeJS.ErrnoException | undefined;
  if (!(e instanceof Error) || typeof e.path !== 'string' || typeof e.syscall !== 'string') return undefined;
  return WRITES.has(e.syscall) ? `cannot write ${e.path}: ${reason(e)}` : unreadable(e.path, e).message;
}

/** A regular file's facts; a missing file, a directory, or one that cannot be read throws LocalFileError. */
export async function statFile(path: string): Promise<Stats> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
    throw unreadable(path, err);
  });
  if (info.isDirectory()) throw unreadable(path, Object.assign(new Error('directory'), { code: 'EISDIR' }));
  if (!info.isFile()) throw new LocalFileError(`cannot read ${path}: not a regular file; give a file`);
  return info;
}

export async function readBytes(path: string): Promise<Buffer> {
  return readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw unreadable(path, err);
  });
}

export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw unreadable(path, err as NodeJS.ErrnoException);
  }
}
