// Evidence the server can check: files under the project root (confined, symlinks resolved), and a
// check command the server runs itself in the project root, recording its exit code and output tail.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { badRequest } from '../../core/errors.ts';
import type { Checkpoint, CheckResult } from '../../protocol/goals.ts';

const OUTPUT_TAIL = 4096;
export const CHECK_TIMEOUT_MS = 120_000;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Evidence that names a worker run (`run:tr_…`) rather than a file: it counts once the run's worktree was merged. */
const RUN_EVIDENCE = /^run:(tr_[A-Za-z0-9_-]{4,40})$/;

/** Whether a worker run's changes were merged into the user's tree (orchestration's worktrees). */
export type MergedRun = (runId: string) => boolean;

/**
 * Each named file, and whether it exists under the root; or a merged run (`run:<runId>`), and whether
 * its worktree was merged. A path that leaves the root is refused.
 */
export function checkFiles(root: string, paths: readonly string[], mergedRun: MergedRun = () => false): Checkpoint['evidence'] {
  const realRoot = realpathSync(root);
  return paths.map((path) => {
    const run = RUN_EVIDENCE.exec(path)?.[1];
    if (run) return { path, exists: mergedRun(run) };
    const full = resolve(realRoot, path);
    if (!inside(realRoot, full)) throw badRequest('VALIDATION_FAILED', `Evidence '${path}' is outside the project root ${realRoot}; name files under it.`);
    if (!existsSync(full)) return { path, exists: false };
    // a symlink inside may point outside: what counts is where it leads
    return { path, exists: inside(realRoot, realpathSync(full)) };
  });
}

export function assertDirectory(path: string): void {
  if (!isAbsolute(path) || !existsSync(path) || !statSync(path).isDirectory()) {
    throw badRequest('INVALID_PROJECT_ROOT', `The project root '${path}' is not an existing directory given as an absolute path.`);
  }
}

/** Runs `command` with sh in `cwd`; never throws (a command that cannot start has exit code null). */
export function runCheck(command: string, cwd: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const started = Date.now();
  return new Promise((done) => {
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
    };
    const child = spawn('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const timer = setTimeout(() => {
      output += `\n[svc: the check ran longer than ${timeoutMs / 1000} s and was killed]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => {
      output += String(err.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ command, exitCode: code, output: output.slice(-OUTPUT_TAIL), durationMs: Date.now() - started });
    });
  });
}

/** Whether the latest checkpoint proves completion now (its files still exist, or its check passed). */
export function verdict(checkpoint: Checkpoint | null, root: string, mergedRun?: MergedRun): { ok: true } | { ok: false; reason: string } {
  if (!checkpoint) return { ok: false, reason: 'no checkpoint yet: record one with evidence (`svc goal update "<summary>" --evidence <file>` or `--check "<command>"`)' };
  if (checkpoint.check && checkpoint.check.exitCode === 0) return { ok: true };
  const named = checkpoint.evidence.map((e) => e.path);
  const present = named.length ? checkFiles(root, named, mergedRun).filter((e) => e.exists) : [];
  if (present.length) return { ok: true };
  if (checkpoint.check) return { ok: false, reason: `the latest checkpoint's check \`${checkpoint.check.command}\` exited with ${checkpoint.check.exitCode ?? 'no code'}` };
  if (named.length) return { ok: false, reason: `none of the latest checkpoint's evidence exists (files under ${root}, or merged runs): ${named.join(', ')}` };
  return { ok: false, reason: 'the latest checkpoint names no evidence: add files under the project root (--evidence) or a check command (--check)' };
}
