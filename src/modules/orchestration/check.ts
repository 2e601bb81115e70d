// Runs the check command of C → D on the server (never pasted by the agent): through `sh -c` in the
// working directory, in its own process group, killed at its time limit, keeping the tail of its
// combined output.
import { startProcess } from '../../agent/process.ts';

export interface CheckRun {
  exitCode: number | null;
  outputTail: string;
  durationMs: number;
}

const TAIL_CHARS = 4000;

export async function runCheck(options: { command: string; cwd: string; env: NodeJS.ProcessEnv; pidDir: string; timeoutMs: number }): Promise<CheckRun> {
  const started = Date.now();
  let output = '';
  const keep = (text: string) => {
    output = (output + text).slice(-TAIL_CHARS * 2);
  };
  const child = startProcess({
    command: 'sh',
    args: ['-c', options.command],
    cwd: options.cwd,
    env: options.env,
    pidDir: options.pidDir,
    onLine: (line) => keep(`${line}\n`),
    onStderr: keep,
  });
  child.closeStdin();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill(500);
  }, options.timeoutMs);
  const exit = await child.exited;
  clearTimeout(timer);
  if (timedOut) keep(`\n[svc: the check was killed after ${Math.round(options.timeoutMs / 1000)} s]\n`);
  if (exit.spawnError) keep(`\n[svc: could not start the check: ${exit.spawnError.message}]\n`);
  return { exitCode: timedOut || exit.spawnError ? null : exit.code ?? null, outputTail: output.slice(-TAIL_CHARS), durationMs: Date.now() - started };
}
