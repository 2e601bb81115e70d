// `svc service …`: svc (or the manager dashboard) as a service of this machine, under its own service
// manager (systemd, launchd, Task Scheduler; src/service/). The files and commands come from pure
// renderers and plans; this module is their edge: it reads the machine, checks, writes and runs.
import { createHash } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { LOG_FILES_KEPT } from '../core/log-file.ts';
import { PACKAGE_ROOT } from '../core/version.ts';
import { findOnPath } from '../core/executable.ts';
import { ENV_FILE_HEADER, ensureEnvFile } from '../service/env-file.ts';
import { defaultServiceHome, homeOf, installedService } from '../service/installed.ts';
import { launchdLogPaths, renderLaunchdPlist } from '../service/launchd.ts';
import {
  checkUserBus,
  describeStep,
  execute,
  lingerWarning,
  MANAGER_COMMAND,
  managerFor,
  missingManagerLine,
  parseStatus,
  plan,
  runCommand,
  serviceFile,
  ServiceError,
  type ServiceManager,
  type ServiceTarget,
} from '../service/platform.ts';
import { buildSpec, serviceName, type ServiceKind, type ServiceSpec } from '../service/spec.ts';
import { renderSystemdUnit } from '../service/systemd.ts';
import { decodeTaskXml, encodeTaskXml, renderTaskXml } from '../service/windows.ts';
import { serviceLogPath } from './service-log.ts';
import { DEFAULT_DASHBOARD_PORT } from './defaults.ts';

export type ServiceCommand = 'install' | 'uninstall' | 'start' | 'stop' | 'restart' | 'status' | 'logs';

export interface ServiceOptions {
  dashboard?: boolean;
  port?: number;
  home?: string;
  print?: boolean;
  force?: boolean;
  system?: boolean;
  json?: boolean;
  follow?: boolean;
  lines?: number;
}

/** Runs a service command; its exit status (0 ok, 1 failure, 2 bad usage). */
export async function runService(command: ServiceCommand, options: ServiceOptions, defaultPort: number): Promise<number> {
  try {
    const context = contextOf(options, defaultPort);
    switch (command) {
      case 'install':
        return await install(context, options);
      case 'uninstall':
        return uninstall(context);
      case 'status':
        return status(context, Boolean(options.json));
      case 'logs':
        return await logs(context, options);
      default:
        return control(context, command);
    }
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    console.error(`svc service: ${err.message}`);
    return err.exitCode;
  }
}

interface Context {
  kind: ServiceKind;
  manager: ServiceManager;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  userHome: string;
  /** The home given, else the installed service's, else the kind's default. */
  home: string;
  port: number;
  system: boolean;
  target: ServiceTarget;
}

function contextOf(options: ServiceOptions, defaultPort: number): Context {
  const kind: ServiceKind = options.dashboard ? 'dashboard' : 'serve';
  const platform = process.platform;
  const env = process.env;
  const manager = managerFor(platform);
  const system = Boolean(options.system);
  if (system && manager !== 'systemd') throw new ServiceError('--system is for systemd (Linux) only', 2);
  // a system unit installed with sudo runs as the user who ran sudo: their home, not root's
  const sudoUser = system ? sudoAccount(env) : undefined;
  const userHome = sudoUser?.home ?? homedir();
  const installed = installedService(kind, { platform, env, system });
  const home = options.home ? resolve(options.home) : (installed && homeOf(installed.command)) || defaultServiceHome(kind, env, userHome);
  const name = serviceName(kind);
  const target: ServiceTarget = {
    manager,
    name,
    file: serviceFile(manager, name, { platform, env, userHome, home, system }),
    system,
    ...(manager === 'launchd' ? { uid: process.getuid?.() ?? 0, logDir: join(userHome, 'Library', 'Logs', 'svc') } : {}),
  };
  return { kind, manager, platform, env, userHome, home, port: options.port ?? (kind === 'dashboard' ? DEFAULT_DASHBOARD_PORT : defaultPort), system, target };
}

interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** The account that ran `sudo` (from /etc/passwd), when this runs as root under sudo. */
function sudoAccount(env: NodeJS.ProcessEnv): Account | undefined {
  if (process.getuid?.() !== 0 || !env.SUDO_USER) return undefined;
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid, , home] = line.split(':');
      if (name === env.SUDO_USER && home) return { name, uid: Number(uid), gid: Number(gid), home };
    }
  } catch {
    // no passwd file to read: root's own home, as without sudo
  }
  return undefined;
}

