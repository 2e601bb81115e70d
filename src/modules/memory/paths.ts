// Paths of memory files as requests give them: checked by rule (validateMemoryPath, pure), then confined
// to the memory directory after resolving links (confine). A path that fails either is refused before
// anything is read or written.
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { badRequest } from '../../core/errors.ts';

export const MAX_PATH_LENGTH = 300;
const MAX_DEPTH = 8;
/** A segment: letters and digits of any script, then also spaces, dots, dashes and underscores. */
const SEGMENT = /^[\p{L}\p{N}_][\p{L}\p{N}\p{M} ._-]*$/u;

const invalid = (path: string, why: string) =>
  badRequest('INVALID_MEMORY_PATH', `Invalid memory path '${path.slice(0, MAX_PATH_LENGTH)}': ${why}. Give a relative path ending in .md, e.g. notes/decisions.md.`, { field: 'path' });

/** The path in its one spelling (NFC, '/'-separated), or a 400 saying what is wrong with it. */
export function validateMemoryPath(input: string): string {
  if (!input) throw invalid(input, 'it is empty');
  if (input.length > MAX_PATH_LENGTH) throw invalid(input, `it is longer than ${MAX_PATH_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(input)) throw invalid(input, 'it contains control characters');
  if (input.includes('\\')) throw invalid(input, 'use / between folders');
  if (input.startsWith('/') || input.startsWith('~') || /^[A-Za-z]:/.test(input)) throw invalid(input, 'it must be relative to the memory directory');
  const path = input.normalize('NFC');
  const segments = path.split('/');
  if (segments.length > MAX_DEPTH) throw invalid(input, `it is more than ${MAX_DEPTH} folders deep`);
  for (const segment of segments) {
    if (segment === '') throw invalid(input, 'it has an empty folder name');
    if (segment === '.' || segment === '..') throw invalid(input, "'.' and '..' are not allowed");
    if (segment.startsWith('.')) throw invalid(input, 'hidden names (starting with a dot) are not allowed');
    if (!SEGMENT.test(segment) || segment.length > 100) throw invalid(input, `'${segment}' may hold only letters, digits, spaces, '.', '-' and '_'`);
  }
  if (!segments.at(-1)!.endsWith('.md') || segments.at(-1) === '.md') throw invalid(input, 'only Markdown files (.md) are memory');
  return path;
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

/**
 * The absolute path of `relative` under `realRoot` (the memory directory, links resolved), provided that
 * it stays inside after resolving links: its deepest existing ancestor, and the file itself when it exists
 * (which must then be a file). Throws a 400 otherwise.
 */
export function confine(realRoot: string, relative: string): { absolute: string; exists: boolean } {
  const absolute = join(realRoot, relative);
  let existing = absolute;
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
      if (existing === realRoot) break;
      existing = dirname(existing);
    }
  }
  let resolved: string;
  try {
    resolved = realpathSync(existing);
  } catch {
    throw invalid(relative, 'it leads through a broken link');
  }
  if (!inside(realRoot, resolved)) throw invalid(relative, 'it leads outside the memory directory');
  if (existing !== absolute) {
    // an ancestor exists; it must be a folder for the file to be created under it
    if (!lstatSync(resolved).isDirectory()) throw invalid(relative, `'${existing.slice(realRoot.length + 1)}' is a file, not a folder`);
    return { absolute, exists: false };
  }
  if (!lstatSync(resolved).isFile()) throw invalid(relative, 'it is a folder, not a file');
  return { absolute, exists: true };
}
