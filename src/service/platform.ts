// Which service manager a platform has, where its file for a service goes, and the commands each
// action runs on it: pure plans (lists of steps) that `--print` shows and the executor below runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { findOnPath } from '../core/executable.ts';
import type { ServiceManager } from '../core/service-env.ts';
import { launchdLabel } from './launchd.ts';
import { pathsOf, type ServiceName } from './spec.ts';
import { taskName } from './windows.ts';

export type { ServiceManager };

/** A failure of a service command: one line for the user, and the exit status. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function managerFor(platform: NodeJS.Platform | string): ServiceManager {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  if (platform === 'win32') return 'schtasks';
  throw new ServiceError(`svc service does not know the service manager of ${platform} (it knows systemd on Linux, launchd on macOS, Task Scheduler on Windows); run svc serve under your own supervisor`);
}

/** The command-line program that drives a manager. */
export const MANAGER_COMMAND: Record<ServiceManager, string> = { systemd: 'systemctl', launchd: 'launchctl', schtasks: 'schtasks' };

export interface ServiceTarget {
  manager: ServiceManager;
  name: ServiceName;
  /** The unit, plist or task XML file. */
  file: string;
  /** A systemd system unit (/etc/systemd/system, `systemctl` without --user). */
  system: boolean;
  /** launchd: the user's id (its gui/<uid> domain). */
  uid?: number;
  /** launchd: the directory of its output files, made before the agent starts. */
  logDir?: string;
}

export interface FileLocationInput {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  userHome: string;
  /** svc's data directory: where a Windows task's XML is kept. */
  home: string;
  system?: boolean;
}

/** Where the file of a service goes. */
export function serviceFile(manager: ServiceManager, name: ServiceName, input: FileLocationInput): string {
  const paths = pathsOf(input.platform);
  if (manager === 'systemd') {
    if (input.system) return `/etc/systemd/system/${name}.service`;
    const config = input.env.XDG_CONFIG_HOME && paths.isAbsolute(input.env.XDG_CONFIG_HOME) ? input.env.XDG_CONFIG_HOME : paths.join(input.userHome, '.config');
    return paths.join(config, 'systemd', 'user', `${name}.service`);
  }
  if (manager === 'launchd') return paths.join(input.userHome, 'Library', 'LaunchAgents', `${launchdLabel(name)}.plist`);
  return paths.join(input.home, `${name}-task.xml`);
}

export type Step =
  | { command: string; args: string[]; /** a failure is expected (e.g. stopping what does not run) and ignored */ mayFail?: boolean }
  | { write: string }
  | { remove: string }
  | { mkdir: string };

/** install: a first one; update: the file changed, the running service takes it up. */
export type ServiceAction = 'install' | 'update' | 'uninstall' | 'start' | 'stop' | 'restart' | 'status';

const run = (command: string, args: string[], mayFail = false): Step => (mayFail ? { command, args, mayFail } : { command, args });

