// What a service of the machine runs: one description of `svc serve` (or `svc dashboard serve`) that the
// systemd, launchd and Task Scheduler renderers each turn into their own file. Pure: every fact about the
// machine (the Node binary, PATH, the user's home) is passed in, so the same input renders the same file.
import { posix, win32 } from 'node:path';

export type ServiceKind = 'serve' | 'dashboard';
export type ServiceName = 'svc' | 'svc-dashboard';

export interface ServiceSpec {
  kind: ServiceKind;
  name: ServiceName;
  description: string;
  /** The Node binary, absolute and with symlinks resolved: a version manager's shim may not exist at boot. */
  node: string;
  /** bin/svc.js of this install. */
  script: string;
  /** The arguments after the script, e.g. ['serve', '--port', '3457', '--home', '/home/u/.svc']. */
  args: string[];
  /** svc's data directory (the manager's home with --dashboard). */
  home: string;
  /** The user's home directory: the working directory and HOME of the service. */
  userHome: string;
  /** PATH at install: the provider CLIs svc runs are found through it (a service manager's own PATH is minimal). */
  path: string;
  /** The user's variables file (src/service/env-file.ts). */
  envFile: string;
  /** Where svc writes its log (`<home>/logs`). */
  logDir: string;
  /** The account a system unit runs as (systemd --system only; a user unit runs as its user). */
  user?: string;
}

export interface SpecInput {
  kind: ServiceKind;
  port: number;
  home: string;
  userHome: string;
  node: string;
  script: string;
  /** PATH as the installing shell has it. */
  pathEnv: string | undefined;
  platform: NodeJS.Platform;
  user?: string;
}

export const serviceName = (kind: ServiceKind): ServiceName => (kind === 'serve' ? 'svc' : 'svc-dashboard');

/** The path module of a platform: the spec of a Windows task is rendered with Windows paths even in a test on Linux. */
export const pathsOf = (platform: NodeJS.Platform) => (platform === 'win32' ? win32 : posix);

/**
 * PATH without duplicates and without relative entries (`.` or an empty entry would make the service's
 * commands depend on its working directory), in its order.
 */
export function servicePath(pathEnv: string | undefined, platform: NodeJS.Platform): string {
  const paths = pathsOf(platform);
  const seen = new Set<string>();
  for (const entry of (pathEnv ?? '').split(paths.delimiter)) {
    const dir = entry.trim();
    if (dir && paths.isAbsolute(dir) && !seen.has(dir)) seen.add(dir);
  }
  return [...seen].join(paths.delimiter);
}

export function buildSpec(input: SpecInput): ServiceSpec {
  const paths = pathsOf(input.platform);
  const name = serviceName(input.kind);
  const command = input.kind === 'serve' ? ['serve'] : ['dashboard', 'serve'];
  return {
    kind: input.kind,
    name,
    description: input.kind === 'serve' ? 'svc: local agent runtime (svc serve)' : 'svc dashboard: manager of local svc instances (svc dashboard serve)',
    node: input.node,
    script: input.script,
    args: [...command, '--port', String(input.port), '--home', input.home],
    home: input.home,
    userHome: input.userHome,
    path: servicePath(input.pathEnv, input.platform),
    envFile: paths.join(input.home, 'service.env'),
    logDir: paths.join(input.home, 'logs'),
    ...(input.user ? { user: input.user } : {}),
  };
}
