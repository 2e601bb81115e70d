// Pure readers of git's machine output (the -z forms: a path may hold any byte but NUL), and the
// patch cap. Nothing here runs git.
import type { WorktreeDiffFile } from '../../../protocol/orchestration.ts';

const STATUS: Record<string, WorktreeDiffFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'added', T: 'modified' };

/** `git diff --name-status -M -z`: `S\0path\0` or, for a rename or copy, `R100\0old\0new\0`. */
export function parseNameStatus(out: string): { status: WorktreeDiffFile['status']; path: string; oldPath?: string }[] {
  const parts = out.split('\0');
  const files: { status: WorktreeDiffFile['status']; path: string; oldPath?: string }[] = [];
  for (let i = 0; i < parts.length - 1; ) {
    const code = parts[i++]!;
    const letter = code[0]!;
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[i++]!;
      const path = parts[i++]!;
      files.push(letter === 'R' ? { status: 'renamed', path, oldPath } : { status: 'added', path });
    } else files.push({ status: STATUS[letter] ?? 'modified', path: parts[i++]! });
  }
  return files;
}

/**
 * `git diff --numstat -M -z`: `added\tdeleted\tpath\0`, or for a rename `added\tdeleted\t\0old\0new\0`;
 * a binary file counts `-` for both. Keyed by the (new) path.
 */
export function parseNumstat(out: string): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const parts = out.split('\0');
  const stats = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (let i = 0; i < parts.length - 1; ) {
    // a path may hold a tab itself: only the first two separate the counts
    const [, added = '', deleted = '', inline = ''] = /^([^\t]*)\t([^\t]*)\t([\s\S]*)$/.exec(parts[i++]!) ?? [];
    let path = inline;
    if (path === '') {
      i++; // the old path of a rename
      path = parts[i++]!;
    }
    const binary = added === '-' && deleted === '-';
    stats.set(path, { additions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(deleted), binary });
  }
  return stats;
}

/** The files of a diff: what changed and by how much, in git's order. */
export function diffFiles(nameStatus: string, numstat: string): WorktreeDiffFile[] {
  const stats = parseNumstat(numstat);
  return parseNameStatus(nameStatus).map((file) => ({ ...file, ...(stats.get(file.path) ?? { additions: 0, deletions: 0, binary: false }) }));
}

/**
 * `git merge-tree --write-tree --name-only --no-messages -z`: the merged tree's id, then (exit code 1)
 * the files that conflict, each once.
 */
export function parseMergeTree(out: string): { tree: string; conflicts: string[] } {
  const [tree = '', ...rest] = out.split('\0');
  return { tree: tree.trim(), conflicts: [...new Set(rest.filter(Boolean))] };
}

/** `git status --porcelain -z`: the paths with uncommitted changes (both sides of a rename, untracked too). */
export function parseStatusPaths(out: string): string[] {
  const parts = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < parts.length - 1; i++) {
    const entry = parts[i]!;
    paths.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') paths.push(parts[++i]!);
  }
  return paths;
}

/** A patch kept whole up to `maxBytes`, else cut at the last line that fits. */
export function capPatch(patch: string, maxBytes: number): { patch: string; truncated: boolean } {
  if (Buffer.byteLength(patch) <= maxBytes) return { patch, truncated: false };
  const cut = Buffer.from(patch).subarray(0, maxBytes).toString('utf8');
  const end = cut.lastIndexOf('\n');
  return { patch: end > 0 ? cut.slice(0, end + 1) : '', truncated: true };
}
