// What changes when a server runs as a service of the machine (SVC_SERVICE, set by the unit, agent or
// task `svc service install` writes; Task Scheduler, which sets no variables, passes --service):
// - its log also goes to its home: `<home>/logs/<name>.log`, JSON lines, rotated by size (src/core/log-file.ts);
// - under launchd and Task Scheduler, which have no variables file of their own, it reads the user's
//   (`SVC_ENV_FILE`, else `<home>/service.env`); systemd reads it itself (EnvironmentFile=).
// Outside a service nothing changes: a terminal shows the log.
import { join } from 'node:path';
import { LogFile } from '../core/log-file.ts';
import { setLogSink } from '../core/log.ts';
import { runningAs } from '../core/service-env.ts';
import { readEnvFile } from '../service/env-file.ts';

/** The log file of a server kind in a home (svc service logs reads the same path). */
export const serviceLogPath = (home: string, name: 'svc' | 'dashboard') => join(home, 'logs', `${name}.log`);

/** Sets up the process for the service it runs as, if any; returns whether it runs as one. */
export function startServiceLog(home: string, name: 'svc' | 'dashboard', env: NodeJS.ProcessEnv = process.env): boolean {
  const manager = runningAs(env);
  if (!manager) return false;
  const file = new LogFile({ path: serviceLogPath(home, name) });
  setLogSink((level, line) => file.write(level, line));
  file.write('info', `starting as a ${manager} service (pid ${process.pid})`);
  if (manager !== 'systemd') {
    const path = env.SVC_ENV_FILE?.trim() || join(home, 'service.env');
    let vars: Record<string, string> | undefined;
    try {
      vars = readEnvFile(path);
    } catch (err) {
      file.write('warn', `cannot read ${path}: ${(err as Error).message}`);
    }
    if (vars) {
      Object.assign(env, vars);
      // names only: the values are the user's secrets
      file.write('info', `variables from ${path}: ${Object.keys(vars).join(', ') || 'none'}`);
    }
  }
  return true;
}