/** The user a unit or task names: the one who ran sudo for a system unit, DOMAIN\name on Windows. */
function serviceUser(context: Context): string | undefined {
  if (context.manager === 'schtasks') return [context.env.USERDOMAIN, context.env.USERNAME ?? userInfo().username].filter(Boolean).join('\\');
  if (context.system) return context.env.SUDO_USER || userInfo().username;
  return undefined;
}

/** The file a manager reads, and its bytes. */
function render(spec: ServiceSpec, context: Context): string | Buffer {
  if (context.manager === 'systemd') return renderSystemdUnit(spec, { system: context.system });
  if (context.manager === 'launchd') return renderLaunchdPlist(spec);
  return encodeTaskXml(renderTaskXml(spec));
}

/** A file's text: a task's XML is UTF-16 with its mark, the others UTF-8. */
const asText = (content: string | Buffer) => (typeof content === 'string' ? content : decodeTaskXml(content));

async function install(context: Context, options: ServiceOptions): Promise<number> {
  const { target, manager, env } = context;
  const spec = buildSpec({
    kind: context.kind,
    port: context.port,
    home: context.home,
    userHome: context.userHome,
    // the binary itself: a version manager's shim (nvm, volta, asdf) may pick another Node, or none, at boot
    node: realpathSync(process.execPath),
    script: realpathSync(join(PACKAGE_ROOT, 'bin', 'svc.js')),
    pathEnv: env.PATH ?? env.Path,
    platform: context.platform,
    user: serviceUser(context),
  });
  const content = render(spec, context);
  const existing = readIfExists(target.file);
  const changed = existing !== undefined && !existing.equals(Buffer.from(content));
  const steps = plan(existing === undefined ? 'install' : 'update', target);

  if (options.print) {
    console.log(`# ${target.file}`);
    process.stdout.write(asText(content));
    if (existsSync(spec.envFile)) console.log(`# ${spec.envFile} (yours: kept as it is)`);
    else process.stdout.write(`# ${spec.envFile} (created once, never overwritten)\n${ENV_FILE_HEADER}`);
    console.log('# commands:');
    for (const step of steps) console.log(describeStep(step));
    return 0;
  }

  const state = readState(context.home);
  if (existing !== undefined && !changed) {
    ensureEnvFile(spec.envFile);
    console.log(`svc service: ${spec.name} is already installed, unchanged (${target.file})`);
    return 0;
  }
  if (changed && state.files[target.file] !== sha256(existing) && !options.force) {
    for (const line of lineDiff(asText(existing), asText(content), target.file)) console.log(line);
    throw new ServiceError(`${target.file} was changed since svc wrote it (the diff above: - on disk, + what svc would write); --force replaces it`);
  }
  // the checks, before anything is written
  ensureManagerReachable(context);
  // a busy port is this service's own when it is installed already (re-installing it): anything else is in the way
  if (existing === undefined && !(await portFree(context.port))) {
    throw new ServiceError(`port ${context.port} on 127.0.0.1 is already in use: stop what listens there (another svc?), or install with --port <n>`);
  }

  const created = ensureEnvFile(spec.envFile);
  execute(steps, { env, files: new Map([[target.file, content]]) });
  state.files[target.file] = sha256(content);
  writeState(context.home, state);
  // under sudo the home and its files were made by root; the service runs as the user and writes there
  const owner = context.system ? sudoAccount(env) : undefined;
  if (owner) for (const path of [context.home, spec.envFile, statePath(context.home)]) chownSync(path, owner.uid, owner.gid);

  console.log(`svc service: ${spec.name} ${existing === undefined ? 'installed and started' : 'updated and restarted'}: ${target.file}`);
  console.log(`  runs: ${[spec.node, spec.script, ...spec.args].join(' ')}`);
  const flag = dashboardFlag(context);
  console.log(`  variables: ${spec.envFile}${created ? ' (created)' : ''}; after a change: svc service restart${flag}`);
  console.log(`  status: svc service status${flag}; log: svc service logs${flag}`);
  if (manager === 'systemd' && !context.system) {
    const warning = lingerWarning(userInfo().username, env);
    if (warning) console.error(`svc service: ${warning}`);
  }
  return 0;
}

