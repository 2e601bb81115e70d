// The service `svc service install` left on this machine, read back from its file: which manager runs
// it, and the environment its process gets (for `svc doctor`: are the provider CLIs on the service's PATH?).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ServiceManager } from '../core/service-env.ts';
import { defaultHome } from '../core/home.ts';
import { parseEnvFile } from './env-file.ts';
import { parseLaunchdPlist } from './launchd.ts';
import { managerFor, serviceFile } from './platform.ts';
import { pathsOf, serviceName, type ServiceKind } from './spec.ts';
import { parseSystemdUnit } from './systemd.ts';
import { decodeTaskXml, parseTaskCommand } from './windows.ts';

export interface InstalledService {
  manager: ServiceManager;
  file: string;
  /** What the service's process runs with: PATH, HOME, and the variables of its env file (those win, as under systemd). */
  env: Record<string, string>;
  /** The program and its arguments, as the file says (e.g. [node, bin/svc.js, 'serve', '--port', …]). */
  command: string[];
}

export interface InstalledOptions {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** systemd: the system unit (/etc/systemd/system) rather than the user's. */
  system?: boolean;
}

/** The home a kind of server uses by default (`svc serve`'s, or the dashboard's; src/cli/main.ts says the same). */
export function defaultServiceHome(kind: ServiceKind, env: NodeJS.ProcessEnv = process.env, userHome = homedir()): string {
  if (kind === 'serve') return env.SVC_HOME ? defaultHome(env) : pathsOf(process.platform).join(userHome, '.svc');
  return env.SVC_DASHBOARD_HOME ?? pathsOf(process.platform).join(userHome, '.svc-dashboard');
}

/** The value after `--home` in a command, if any. */
export const homeOf = (command: string[]) => {
  const at = command.indexOf('--home');
  return at >= 0 ? command[at + 1] : undefined;
};

/** The installed service of this kind, or null when none is (or its file cannot be read). */
export function installedService(kind: ServiceKind, options: InstalledOptions = {}): InstalledService | null {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  let manager: ServiceManager;
  try {
    manager = managerFor(platform);
  } catch {
    return null;
  }
  const paths = pathsOf(platform);
  const userHome = (platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  const home = defaultServiceHome(kind, env, userHome);
  const file = serviceFile(manager, serviceName(kind), { platform, env, userHome, home, system: options.system });
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  const readEnvFile = (path: string | undefined): Record<string, string> => {
    if (!path || !existsSync(path)) return {};
    try {
      return parseEnvFile(readFileSync(path, 'utf8'));
    } catch {
      return {};
    }
  };
  if (manager === 'systemd') {
    const unit = parseSystemdUnit(bytes.toString('utf8'));
    const fromFiles = Object.assign({}, ...unit.environmentFiles.map(readEnvFile)) as Record<string, string>;
    return { manager, file, env: { ...unit.environment, ...fromFiles }, command: unit.execStart };
  }
  if (manager === 'launchd') {
    const plist = parseLaunchdPlist(bytes.toString('utf8'));
    return { manager, file, env: { ...plist.environment, ...readEnvFile(plist.environment.SVC_ENV_FILE) }, command: plist.programArguments };
  }
  // a task runs with the user's own environment (Task Scheduler sets none), and svc reads <home>/service.env
  const command = parseTaskCommand(decodeTaskXml(bytes));
  const taskHome = homeOf(command) ?? home;
  const own: Record<string, string> = {};
  for (const key of ['PATH', 'Path']) if (env[key]) own.PATH = env[key]!;
  own.HOME = userHome;
  return { manager, file, env: { ...own, ...readEnvFile(paths.join(taskHome, 'service.env')) }, command };
}
