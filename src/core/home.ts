// The per-user data directory and the paths inside it.
import { mkdirSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface HomePaths {
  root: string;
  database: string;
  token: string;
  traces: string;
  media: string;
  browserProfile: string;
  /** Process ids of running provider CLIs, reaped on the next start after a crash. */
  pids: string;
  /** The running server's pid and address (src/core/server-lock.ts). */
  lock: string;
  /** The user's web-ai vendor profiles (overrides and additions to the built-in ones). */
  webAiProfiles: string;
  /** The memory store's Markdown files (created by the memory module on first use). */
  memory: string;
  /** MCP servers installed from the npm registry (an npm prefix; created by the first install). */
  mcp: string;
  /** The user's own skills, one directory each (svc never writes there). */
  skills: string;
  /** Skills installed from npm packages (an npm prefix). */
  skillsNpm: string;
  /** svc's own Pi configuration directory (PI_CODING_AGENT_DIR of pi runs): models.json, sessions. */
  piAgent: string;
  /** Runs' private directories (files, MCP configs, skill links), each deleted when its run ends. */
  runs: string;
  /** Worker worktrees (git worktrees of the user's repository, one per isolated run; made on first use). */
  worktrees: string;
  /** The server's VAPID key pair for push (src/modules/push/vapid.ts; made on first use). */
  vapidKeys: string;
  /** This machine's membership of a fleet, when it joined one (modules/fleet/membership.ts). */
  fleetMembership: string;
  /** Its NKey seed (mode 0600; never sent anywhere). */
  fleetKey: string;
  /** A NATS operator's credentials for this machine, when it joined an operator-owned fleet (mode 0600). */
  fleetCreds: string;
}

export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_HOME ? resolve(env.SVC_HOME) : join(homedir(), '.svc');
}

export function homePaths(root: string): HomePaths {
  return {
    root,
    database: join(root, 'svc.db'),
    token: join(root, 'token'),
    traces: join(root, 'traces'),
    media: join(root, 'media'),
    browserProfile: join(root, 'browser-profile'),
    pids: join(root, 'pids'),
    lock: join(root, 'server.lock'),
    webAiProfiles: join(root, 'web-ai-profiles.json'),
    memory: join(root, 'memory'),
    mcp: join(root, 'mcp'),
    skills: join(root, 'skills'),
    skillsNpm: join(root, 'skills-npm'),
    piAgent: join(root, 'pi-agent'),
    runs: join(root, 'runs'),
    worktrees: join(root, 'worktrees'),
    vapidKeys: join(root, 'push-vapid.json'),
    fleetMembership: join(root, 'fleet', 'membership.json'),
    fleetKey: join(root, 'fleet', 'machine.nk'),
    fleetCreds: join(root, 'fleet', 'machine.creds'),
  };
}

/** Creates the data directory (private to the user) and its sub-directories. */
export function ensureHome(root: string): HomePaths {
  const paths = homePaths(root);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  for (const dir of [paths.traces, paths.media, paths.pids]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return paths;
}
