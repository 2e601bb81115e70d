// Read-only git views of an instance's working directory: status, branch, recent commits, a diff
// summary and one file's diff. git runs without a shell, with a fixed argument list, no external
// diff or text conversion, and a file path is checked to stay inside the working directory.
import { execFile } from 'node:child_process';
import { isAbsolute, relative, resolve } from 'node:path';
import { AppError, badRequest } from '../../core/errors.ts';

const GIT_TIMEOUT_MS = 10_000;
const MAX_OUTPUT = 4 * 1024 * 1024;

/** A path relative to the working directory that stays inside it, or a 400. Pure. */
export function checkRepoPath(workingDir: string, path: string): string {
  if (!path || path.startsWith('-') || isAbsolute(path) || path.includes('\0') || path.includes('\\')) {
    throw badRequest('OUTSIDE_WORKING_DIR', 'Give a path relative to the working directory, without a leading dash.');
  }
  const rel = relative(workingDir, resolve(workingDir, path));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw badRequest('OUTSIDE_WORKING_DIR', `'${path}' is outside the working directory.`);
  return rel;
}

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolveOut, reject) => {
    execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-c', 'diff.external=', '--no-pager', ...args],
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } },
      (err, stdout, stderr) => {
        if (err) reject(new AppError(400, 'BAD_REQUEST', `git ${args[0]} failed in ${cwd}: ${(stderr || err.message).trim().slice(0, 300)}`));
        else resolveOut(stdout);
      },
    );
  });
}

export interface GitStatus {
  branch: string | null;
  files: { path: string; index: string; worktree: string }[];
}

export async function gitStatus(cwd: string): Promise<GitStatus> {
  const out = await git(cwd, ['status', '--porcelain=v1', '--branch', '-z']);
  const entries = out.split('\0').filter(Boolean);
  const head = entries[0]?.startsWith('## ') ? entries.shift()!.slice(3) : null;
  return {
    branch: head ? head.split('...')[0]!.replace(/^No commits yet on /, '') : null,
    files: entries.map((e) => ({ index: e[0]!, worktree: e[1]!, path: e.slice(3) })),
  };
}

export async function gitLog(cwd: string, limit: number): Promise<{ hash: string; author: string; date: number; subject: string }[]> {
  const out = await git(cwd, ['log', `-n${limit}`, '--format=%H%x1f%an%x1f%at%x1f%s%x1e']).catch(() => '');
  return out
    .split('\x1e')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [hash, author, date, subject] = l.split('\x1f');
      return { hash: hash!, author: author!, date: Number(date) * 1000, subject: subject ?? '' };
    });
}

export async function gitDiffSummary(cwd: string): Promise<{ path: string; added: number | null; removed: number | null }[]> {
  const out = await git(cwd, ['diff', '--no-ext-diff', '--no-textconv', '--numstat', 'HEAD']).catch(() => git(cwd, ['diff', '--no-ext-diff', '--no-textconv', '--numstat']));
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [a, r, ...p] = l.split('\t');
      return { path: p.join('\t'), added: a === '-' ? null : Number(a), removed: r === '-' ? null : Number(r) };
    });
}

export async function gitFileDiff(cwd: string, path: string): Promise<string> {
  const rel = checkRepoPath(cwd, path);
  return git(cwd, ['diff', '--no-ext-diff', '--no-textconv', 'HEAD', '--', rel]).catch(() => git(cwd, ['diff', '--no-ext-diff', '--no-textconv', '--', rel]));
}
