// Which files the send routes may send: only regular files under the media directory or the working
// directory, checked after resolving every link (realpath), so `..`, symlinks and /proc tricks cannot
// reach the database, the token or anything else. Bad paths are 4xx answers, never 500s.
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { AppError, badRequest, forbidden } from '../../core/errors.ts';

/** The real path of `file` (relative paths are taken from the working directory) when it is allowed. */
export function resolveSendFile(file: string, roots: { workingDir: string; mediaDir: string; home: string }): string {
  if (file.includes('\0')) throw badRequest('INVALID_FILE_PATH', 'the file path contains a NUL byte');
  const candidate = resolve(roots.workingDir, file);
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    throw new AppError(404, 'FILE_NOT_FOUND', `no file at ${file}: give a path in the media directory or the working directory`);
  }
  const inside = (root: string) => {
    let base: string;
    try {
      base = realpathSync(root);
    } catch {
      return false;
    }
    const rel = relative(base, real);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  // The data directory holds the token and the database: only its media directory may be sent from,
  // even when the working directory contains it.
  const inHome = inside(roots.home) && !inside(roots.mediaDir);
  if (inHome || !(inside(roots.mediaDir) || inside(roots.workingDir))) {
    throw forbidden('FILE_NOT_ALLOWED', `${file} is outside the media directory and the working directory; copy it into one of them first`);
  }
  if (!statSync(real).isFile()) throw badRequest('INVALID_FILE_PATH', `${file} is not a regular file`);
  return real;
}
