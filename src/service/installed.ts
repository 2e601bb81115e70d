// The service `svc service install` left on this machine, read back from its file: which manager runs
// it, and the environment its process gets (for `svc doctor`: are the provider CLIs on the service's PATH?).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ServiceManager } from '../core/service-env.ts';
import { defaultHome } from '../core/home.ts';
import { readEnvFile } from './env-file.ts';
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

/** The value of an option in a command (`--opt value` or `--opt=value`), if it has one. */
export function optionValue(command: string[], option: string): string | undefined {
  const at = command.indexOf(option);
  return at >= 0 ? command[at + 1] : command.find((word) => word.startsWith(`${option}=`))?.slice(option.length + 1);
}

/** The data directory a service's command names (`--home`), if it names one. */
export const homeOf = (command: string[]) => optionValue(command, '--home');

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
  // an env file that cannot be read adds nothing: doctor judges the rest
  const envFileVars = (path: string | undefined): Record<string, string> => {
    try {
      return (path && readEnvFile(path)) || {};
    } catch {
      return {};
    }
  };
  if (manager === 'systemd') {
    const unit = parseSystemdUnit(bytes.toString('utf8'));
    const fromFiles = Object.assign({}, ...unit.environmentFiles.map(envFileVars)) as Record<string, string>;
    return { manager, file, env: { ...unit.environment, ...fromFiles }, command: unit.execStart };
  }
  if (manager === 'launchd') {
    const plist = parseLaunchdPlist(bytes.toString('utf8'));
    return { manager, file, env: { ...plist.environment, ...envFileVars(plist.environment.SVC_ENV_FILE) }, command: plist.programArguments };
  }
  // a task runs with the user's own environment (Task Scheduler sets none), and svc reads <home>/service.env
  const command = parseTaskCommand(decodeTaskXml(bytes));
  const taskHome = homeOf(command) ?? home;
  const own: Record<string, string> = {};
  for (const key of ['PATH', 'Path']) if (env[key]) own.PATH = env[key]!;
  own.HOME = userHome;
  return { manager, file, env: { ...own, ...envFileVars(paths.join(taskHome, 'service.env')) }, command };
}
