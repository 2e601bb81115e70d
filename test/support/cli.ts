// Runs the `svc` program (bin/svc.js, the built CLI) as a user does, and collects what it printed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const SVC_BIN = join(import.meta.dirname, '../../bin/svc.js');

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `svc <args>` with `stdin` as its input (none: closed) and `env` over this process's environment. */
export function runSvc(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<SvcResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin);
  });
}
