// Worker worktrees on a repository of 10,000 files: svc's creation (WorktreeService.create: the
// repository check, the user's status for "uncommitted changes left out", `git worktree add` and the
// row) and removal (discard: `git worktree remove`, prune, `git branch -D`, the row), against the bare
// `git worktree add -b` and `git worktree remove` + `git branch -D` alone, alternating, ROUNDS each.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/db.ts';
import { WorktreeRepo } from '../src/modules/orchestration/worktrees/worktrees.repo.ts';
import { WorktreeService } from '../src/modules/orchestration/worktrees/worktrees.service.ts';
import { nowMs, ratio, summarize } from './support/stats.ts';

const FILES = Number(process.env.BENCH_FILES) || 10_000;
const ROUNDS = Number(process.env.BENCH_RUNS) || 10;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-wt-'));
  const repo = join(dir, 'repo');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  mkdirSync(repo);
  for (let i = 0; i < FILES; i++) {
    const sub = join(repo, `src${i % 100}`);
    if (i < 100) mkdirSync(sub);
    writeFileSync(join(sub, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'start');
  const db = openDatabase(join(dir, 'svc.db'));
  const service = new WorktreeService({ repo: new WorktreeRepo(db), root: join(dir, 'svc-worktrees') });
  const samples = { svcCreate: [] as number[], svcRemove: [] as number[], gitAdd: [] as number[], gitRemove: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let at = nowMs();
      const worktree = await service.create(`tr_bench${round}svc`, 'bench', repo);
      samples.svcCreate.push(nowMs() - at);
      at = nowMs();
      await service.discard(worktree);
      samples.svcRemove.push(nowMs() - at);

      const path = join(dir, 'bare', String(round));
      at = nowMs();
      git('worktree', 'add', '--quiet', '-b', `bare/${round}`, path, 'HEAD');
      samples.gitAdd.push(nowMs() - at);
      at = nowMs();
      git('worktree', 'remove', '--force', path);
      git('branch', '-D', '--quiet', `bare/${round}`);
      samples.gitRemove.push(nowMs() - at);
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const create = summarize(samples.svcCreate, 1);
  const remove = summarize(samples.svcRemove, 1);
  const add = summarize(samples.gitAdd, 1);
  const bareRemove = summarize(samples.gitRemove, 1);
  return {
    files: FILES,
    rounds: ROUNDS,
    createMs: create,
    gitWorktreeAddMs: add,
    createRatioP50: ratio(create.p50, add.p50),
    removeMs: remove,
    gitWorktreeRemoveMs: bareRemove,
    removeRatioP50: ratio(remove.p50, bareRemove.p50),
  };
}

console.log(JSON.stringify(await main(), null, 2));