/** The steps of an action, in order. */
export function plan(action: ServiceAction, target: ServiceTarget): Step[] {
  const { file } = target;
  if (target.manager === 'systemd') {
    const ctl = (...args: string[]) => run('systemctl', target.system ? args : ['--user', ...args]);
    const unit = `${target.name}.service`;
    switch (action) {
      case 'install':
        return [{ write: file }, ctl('daemon-reload'), ctl('enable', unit), ctl('start', unit)];
      case 'update':
        return [{ write: file }, ctl('daemon-reload'), ctl('enable', unit), ctl('restart', unit)];
      case 'uninstall':
        return [ctl('disable', '--now', unit), { remove: file }, ctl('daemon-reload')];
      case 'status':
        return [ctl('show', '-p', 'ActiveState,SubState,MainPID,NRestarts', unit)];
      default:
        return [ctl(action, unit)];
    }
  }
  if (target.manager === 'launchd') {
    const domain = `gui/${target.uid ?? 0}`;
    const service = `${domain}/${launchdLabel(target.name)}`;
    const bootstrap = run('launchctl', ['bootstrap', domain, file]);
    // bootout of an agent that is not loaded fails; that is the state it is meant to reach
    const bootout = run('launchctl', ['bootout', service], true);
    const logs = target.logDir ? [{ mkdir: target.logDir }] : [];
    switch (action) {
      case 'install':
        return [...logs, { write: file }, bootout, bootstrap];
      case 'update':
        return [...logs, { write: file }, bootout, bootstrap];
      case 'uninstall':
        return [bootout, { remove: file }];
      // a loaded agent with KeepAlive is restarted when it exits: stop unloads it, start loads it
      case 'start':
        return [...logs, bootstrap];
      case 'stop':
        return [bootout];
      case 'restart':
        return [run('launchctl', ['kickstart', '-k', service])];
      case 'status':
        return [run('launchctl', ['print', service], true)];
    }
  }
  const tn = taskName(target.name);
  const runTask = run('schtasks', ['/Run', '/TN', tn]);
  const end = run('schtasks', ['/End', '/TN', tn], true);
  switch (action) {
    case 'install':
    case 'update':
      return [{ write: file }, ...(action === 'update' ? [end] : []), run('schtasks', ['/Create', '/TN', tn, '/XML', file, '/F']), runTask];
    case 'uninstall':
      return [end, run('schtasks', ['/Delete', '/TN', tn, '/F']), { remove: file }];
    case 'start':
      return [runTask];
    case 'stop':
      return [end];
    case 'restart':
      return [end, runTask];
    case 'status':
      return [run('schtasks', ['/Query', '/TN', tn, '/FO', 'LIST', '/V'], true)];
  }
}

