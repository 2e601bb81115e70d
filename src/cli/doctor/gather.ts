// `svc doctor`'s facts, read from this machine: the server's answer, the installed service's file, the
// provider CLIs run the way the service would run them, the home's size and free space, the TLS
// certificate, push keys. All the I/O of doctor is here; checks.ts judges what it found. Secrets are
// read only where a check needs to know they exist (a key's variable name, a file's presence), and
// none of their values leaves this module.
import { X509Certificate } from 'node:crypto';
import { existsSync, lstatSync, openSync, readSync, closeSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { openDatabaseToRead, type Db } from '../../store/db.ts';
import { CliDetector, resolveExecutable } from '../../agent/detect.ts';
import { isExecutableFileSync } from '../../core/executable.ts';
import { PROVIDER_IDS, providerInfo } from '../../agent/providers/registry.ts';
import { homePaths } from '../../core/home.ts';
import { agentSettings, type AgentSettings } from '../../agent/settings.ts';
import { SettingsRepo } from '../../modules/settings/index.ts';
import { requestText } from '../http-client.ts';
import { authHeaders, type ServerTarget } from '../target.ts';
import { homeOf, installedService, optionValue, type InstalledService } from '../../service/installed.ts';
import type { DiskFacts, Facts, FleetFacts, ProviderFacts, PushFacts, ServerFacts, TlsFacts } from './checks.ts';
import { MEMBER_STATES } from '../../protocol/fleet.ts';
import { loadFleetMachine, type MemberState } from '../../modules/fleet/index.ts';
import { parseShebang } from './shebang.ts';

export interface GatherOptions {
  /** The data directory to look at. */
  home: string;
  target: ServerTarget;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** How long one `<cli> --version` may take: a node CLI on a busy machine can take seconds to start. */
const PROBE_TIMEOUT_MS = 10_000;
/** How long doctor waits for all of them (they run a few at a time). */
const PROVIDERS_WAIT_MS = 45_000;
/** The home walk stops after this many entries: a size for a person, not an audit. */
export const WALK_LIMIT = 200_000;

export async function gatherFacts(options: GatherOptions): Promise<Facts> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const { home, target } = options;
  const installed = findInstalled(platform, env);
  const namedHome = installed ? homeOf(installed.command) : undefined;
  const serviceHome = namedHome ? resolve(namedHome) : home;
  const paths = homePaths(home);
  const db = readHomeDatabase(paths.database);
  // The provider CLIs as the service sees them: its environment when it is installed (a service does
  // not get the shell's PATH), else this shell's; then agent.env, as the server gives every run.
  const providerEnv: NodeJS.ProcessEnv = { ...(installed ? installed.env : env), ...db.agent.env };
  const [server, providers] = await Promise.all([serverFacts(target), providerFacts(providerEnv, db.agent)]);
  return {
    server,
    service: { installed: installed ? { manager: installed.manager, file: installed.file, ...(namedHome ? { home: serviceHome } : {}) } : null, home },
    providers,
    providerContext: { underService: installed !== null, platform, envFile: join(serviceHome, 'service.env') },
    disk: diskFacts(home),
    tls: tlsFacts(installed, env, target),
    fleet: await fleetFacts(home, server.reachable ? (server.fleet ?? null) : null),
    push: pushFacts(paths.vapidKeys, db.subscriptions),
  };
}

/** This home's membership of a fleet (the fleet module loads only when there is one). */
async function fleetFacts(home: string, connection: MemberState | null): Promise<FleetFacts> {
  const file = homePaths(home).fleetMembership;
  if (!existsSync(file)) return { file, membership: 'absent', connection: null };
  const { readMembership } = await loadFleetMachine();
  const m = readMembership(home);
  return { file, membership: m ? { hub: m.url, machineId: m.machineId, name: m.name } : 'damaged', connection };
}

/** The user's service, else (Linux) a system unit. */
function findInstalled(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): InstalledService | null {
  return installedService('serve', { platform, env }) ?? (platform === 'linux' ? installedService('serve', { platform, env, system: true }) : null);
}

// ---------------------------------------------------------------------------------------------
// server

async function serverFacts(target: ServerTarget): Promise<ServerFacts> {
  const get = (path: string) => requestText(`${target.url}${path}`, { headers: authHeaders(target), timeoutMs: 3000, pin: target.pin });
  const url = shownUrl(target.url);
  try {
    // /api/runtime says whether it runs as a service; a server that refuses it (a remote one without
    // the token) still gives its version on /api/health
    let answer = await get('/api/runtime');
    if (!answer.ok) answer = await get('/api/health');
    const body = answer.ok ? (parseJson(answer.text) as { version?: unknown; service?: unknown; fleet?: { state?: unknown } | null } | undefined) : undefined;
    const fleetState = body?.fleet?.state;
    return {
      url,
      reachable: true,
      version: typeof body?.version === 'string' ? body.version : null,
      service: typeof body?.service === 'string' && body.service ? body.service : null,
      ...(typeof fleetState === 'string' && (MEMBER_STATES as readonly string[]).includes(fleetState) ? { fleet: fleetState as MemberState } : {}),
    };
  } catch (err) {
    return { url, reachable: false, error: ((err as Error).message || String(err)).replaceAll(target.url, url) };
  }
}

/** The address as shown: a user:password in a --url stays out of doctor's output. */
export function shownUrl(raw: string): string {
  try {
    const parsed = new URL(raw);
    if (!parsed.username && !parsed.password) return raw;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return raw;
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

// ---------------------------------------------------------------------------------------------
// the home's database: the agent settings and the push subscriptions

/** What doctor needs of the agent settings. Their variables (API keys among them) are used, never shown. */
type AgentFacts = Pick<AgentSettings, 'provider' | 'executables' | 'customCommand' | 'workingDir' | 'env'>;

/**
 * Only what doctor needs, and nothing written: opening it the server's way (openDatabase) would migrate
 * a database a running server holds. The agent section is read as the server reads it (its defaults
 * under what is stored, then its schema); no database yet, or one it cannot read: the defaults.
 */
function readHomeDatabase(path: string): { agent: AgentFacts; subscriptions: number | null } {
  if (!existsSync(path)) return { agent: agentSettings.defaults, subscriptions: 0 };
  let db: Db | undefined;
  try {
    db = openDatabaseToRead(path);
    db.pragma('busy_timeout = 2000');
    const stored = tryGet(() => new SettingsRepo(db!).readAll().agent);
    const parsed = agentSettings.schema.safeParse({ ...agentSettings.defaults, ...(isRecord(stored) ? stored : {}) });
    const count = tryGet(() => (db!.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n);
    return { agent: parsed.success ? parsed.data : agentSettings.defaults, subscriptions: count ?? null };
  } catch {
    return { agent: agentSettings.defaults, subscriptions: null };
  } finally {
    db?.close();
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** undefined when the query fails (an older database without that table). */
function tryGet<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// providers

async function providerFacts(env: NodeJS.ProcessEnv, agent: AgentFacts): Promise<ProviderFacts[]> {
  const workingDir = agent.workingDir || env.HOME || homedir();
  // The server's own detector, given the service's environment: the same PATH scan, the same login
  // files (under the service's HOME), `--version` run without a shell in that environment.
  const detector = new CliDetector({
    paths: () => agent.executables,
    customCommand: () => agent.customCommand,
    pathEnv: () => env.PATH,
    env: () => env,
    cwd: workingDir,
    workingDir: () => workingDir,
    timeoutMs: PROBE_TIMEOUT_MS,
    concurrency: 3,
  });
  let statuses;
  try {
    statuses = await detector.settled(PROVIDERS_WAIT_MS);
  } finally {
    await detector.close();
  }
  return Promise.all(
    PROVIDER_IDS.map(async (id): Promise<ProviderFacts> => {
      const info = providerInfo(id);
      const command = agent.executables[id]?.trim() || (id === 'custom' ? (agent.customCommand[0]?.trim() ?? '') : info.command);
      const loginKey = info.credentials?.env[0];
      const common = { id, displayName: info.displayName, command, isDefault: agent.provider === id, defaultProvider: agent.provider, ...(loginKey ? { loginKey } : {}) };
      const status = statuses[id];
      if (status.state !== 'ready') {
        return { ...common, path: null, version: null, pending: true, credentials: { state: 'unknown' }, readiness: { state: 'login_unknown', summary: '' } };
      }
      const runError = status.installed && status.error ? status.error : undefined;
      const interpreter = runError && status.path ? await interpreterOf(status.path, env.PATH) : undefined;
      return {
        ...common,
        path: status.installed ? status.path : null,
        version: status.version,
        ...(runError ? { runError } : {}),
        ...(interpreter ? { interpreter } : {}),
        credentials: status.credentials,
        readiness: status.readiness,
      };
    }),
  );
}

/** The program the CLI's `#!` line runs, and whether it can be found (on `pathEnv` for `env`). */
async function interpreterOf(path: string, pathEnv: string | undefined): Promise<ProviderFacts['interpreter']> {
  let head = '';
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const shebang = parseShebang(head);
  if (!shebang) return undefined;
  const found = shebang.viaEnv ? (await resolveExecutable(shebang.program, { pathEnv })) !== null : isExecutableFileSync(shebang.program);
  return { ...shebang, found };
}

// ---------------------------------------------------------------------------------------------
// disk

function diskFacts(home: string): DiskFacts {
  const exists = existsSync(home);
  const { bytes, truncated } = exists ? homeSize(home, WALK_LIMIT) : { bytes: 0, truncated: false };
  // a home not made yet will be made on the disk of its nearest existing parent
  let at = home;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let freeBytes: number | null = null;
  try {
    const fs = statfsSync(at);
    freeBytes = fs.bavail * fs.bsize;
  } catch {
    /* not every file system answers: the check says it does not know */
  }
  return { home, exists, bytes, truncated, freeBytes };
}

/** The bytes of the files under `root`, symlinks not followed, stopping after `limit` entries. */
export function homeSize(root: string, limit: number): { bytes: number; truncated: boolean } {
  let bytes = 0;
  let entries = 0;
  const dirs = [root];
  while (dirs.length) {
    const dir = dirs.pop()!;
    let list;
    try {
      list = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable or gone meanwhile: what can be read still counts
    }
    for (const entry of list) {
      if (++entries > limit) return { bytes, truncated: true };
      const path = join(dir, entry.name);
      if (entry.isDirectory()) dirs.push(path);
      else if (entry.isFile()) bytes += lstatSync(path, { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return { bytes, truncated: false };
}

// ---------------------------------------------------------------------------------------------
// tls

/**
 * The certificate svc serves with: `--tls-cert` in the service's command, else SVC_TLS_CERT in its
 * environment (service.env included); with no service, SVC_TLS_CERT in this shell, which `svc serve`
 * run from it would use. svc makes no certificate of its own: none of these means plain HTTP.
 */
function tlsFacts(installed: InstalledService | null, env: NodeJS.ProcessEnv, target: ServerTarget): TlsFacts {
  const candidates: [file: string | undefined, source: string, base: string][] = installed
    ? [
        [optionValue(installed.command, '--tls-cert'), '--tls-cert of the service', installed.env.HOME || homedir()],
        [installed.env.SVC_TLS_CERT, 'SVC_TLS_CERT of the service', installed.env.HOME || homedir()],
      ]
    : [[env.SVC_TLS_CERT, 'SVC_TLS_CERT in this shell', process.cwd()]];
  const found = candidates.find(([file]) => file?.trim());
  if (!found) return { configured: false, serverHttps: target.url.startsWith('https:') };
  const [raw, source, base] = found;
  const file = isAbsolute(raw!.trim()) ? raw!.trim() : resolve(base, raw!.trim());
  try {
    return { configured: true, file, source, validTo: new Date(new X509Certificate(readFileSync(file)).validTo) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const error = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable' : 'not a PEM certificate';
    return { configured: true, file, source, error };
  }
}

// ---------------------------------------------------------------------------------------------
// push

function pushFacts(file: string, subscriptions: number | null): PushFacts {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { file, keys: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'invalid', subscriptions };
  }
  // that both halves are there is enough: their values never leave this function
  const keys = parseJson(text) as { publicKey?: unknown; privateKey?: unknown } | undefined;
  const present = typeof keys?.publicKey === 'string' && typeof keys.privateKey === 'string' && keys.publicKey !== '' && keys.privateKey !== '';
  return { file, keys: present ? 'present' : 'invalid', subscriptions };
}
