// The scope check of a mutable worker with a path scope: the files it changed (those changed after its
// run that were not before, by `git status`) must lie under its scope. Reported, not undone.
import { execFileSync } from 'node:child_process';
import { parseStatusPaths } from './worktrees/parse.ts';

/** The changed and untracked files of the git work tree at cwd; undefined outside a work tree. */
export function changedFiles(cwd: string): Set<string> | undefined {
  try {
    const out = execFileSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
    return new Set(parseStatusPaths(out));
  } catch {
    return undefined;
  }
}

export function outsideScope(before: ReadonlySet<string>, after: ReadonlySet<string>, scope: readonly string[]): string[] {
  const roots = scope.map((s) => s.replace(/^\.\/+/, '').replace(/\/+$/, ''));
  return [...after].filter((file) => !before.has(file) && !roots.some((root) => root === '' || root === '.' || file === root || file.startsWith(`${root}/`))).sort();
}
