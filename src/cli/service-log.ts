// Under a service (SVC_SERVICE, set by the unit `svc service install` writes) a server's log also goes
// to its home: `<home>/logs/<name>.log`, JSON lines, rotated by size (src/core/log-file.ts). Outside a
// service nothing changes: a terminal shows the log.
import { join } from 'node:path';
import { LogFile } from '../core/log-file.ts';
import { setLogSink } from '../core/log.ts';
import { runningAs } from '../core/service-env.ts';

/** The log file of a server kind in a home (svc service logs reads the same path). */
export const serviceLogPath = (home: string, name: 'svc' | 'dashboard') => join(home, 'logs', `${name}.log`);

/** Sends the process's log to the home's log file when it runs as a service; returns whether it does. */
export function startServiceLog(home: string, name: 'svc' | 'dashboard', env: NodeJS.ProcessEnv = process.env): boolean {
  const manager = runningAs(env);
  if (!manager) return false;
  const file = new LogFile({ path: serviceLogPath(home, name) });
  setLogSink((level, line) => file.write(level, line));
  file.write('info', `starting as a ${manager} service (pid ${process.pid})`);
  return true;
}
