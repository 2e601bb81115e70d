// A mutable worker's own git worktree: made under svc's home on branch svc/<runId> from the user's
// HEAD, committed on that branch when a run in it ends, then merged into the user's current branch or
// discarded by a person. The user's tree is only ever touched by the merge's last step, a fast-forward
// to a commit made beside it (`git merge-tree` computes the result without a working tree), so a
// conflict, or an uncommitted change of the user's in a file the merge would write, refuses the merge
// with nothing changed. Operations on one repository run one at a time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { AppError, badRequest, conflict } from '../../../core/errors.ts';
import type { WorktreeDiffFile } from '../../../protocol/orchestration.ts';
import { git, gitOut, identityArgs } from './git.ts';
import { capPatch, diffFiles, parseMergeTree, parseStatusPaths } from './parse.ts';
import type { Worktree, WorktreeRepo } from './worktrees.repo.ts';

/** The patch a diff answers with is cut here (the file list is always whole). */
export const PATCH_MAX_BYTES = 1024 * 1024;

export interface WorktreeDiff {
  files: WorktreeDiffFile[];
  patch: string;
  truncated: boolean;
}

export const branchOf = (runId: string) => `svc/${runId}`;

const gitFailed = (err: unknown) => (err instanceof AppError ? err : new AppError(500, 'GIT_FAILED', (err as Error).message));

/**
 * The repository that holds `cwd` (its top level, and where cwd lies in it), read synchronously so a
 * dispatch can refuse at once; undefined outside a repository or in one without a commit yet.
 */
export function repositoryOf(cwd: string): { top: string; subdir: string } | undefined {
  try {
    const run = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
    const top = run(['rev-parse', '--show-toplevel']);
    run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    const subdir = relative(top, resolve(cwd));
    return { top, subdir: subdir.startsWith('..') || isAbsolute(subdir) ? '' : subdir };
  } catch {
    return undefined;
  }
}

export function requireRepository(cwd: string): { top: string; subdir: string } {
  const repo = repositoryOf(cwd);
  if (!repo) {
    throw badRequest('NOT_A_GIT_REPOSITORY', `The working directory ${cwd} is not in a git repository with a commit, so a worker cannot have a worktree there: run \`git init\` and commit, or dispatch with isolation "none".`, { cwd });
  }
  return repo;
}

