// Runs one provider CLI: its own process group (so the whole tree can be killed), stdout split
// into lines, a bounded stderr tail, and a pid file so a crashed server's children can be reaped.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ExitInfo } from './providers/types.ts';

/** A line longer than this is cut (a runaway CLI must not exhaust memory). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
export const STDERR_TAIL_BYTES = 16 * 1024;
/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  pidDir: string;
  onLine(line: string): void;
  onStderr(text: string): void;
}

export interface RunningProcess {
  readonly pid: number | undefined;
  write(line: string): void;
  closeStdin(): void;
  /** Ends the whole process group: SIGTERM, then SIGKILL after the grace period. */
  kill(graceMs?: number): void;
  readonly exited: Promise<ExitInfo & { spawnError?: NodeJS.ErrnoException }>;
}

/** Splits a byte stream into lines; the last partial line is flushed on `end`. */
export function lineSplitter(onLine: (line: string) => void) {
  let buffer = '';
  return {
    push(chunk: string) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (buffer.length > MAX_LINE_BYTES) {
        onLine(buffer);
        buffer = '';
      }
    },
    end() {
      if (buffer) onLine(buffer);
      buffer = '';
    },
  };
}

/** Process groups started here and still running: ended synchronously if this process exits abruptly. */
const liveGroups = new Set<number>();

/** Kills every provider CLI process group still running (for `process.on('exit')`: synchronous). */
export function killLiveGroupsSync(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

export function startProcess(spec: ProcessSpec): RunningProcess {
  const child: ChildProcess = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // a new process group: kill(-pid) reaches every descendant
  });
  const pidFile = child.pid ? join(spec.pidDir, `${child.pid}.json`) : undefined;
  if (child.pid) liveGroups.add(child.pid);
  if (pidFile) {
    writeFileSync(pidFile, JSON.stringify({ pid: child.pid, command: basename(spec.command), startedAt: Date.now() }));
  }
  let stderrTail = '';
  let killTimer: NodeJS.Timeout | undefined;
  const stdout = lineSplitter(spec.onLine);
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => stdout.push(chunk));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    spec.onStderr(chunk);
  });
  child.stdin!.on('error', () => {
    // EPIPE when the CLI exits while we write: its exit status tells the story
  });

  const exited = new Promise<ExitInfo & { spawnError?: NodeJS.ErrnoException }>((resolve) => {
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once('error', (err) => {
      spawnError = err as NodeJS.ErrnoException;
      if (child.pid === undefined) resolve({ code: null, signal: null, stderr: '', spawnError });
    });
    child.once('close', (code, signal) => {
      clearTimeout(killTimer);
      stdout.end();
      if (pidFile) rmSync(pidFile, { force: true });
      if (child.pid) liveGroups.delete(child.pid);
      // the group may still hold descendants that outlived their parent
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
      resolve({ code, signal, stderr: stderrTail, ...(spawnError ? { spawnError } : {}) });
    });
  });

  return {
    pid: child.pid,
    write(line) {
      if (child.stdin!.writable) child.stdin!.write(`${line}\n`);
    },
    closeStdin() {
      if (!child.stdin!.writableEnded) child.stdin!.end();
    },
    kill(graceMs = KILL_GRACE_MS) {
      if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs);
    },
    exited,
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Kills the process groups recorded by a previous server process that did not shut down cleanly.
 * A pid is only killed when the process still runs the recorded command (pids are reused).
 */
export function reapOrphans(pidDir: string): number {
  let reaped = 0;
  let names: string[] = [];
  try {
    names = readdirSync(pidDir).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(pidDir, name);
    try {
      const record = JSON.parse(readFileSync(path, 'utf8')) as { pid: number; command: string };
      const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8');
      if (cmdline.includes(record.command)) {
        signalGroup(record.pid, 'SIGKILL');
        reaped++;
      }
    } catch {
      // no such process (or no /proc): nothing to reap
    }
    rmSync(path, { force: true });
  }
  return reaped;
}
