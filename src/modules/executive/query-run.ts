// Runs a checked query (query.ts) in a project root: no shell, a fixed environment, a time limit and
// an output cap; a file read resolves symlinks and must still land inside the root.
import { spawn } from 'node:child_process';
import { open, realpath } from 'node:fs/promises';
import { relative, resolve, isAbsolute } from 'node:path';
import { AppError, badRequest } from '../../core/errors.ts';
import { capOutput, type QueryPlan } from './query.ts';

export const QUERY_OUTPUT_CAP = 24 * 1024;
const QUERY_TIMEOUT_MS = 10_000;

export interface QueryResult {
  output: string;
  truncated: boolean;
  exitCode: number | null;
}

export async function runQuery(root: string, plan: Extract<QueryPlan, { ok: true }>): Promise<QueryResult> {
  if (plan.kind === 'read') return readInside(root, plan.path);
  return new Promise((resolveRun, reject) => {
    const args = plan.command === 'git' ? ['-c', 'core.fsmonitor=false', '-c', 'diff.external=', '--no-pager', ...plan.args] : plan.args;
    const child = spawn(plan.command, args, {
      cwd: root,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: QUERY_TIMEOUT_MS,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', LANG: 'C.UTF-8', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat' },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (chunk: Buffer) => {
      // keep a little more than the cap, then stop reading: the cap decides what is shown
      if (size <= QUERY_OUTPUT_CAP) chunks.push(chunk);
      size += chunk.length;
      if (size > QUERY_OUTPUT_CAP * 2) child.kill('SIGKILL');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => reject(new AppError(400, 'QUERY_REFUSED', `${plan.command} could not run (${err.message}); it may not be installed.`)));
    child.on('close', (code) => {
      const capped = capOutput(Buffer.concat(chunks).toString('utf8'), QUERY_OUTPUT_CAP);
      resolveRun({ output: capped.text, truncated: capped.truncated || size > QUERY_OUTPUT_CAP, exitCode: code });
    });
  });
}

async function readInside(root: string, path: string): Promise<QueryResult> {
  let real: string;
  try {
    real = await realpath(resolve(root, path));
  } catch {
    throw badRequest('QUERY_REFUSED', `${path} does not exist in the project.`);
  }
  const rel = relative(await realpath(root), real);
  if (rel.startsWith('..') || isAbsolute(rel)) throw badRequest('QUERY_REFUSED', `${path} leads outside the project root.`);
  const handle = await open(real, 'r');
  try {
    if (!(await handle.stat()).isFile()) throw badRequest('QUERY_REFUSED', `${path} is not a file; list it with ls.`);
    const buffer = Buffer.alloc(QUERY_OUTPUT_CAP + 4);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const { size } = await handle.stat();
    const capped = capOutput(buffer.subarray(0, bytesRead).toString('utf8'), QUERY_OUTPUT_CAP);
    return { output: capped.text, truncated: capped.truncated || size > QUERY_OUTPUT_CAP, exitCode: 0 };
  } finally {
    await handle.close();
  }
}