/** Throws the one line when the manager's program is missing, or (systemd user units) its user manager cannot be reached. */
function ensureManagerReachable({ manager, env, system }: Context): void {
  if (!findOnPath(MANAGER_COMMAND[manager], env)) throw new ServiceError(missingManagerLine(manager, system));
  if (manager === 'systemd' && !system) checkUserBus(env);
}

/** ` --dashboard` after a command the user may run next, for the dashboard's service. */
const dashboardFlag = (context: Context) => (context.kind === 'dashboard' ? ' --dashboard' : '');

function uninstall(context: Context): number {
  const { target, env } = context;
  if (!existsSync(target.file)) {
    console.log(`svc service: ${target.name} is not installed (no ${target.file})`);
    return 0;
  }
  ensureManagerReachable(context);
  execute(plan('uninstall', target), { env, files: new Map() });
  const state = readState(context.home);
  if (state.files[target.file]) {
    delete state.files[target.file];
    if (existsSync(context.home)) writeState(context.home, state);
  }
  console.log(`svc service: ${target.name} uninstalled (removed ${target.file}); its data in ${context.home} and ${join(context.home, 'service.env')} are kept`);
  return 0;
}

function control(context: Context, action: 'start' | 'stop' | 'restart'): number {
  const { target, env } = context;
  if (!existsSync(target.file)) throw new ServiceError(`${target.name} is not installed: svc service install${dashboardFlag(context)}`);
  ensureManagerReachable(context);
  execute(plan(action, target), { env, files: new Map() });
  console.log(`svc service: ${target.name} ${action === 'stop' ? 'stopped' : action === 'start' ? 'started' : 'restarted'}`);
  return 0;
}

export interface StatusReport {
  name: string;
  manager: ServiceManager;
  installed: boolean;
  file: string;
  active: boolean;
  state: string;
  pid: number | null;
  restarts: number | null;
  home: string;
  log: string;
}

/** Exit 0 when the service runs, 1 when it is not installed or not running (as `systemctl is-active`). */
function status(context: Context, json: boolean): number {
  const { target, manager, env } = context;
  const installed = existsSync(target.file);
  let parsed = { state: 'not installed', active: false, pid: null as number | null, restarts: null as number | null };
  if (installed) {
    ensureManagerReachable(context);
    let output = { status: 0, stdout: '', stderr: '' };
    execute(plan('status', target), { env, files: new Map(), runner: (c, a, e) => (output = runCommand(c, a, e)) });
    parsed = parseStatus(manager, output.stdout, output.status);
  }
  const report: StatusReport = { name: target.name, manager, installed, file: target.file, ...parsed, home: context.home, log: logPath(context) };
  if (json) console.log(JSON.stringify(report, null, 2));
  else for (const line of statusLines(report)) console.log(line);
  return report.active ? 0 : 1;
}

export function statusLines(r: StatusReport): string[] {
  if (!r.installed) return [`${r.name}: not installed (${r.manager}; would be ${r.file})`, `install it: svc service install${r.name === 'svc-dashboard' ? ' --dashboard' : ''}`];
  return [
    `${r.name}: installed (${r.manager}), ${r.active ? 'running' : 'not running'}: ${r.state}`,
    ...(r.pid !== null ? [`pid ${r.pid}`] : []),
    ...(r.restarts !== null ? [`restarts: ${r.restarts}`] : []),
    `file: ${r.file}`,
    `data directory: ${r.home}`,
    `log: ${r.log}`,
  ];
}

// ---- the unit file's state: what svc wrote ----

interface ServiceState {
  /** file path → SHA-256 (hex) of what svc's last install wrote there */
  files: Record<string, string>;
}

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const statePath = (home: string) => join(home, 'service-state.json');

function readState(home: string): ServiceState {
  try {
    const state = JSON.parse(readFileSync(statePath(home), 'utf8')) as Partial<ServiceState>;
    return { files: state.files && typeof state.files === 'object' ? state.files : {} };
  } catch {
    return { files: {} };
  }
}