/** A step as a line for the user (`--print`, errors). */
export function describeStep(step: Step): string {
  if ('write' in step) return `write ${step.write}`;
  if ('remove' in step) return `remove ${step.remove}`;
  if ('mkdir' in step) return `mkdir -p ${step.mkdir}`;
  return [step.command, ...step.args].map((a) => (/^[\w@%+=:,./\\-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

export interface ServiceStatus {
  state: string;
  active: boolean;
  pid: number | null;
  restarts: number | null;
}

/** What a manager's status command printed, in its own words, as one status. */
export function parseStatus(manager: ServiceManager, output: string, exitStatus: number): ServiceStatus {
  const field = (re: RegExp) => re.exec(output)?.[1]?.trim();
  const num = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : null);
  if (manager === 'systemd') {
    const state = field(/^ActiveState=(.*)$/m) ?? 'unknown';
    const sub = field(/^SubState=(.*)$/m);
    const pid = num(field(/^MainPID=(.*)$/m));
    return { state: sub ? `${state} (${sub})` : state, active: state === 'active', pid: pid || null, restarts: num(field(/^NRestarts=(.*)$/m)) };
  }
  if (manager === 'launchd') {
    if (exitStatus !== 0) return { state: 'not loaded', active: false, pid: null, restarts: null };
    const state = field(/^\s*state = (.*)$/m) ?? 'unknown';
    const runs = num(field(/^\s*runs = (.*)$/m));
    return { state, active: state === 'running', pid: num(field(/^\s*pid = (.*)$/m)), restarts: runs === null ? null : Math.max(0, runs - 1) };
  }
  if (exitStatus !== 0) return { state: 'not registered', active: false, pid: null, restarts: null };
  const state = field(/^Status:\s*(.*)$/m) ?? 'unknown';
  return { state, active: state === 'Running', pid: null, restarts: null };
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv): RunResult {
  const result = spawnSync(command, args, { encoding: 'utf8', env, timeout: 60_000, windowsHide: true });
  if (result.error) return { status: 127, stdout: '', stderr: result.error.message };
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** The line for a user systemd manager that cannot be reached, and how to go on without it. */
export const NO_USER_BUS =
  'this session has no systemd user manager to talk to (systemctl --user cannot connect to its bus: a root shell, su or a container without a login session?); install a system unit that runs as your user with --system (as root), or run svc serve under your own supervisor';

const busFailure = (stderr: string) => /Failed to connect to bus|No medium found|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR/i.test(stderr);

/** The one line for a manager's program missing from PATH. */
export function missingManagerLine(manager: ServiceManager, system = false): string {
  const program = MANAGER_COMMAND[manager];
  const what = manager === 'systemd' ? `this system has no systemd ${system ? '' : 'user '}manager` : manager === 'launchd' ? 'launchd is not reachable' : 'Task Scheduler is not reachable';
  return `${program} not found: ${what}; run svc serve under your own supervisor, or --print to see the ${manager === 'systemd' ? 'unit' : manager === 'launchd' ? 'agent' : 'task'}`;
}

export interface ExecuteOptions {
  env: NodeJS.ProcessEnv;
  /** What each `write` step writes. */
  files: ReadonlyMap<string, string | Buffer>;
  /** Runs a command (default: runCommand, no shell); tests and callers that want the output pass their own. */
  runner?: (command: string, args: string[], env: NodeJS.ProcessEnv) => RunResult;
}

/** Runs the steps in order; the first failure (a step that may not fail) throws a ServiceError naming it. */
export function execute(steps: Step[], options: ExecuteOptions): RunResult[] {
  const runner = options.runner ?? runCommand;
  const results: RunResult[] = [];
  for (const step of steps) {
    if ('write' in step) {
      const content = options.files.get(step.write);
      if (content === undefined) throw new Error(`no content for ${step.write}`);
      writeFile(step.write, content);
    } else if ('remove' in step) rmSync(step.remove, { force: true });
    else if ('mkdir' in step) mkdirSync(step.mkdir, { recursive: true });
    else {
      const result = runner(step.command, step.args, options.env);
      results.push(result);
      if (result.status === 0 || step.mayFail) continue;
      if (step.command === 'systemctl' && step.args[0] === '--user' && busFailure(result.stderr)) throw new ServiceError(NO_USER_BUS);
      const why = (result.stderr || result.stdout).trim().split('\n')[0] ?? '';
      throw new ServiceError(`\`${describeStep(step)}\` failed (exit ${result.status})${why ? `: ${why}` : ''}`);
    }
  }
  return results;
}

function writeFile(path: string, content: string | Buffer): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { mode: 0o644 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ServiceError(`cannot write ${path}: permission denied${path.startsWith('/etc/') ? ' (a system unit needs root: sudo svc service install --system)' : ''}`);
    }
    throw err;
  }
}

/** Asks systemctl --user whether its manager is reachable before anything is written; throws the one line if not. */
export function checkUserBus(env: NodeJS.ProcessEnv, runner: ExecuteOptions['runner'] = runCommand): void {
  // as root without a login session systemctl --user has nothing to connect to, whatever it would say
  if (process.getuid?.() === 0 && !env.XDG_RUNTIME_DIR) throw new ServiceError(NO_USER_BUS);
  const result = runner('systemctl', ['--user', 'show-environment'], env);
  if (result.status !== 0 && busFailure(result.stderr)) throw new ServiceError(NO_USER_BUS);
}

/** The linger warning for a user unit: without linger the user manager (and svc) stop at logout. */
export function lingerWarning(user: string, env: NodeJS.ProcessEnv, runner: ExecuteOptions['runner'] = runCommand): string | null {
  if (!findOnPath('loginctl', env)) return null;
  const result = runner('loginctl', ['show-user', user, '-p', 'Linger'], env);
  if (result.status !== 0 || !/^Linger=no\s*$/m.test(result.stdout)) return null;
  return `warning: lingering is off for ${user}: the service starts only when you log in and stops when you log out; \`loginctl enable-linger ${user}\` keeps it running (may need sudo)`;
}
