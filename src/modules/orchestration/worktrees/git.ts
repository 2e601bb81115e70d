// git as svc runs it for worktrees: execFile (no shell), no prompts, no pager, and no hooks (svc's own
// commits of a worker's changes are not the user's to lint: a pre-commit hook would block a worker's
// result for a reason the worker never sees). An identity is given only when the repository has none.
import { execFile } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 64 * 1024 * 1024;

const GIT_ENV: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };

/** Runs git in `cwd`; never throws for a non-zero exit (the caller reads `code`). */
export function git(cwd: string, args: readonly string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.hooksPath=/dev/null', '-c', 'core.quotepath=off', ...args],
      { cwd, env: { ...process.env, ...GIT_ENV }, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(err); // git missing, cwd gone, output too large
        resolve({ code: err ? (err.code as unknown as number) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs git and returns its output, or throws an Error with git's own message. */
export async function gitOut(cwd: string, args: readonly string[]): Promise<string> {
  const result = await git(cwd, args);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return result.stdout;
}

/** `-c user.name/email` for svc's commits when the repository has no identity of its own. */
export async function identityArgs(cwd: string): Promise<string[]> {
  const email = await git(cwd, ['config', 'user.email']);
  const name = await git(cwd, ['config', 'user.name']);
  return [...(name.code === 0 && name.stdout.trim() ? [] : ['-c', 'user.name=svc']), ...(email.code === 0 && email.stdout.trim() ? [] : ['-c', 'user.email=svc@localhost'])];
}