function writeState(home: string, state: ServiceState): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(statePath(home), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

function readIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Whether nothing listens on 127.0.0.1:port (a brief listen; any error but EADDRINUSE counts as free: svc itself will say). */
function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'EADDRINUSE'));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

/**
 * A line diff of two texts (longest common subsequence of lines): ` ` kept, `-` only in `before`, `+`
 * only in `after`. Unit files are a few dozen lines, so the quadratic table is nothing.
 */
export function lineDiff(before: string, after: string, label: string): string[] {
  const a = before.replace(/\r\n/g, '\n').split('\n');
  const b = after.replace(/\r\n/g, '\n').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out = [`--- ${label} (on disk)`, `+++ ${label} (what svc would write)`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(` ${a[i++]}`);
      j++;
    } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`-${a[i++]}`);
    else out.push(`+${b[j++]}`);
  }
  return out;
}

// ---- logs ----

const logPath = (context: Context) => serviceLogPath(context.home, context.kind === 'serve' ? 'svc' : 'dashboard');

/** A log line as the user reads it: `<ts> <level> <msg>` (a line that is not svc's JSON, as it is). */
export function renderLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { ts?: unknown; level?: unknown; msg?: unknown };
    if (entry && typeof entry === 'object' && typeof entry.msg === 'string') return `${String(entry.ts ?? '')} ${String(entry.level ?? '')} ${entry.msg}`;
  } catch {
    // not JSON: shown as written
  }
  return line;
}

/** The last `count` lines of the texts, oldest file first (empty lines dropped). */
export function lastLines(texts: string[], count: number): string[] {
  const lines = texts.flatMap((t) => t.split('\n')).filter((l) => l.trim() !== '');
  return count === 0 ? [] : lines.slice(-count);
}

/** The rotated files (the oldest first, as many as the writer keeps) and the current one. */
const logFiles = (path: string) => [...Array.from({ length: LOG_FILES_KEPT }, (_, i) => `${path}.${LOG_FILES_KEPT - i}`), path];

async function logs(context: Context, options: ServiceOptions): Promise<number> {
  const path = logPath(context);
  const count = options.lines ?? 50;
  const files = logFiles(path).filter(existsSync);
  const contents = files.map((f) => readFileSync(f));
  const texts = contents.map((c) => c.toString('utf8'));
  if (texts.length === 0) {
    console.log(`no log yet: once svc runs as a service it writes ${path}${context.manager === 'launchd' ? ` (launchd keeps its output in ${launchdLogPaths({ userHome: context.userHome, name: context.target.name }).stderr})` : ''}`);
  }
  for (const line of lastLines(texts, count)) console.log(renderLogLine(line));
  // followed from the end of what was just printed, not from the file's size later: a line written meanwhile is shown
  if (options.follow) await follow(path, files.at(-1) === path ? contents.at(-1)!.length : 0);
  return 0;
}

/**
 * Prints what is appended to the log until SIGINT, polling every 250 ms. A rotation (the file replaced
 * by a new one, the old one now `.1`) is followed by the rest of the old file and then the new one; a
 * file that shrank was truncated: read again from its start.
 */
async function follow(path: string, from: number): Promise<void> {
  let at = from;
  let ino = inodeOf(path);
  let partial = '';
  const emit = (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) console.log(renderLogLine(line));
  };
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const now = inodeOf(path);
      if (now === undefined) return;
      if (ino !== undefined && now !== ino) {
        // rotated: the old file is `.1` now
        if (inodeOf(`${path}.1`) === ino) emit(readFrom(`${path}.1`, at).text);
        at = 0;
      }
      ino = now;
      const size = sizeOf(path) ?? 0;
      if (size < at) at = 0;
      if (size > at) {
        const read = readFrom(path, at);
        emit(read.text);
        at = read.end;
      }
    }, 250);
    process.once('SIGINT', () => {
      clearInterval(timer);
      done();
    });
  });
}

const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size;
const inodeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.ino;

/** The file's text from `offset` to its end, and where that end is. */
function readFrom(path: string, offset: number): { text: string; end: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { text: '', end: offset };
  }
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(64 * 1024);
    let pos = offset;
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, pos)) > 0; pos += n) chunks.push(Buffer.from(buffer.subarray(0, n)));
    return { text: Buffer.concat(chunks).toString('utf8'), end: pos };
  } finally {
    closeSync(fd);
  }
}