export class WorktreeService {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: { repo: WorktreeRepo; root: string; now?: () => number }) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Runs `task` after every earlier operation on the same repository. */
  private serial<T>(repo: string, task: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(repo) ?? Promise.resolve()).then(task, task);
    this.queues.set(repo, run.catch(() => undefined));
    return run;
  }

  get(id: string): Worktree | undefined {
    return this.deps.repo.get(id);
  }

  open(): Worktree[] {
    return this.deps.repo.open();
  }

  /** Where a worker in this worktree starts: the working directory's place in the repository. */
  workdir(w: Worktree): string {
    return join(w.path, w.subdir);
  }

  /** Makes the worktree of run `id` from the current HEAD of the repository that holds `cwd`. */
  create(id: string, sessionId: string, cwd: string): Promise<Worktree> {
    const { top, subdir } = requireRepository(cwd);
    return this.serial(top, async () => {
      const base = (await gitOut(top, ['rev-parse', 'HEAD'])).trim();
      const dirty = parseStatusPaths(await gitOut(top, ['status', '--porcelain=v1', '-z', '--untracked-files=normal'])).length > 0;
      mkdirSync(this.deps.root, { recursive: true, mode: 0o700 });
      const path = join(this.deps.root, id);
      await gitOut(top, ['worktree', 'add', '--quiet', '-b', branchOf(id), path, base]);
      const worktree = { id, sessionId, repo: top, path, subdir, branch: branchOf(id), base, uncommittedLeftOut: dirty, createdAt: this.now() };
      this.deps.repo.insert(worktree);
      return this.deps.repo.get(id)!;
    });
  }

  /** Commits what the worktree holds beyond its branch (a CLI rarely commits), naming why. */
  commit(w: Worktree, message: string): Promise<void> {
    return this.serial(w.repo, () => this.commitPending(w, message));
  }

  private async commitPending(w: Worktree, message: string): Promise<void> {
    if (!existsSync(w.path)) return;
    await gitOut(w.path, ['add', '--all']);
    const staged = await git(w.path, ['diff', '--cached', '--quiet']);
    if (staged.code === 0) return;
    await gitOut(w.path, [...(await identityArgs(w.path)), 'commit', '--quiet', '--no-verify', '-m', message]);
  }

  /** The branch against where it started: files with their counts, and the patch (binary files named only). */
  diff(w: Worktree): Promise<WorktreeDiff> {
    return this.serial(w.repo, async () => {
      this.requireOpen(w);
      await this.commitPending(w, `svc: changes left in the worktree of ${w.id}`).catch((err) => {
        throw gitFailed(err);
      });
      return this.branchDiff(w.repo, w.base, w.branch);
    });
  }

  private async branchDiff(repo: string, from: string, to: string): Promise<WorktreeDiff> {
    const range = [from, to];
    const [nameStatus, numstat, patch] = await Promise.all([
      gitOut(repo, ['diff', '--no-color', '-M', '--name-status', '-z', ...range]),
      gitOut(repo, ['diff', '--no-color', '-M', '--numstat', '-z', ...range]),
      gitOut(repo, ['diff', '--no-color', '-M', ...range]),
    ]);
    return { files: diffFiles(nameStatus, numstat), ...capPatch(patch, PATCH_MAX_BYTES) };
  }

  /**
   * Lands the branch on the user's current branch as one commit (`message`), or refuses with 409
   * MERGE_CONFLICT and the user's tree, index and HEAD exactly as they were.
   */
  merge(w: Worktree, message: string): Promise<{ commit: string; files: WorktreeDiffFile[] }> {
    return this.serial(w.repo, async () => {
      this.requireOpen(w);
      try {
        await this.commitPending(w, `svc: changes left in the worktree of ${w.id}`);
        const { files } = await this.branchDiff(w.repo, w.base, w.branch);
        const head = (await gitOut(w.repo, ['rev-parse', 'HEAD'])).trim();
        const merged = await git(w.repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', head, w.branch]);
        if (merged.code > 1) throw new Error(`git merge-tree failed: ${merged.stderr.trim()}`);
        const { tree, conflicts } = parseMergeTree(merged.stdout);
        if (merged.code === 1) {
          throw conflict('MERGE_CONFLICT', `The changes of ${w.id} conflict with your branch in ${conflicts.join(', ')}; nothing was changed. Resolve it yourself from branch ${w.branch}, or discard the worktree.`, { files: conflicts, reason: 'conflict' });
        }
        const touched = (await gitOut(w.repo, ['diff', '--name-only', '-z', head, tree])).split('\0').filter(Boolean);
        const dirty = new Set(parseStatusPaths(await gitOut(w.repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all'])));
        const overlap = touched.filter((file) => dirty.has(file));
        if (overlap.length) {
          throw conflict('MERGE_CONFLICT', `You have uncommitted changes in ${overlap.join(', ')}, which the merge of ${w.id} would write; nothing was changed. Commit or stash them, then merge again.`, { files: overlap, reason: 'uncommitted' });
        }
        let commit = head;
        if (touched.length) {
          commit = (await gitOut(w.repo, [...(await identityArgs(w.repo)), 'commit-tree', tree, '-p', head, '-m', message])).trim();
          const forward = await git(w.repo, ['merge', '--ff-only', '--quiet', commit]);
          if (forward.code !== 0) {
            throw conflict('MERGE_CONFLICT', `Your tree changed while ${w.id} was merging (${forward.stderr.trim()}); nothing was changed. Merge again.`, { files: touched, reason: 'changed' });
          }
        }
        await this.remove(w);
        this.deps.repo.close(w.id, 'merged', this.now(), commit);
        return { commit, files };
      } catch (err) {
        throw gitFailed(err);
      }
    });
  }

  /** Removes the worktree and its branch, whatever they hold. */
  discard(w: Worktree): Promise<void> {
    return this.serial(w.repo, async () => {
      this.requireOpen(w);
      await this.remove(w).catch((err) => {
        throw gitFailed(err);
      });
      this.deps.repo.close(w.id, 'discarded', this.now());
    });
  }

  private async remove(w: Worktree): Promise<void> {
    if (existsSync(w.path)) {
      const removed = await git(w.repo, ['worktree', 'remove', '--force', '--force', w.path]);
      if (removed.code !== 0) rmSync(w.path, { recursive: true, force: true });
    }
    await git(w.repo, ['worktree', 'prune']);
    const branch = await git(w.repo, ['branch', '-D', '--quiet', w.branch]);
    if (branch.code !== 0 && !/not found/.test(branch.stderr)) throw new Error(`git branch -D failed: ${branch.stderr.trim()}`);
  }

  private requireOpen(w: Worktree): void {
    const now = this.deps.repo.get(w.id);
    if (now?.state !== 'open') throw conflict('NO_WORKTREE', `The worktree of ${w.id} was ${now?.state ?? 'never made'}: there is nothing to review, merge or discard.`, { state: now?.state ?? null });
  }

  /**
   * At start: a server killed mid-run (or mid-git) can leave a worktree's locks behind, its index.lock
   * and the `locked` marker `git worktree add` writes while it works. No svc git runs yet, so every
   * such lock of svc's own worktrees is stale; the user's repository's own locks are not touched.
   */
  async recover(): Promise<void> {
    const repos = new Set<string>();
    for (const w of this.deps.repo.open()) {
      repos.add(w.repo);
      const gitdir = worktreeGitDir(w.path);
      if (!gitdir) continue;
      for (const lock of ['index.lock', 'locked']) rmSync(join(gitdir, lock), { force: true });
    }
    for (const repo of repos) if (existsSync(repo)) await git(repo, ['worktree', 'prune']).catch(() => undefined);
  }
}

/** The worktree's own git directory (`<repo>/.git/worktrees/<name>`), from the `.git` file git put in it. */
function worktreeGitDir(path: string): string | undefined {
  try {
    const pointer = /^gitdir: (.+)$/m.exec(readFileSync(join(path, '.git'), 'utf8'))?.[1]?.trim();
    return pointer ? resolve(path, pointer) : undefined;
  } catch {
    return undefined;
  }
}
