// Whether a process runs, by its pid: the one check svc makes of its own processes (a server's lock, the instances
// the manager started, the browser it launched) and of those its runs leave behind.
import { readFileSync } from 'node:fs';

/**
 * Whether a process runs. A zombie (exited, not yet reaped by a parent we do not control: when svc's parent is gone,
 * its children are reaped by the system's init, which may take its time) counts as gone. A process of another user
 * (EPERM) runs.
 */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    if (state === 'Z' || state === 'X') return false;
  } catch {
    /* no /proc (not Linux) or already gone */
  }
  return true;
}
