// `svc doctor`'s judgements: each check turns the facts gather.ts collected into one line, ok, warn or
// fail, with what it found and, when something is to be done, the command or change that does it. Pure:
// no file, process or network here, so every status and its fix text is tested with plain objects.
// Nothing here may put a secret in a line: the facts carry names (a variable's, a file's), never values.
import { dirname } from 'node:path';
import type { CredentialState, Readiness } from '../../agent/readiness.ts';
import type { MemberState } from '../../modules/fleet/index.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  id: string;
  status: CheckStatus;
  summary: string;
  /** For warn and fail: what to run or change. On an ok line: a hint. */
  fix?: string;
}

export interface Report {
  checks: Check[];
  /** No check failed (warnings allowed). */
  ok: boolean;
}

export const report = (checks: Check[]): Report => ({ checks, ok: checks.every((c) => c.status !== 'fail') });

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// server

export type ServerFacts =
  | {
      url: string;
      reachable: true;
      version: string | null;
      /** the manager it runs under, per its runtime answer */
      service: string | null;
      /** its connection to its fleet's hub, per its runtime answer, when it joined one */
      fleet?: MemberState | null;
    }
  | { url: string; reachable: false; error: string };

export function serverCheck(facts: ServerFacts, serviceInstalled: boolean): Check {
  if (!facts.reachable) {
    // an installed service that does not answer has stopped or fails at start: its log says why
    const fix = serviceInstalled ? 'svc service start (it is installed; svc service logs shows why it stopped), or svc serve' : 'svc serve, or svc service install to keep it running';
    return { id: 'server', status: 'warn', summary: `no svc server answers at ${facts.url} (${facts.error})`, fix };
  }
  const version = facts.version ? `svc ${facts.version}` : 'svc (version not given)';
  const how = facts.service ? `as a service (${facts.service})` : 'not as a service';
  return { id: 'server', status: 'ok', summary: `${version} is running at ${facts.url}, ${how}` };
}

// ---------------------------------------------------------------------------------------------
// service

export interface ServiceFacts {
  installed: { manager: string; file: string; /** its --home, when its command names one */ home?: string } | null;
  /** The data directory doctor looks at. */
  home: string;
}

export function serviceCheck(facts: ServiceFacts): Check {
  const hint = 'svc service install';
  if (!facts.installed) return { id: 'service', status: 'ok', summary: 'not installed (svc runs when you start it)', fix: hint };
  const { manager, file, home } = facts.installed;
  // the checks below read this doctor's home; a service on another one is worth knowing about
  const other = home && home !== facts.home ? `; it serves ${home}, not ${facts.home}` : '';
  return { id: 'service', status: 'ok', summary: `installed (${manager}, ${file})${other}` };
}

// ---------------------------------------------------------------------------------------------
// providers

export interface ProviderFacts {
  id: string;
  displayName: string;
  /** The executable looked for: its name or the path from settings; '' when none is configured (custom). */
  command: string;
  /** The provider the agent runs with (settings agent.provider). */
  isDefault: boolean;
  defaultProvider: string;
  /** Where it was found on the PATH it was looked for on; null when not found. */
  path: string | null;
  /** `<cli> --version` run in the service's environment: the version, or why it gave none. */
  version: string | null;
  runError?: string;
  /** The program its `#!` line runs, and whether it was found, when the run failed. */
  interpreter?: { program: string; viaEnv: boolean; found: boolean };
  /** Still being checked when doctor stopped waiting. */
  pending?: boolean;
  credentials: CredentialState;
  readiness: Readiness;
  /** The first variable that can hold its key instead of a login (its name only). */
  loginKey?: string;
}

export interface ProviderContext {
  /** The environment is the installed service's (true) or this shell's (false). */
  underService: boolean;
  platform: NodeJS.Platform;
  /** <home>/service.env: where the service's variables are edited. */
  envFile: string;
}

export function providerCheck(f: ProviderFacts, ctx: ProviderContext): Check {
  const id = `provider.${f.id}`;
  const where = ctx.underService ? "the service's PATH" : 'PATH';
  const defaultNote = f.isDefault ? ' (the default provider)' : ` (the default provider is ${f.defaultProvider})`;
  const missingStatus: CheckStatus = f.isDefault ? 'fail' : 'warn';
  if (f.pending) return { id, status: 'warn', summary: `${f.displayName}: still being checked when doctor stopped waiting`, fix: `run ${f.command || f.id} --version in a terminal` };

  if (!f.path) {
    // custom is the user's own program: nothing is missing until someone means to use it
    if (!f.command) return f.isDefault ? { id, status: 'fail', summary: `${f.readiness.summary}${defaultNote}`, fix: 'give its command in Settings (agent.customCommand), or choose another provider' } : { id, status: 'ok', summary: `${f.displayName}: not set up` };
    const bare = !/[\\/]/.test(f.command) && !f.command.startsWith('~');
    const found = bare ? `'${f.command}' is not on ${where}` : `${f.command} is not an executable file`;
    // a service keeps the PATH it was installed with: a CLI installed since then is not on it
    const reinstall = ctx.underService ? ', then svc service install again from a shell where it runs (the service keeps the PATH it was installed with)' : '';
    const install = f.readiness.fix ?? 'install it';
    return { id, status: missingStatus, summary: `${f.displayName}: ${found}${defaultNote}`, fix: `${install}${reinstall}; or give its path in Settings (agent.executables)` };
  }

  if (f.runError) {
    // A `#!/usr/bin/env node` CLI finds node through PATH: under a service (whose PATH is not the
    // shell's) that is the usual way a CLI that works in a terminal fails in svc.
    if (f.interpreter && !f.interpreter.found) {
      const line = f.interpreter.viaEnv ? `#!/usr/bin/env ${f.interpreter.program}` : `#!${f.interpreter.program}`;
      const summary = `${f.displayName} at ${f.path} cannot run: its first line (${line}) finds no ${f.interpreter.program}${f.interpreter.viaEnv ? ` on ${where}` : ''}`;
      const fix = ctx.underService
        ? `add ${basename(f.interpreter.program)}'s directory to the service's PATH: run svc service install again from a shell where ${f.command} works, or set PATH in ${ctx.envFile} and svc service restart`
        : `add ${basename(f.interpreter.program)}'s directory to PATH`;
      return { id, status: 'fail', summary, fix };
    }
    return { id, status: 'fail', summary: `${f.displayName} at ${f.path} does not run: ${f.runError}`, fix: `run ${f.path} --version in a terminal to see why` };
  }

  const version = f.version ? ` ${f.version}` : '';
  const found = `${f.displayName}${version} at ${f.path}`;
  const r = f.readiness;
  if (r.state === 'needs_login') {
    // the login command is readiness's; a key in agent.env is the login a service can always see
    const login = `${r.fix ? `run ${r.fix} in a terminal and log in` : 'log in'}${f.loginKey ? `, or set ${f.loginKey} in Settings (agent.env)` : ''}`;
    const fix = [login, keychainNote(f, ctx)].filter(Boolean).join('; ');
    return { id, status: missingStatus, summary: `${found}, not logged in${defaultNote}`, fix };
  }
  if (r.state === 'login_unknown') return { id, status: 'ok', summary: `${found}; svc cannot see its login (if it says it is not logged in: ${r.fix ?? 'log in'})` };
  const login = f.credentials.state === 'found' ? `, logged in (${f.credentials.source})` : '';
  return { id, status: 'ok', summary: `${found}${login}${f.isDefault ? ', the default provider' : ''}` };
}

/**
 * On macOS some CLIs (Claude Code) keep their login in the login keychain, not in a file. svc only
 * sees files and variables, and a launchd agent may not reach that keychain either: a key in
 * service.env is the login such a service can use.
 */
function keychainNote(f: ProviderFacts, ctx: ProviderContext): string {
  if (ctx.platform !== 'darwin' || f.credentials.state !== 'missing') return '';
  return `on macOS a login kept only in the keychain is invisible to svc and to a launchd service: put an API key in ${ctx.envFile} (svc service restart) if ${f.displayName} works in your terminal`;
}

const basename = (path: string) => path.split(/[\\/]/).pop() || path;

// ---------------------------------------------------------------------------------------------
// disk

export interface DiskFacts {
  home: string;
  exists: boolean;
  /** Bytes of the files under the home (as far as the walk went). */
  bytes: number;
  /** The walk stopped at its bound: `bytes` is a lower bound. */
  truncated: boolean;
  /** Free bytes for this user on the home's file system; null when it could not be asked. */
  freeBytes: number | null;
}

export function diskCheck(f: DiskFacts): Check {
  const used = f.exists ? `${f.home} holds ${f.truncated ? 'more than ' : ''}${size(f.bytes)}` : `${f.home} does not exist yet`;
  if (f.freeBytes === null) return { id: 'disk', status: 'warn', summary: `${used}; free space unknown`, fix: `df -h ${f.home}` };
  const free = `${size(f.freeBytes)} free`;
  const fix = `free space on that disk (svc status shows what the home holds; old traces go with the traces settings)`;
  if (f.freeBytes < 100 * MiB) return { id: 'disk', status: 'fail', summary: `${used}; only ${free}`, fix };
  if (f.freeBytes < GiB) return { id: 'disk', status: 'warn', summary: `${used}; only ${free}`, fix };
  return { id: 'disk', status: 'ok', summary: `${used}; ${free}` };
}

export function size(bytes: number): string {
  if (bytes >= GiB) return `${(bytes / GiB).toFixed(1)} GiB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

// ---------------------------------------------------------------------------------------------
// tls

export type TlsFacts =
  | { configured: false; /** the running server answers over https (its certificate file not known here) */ serverHttps: boolean }
  | { configured: true; file: string; /** where the setting came from, e.g. "--tls-cert of the service" */ source: string; validTo: Date }
  | { configured: true; file: string; source: string; error: string };

export function tlsCheck(f: TlsFacts, now: Date): Check {
  if (!f.configured) return { id: 'tls', status: 'ok', summary: f.serverHttps ? 'the running server serves HTTPS (its certificate file was given to it directly)' : 'plain HTTP on loopback' };
  if ('error' in f) return { id: 'tls', status: 'fail', summary: `the certificate ${f.file} (${f.source}) cannot be used: ${f.error}`, fix: `give a readable PEM certificate (${f.source})` };
  const days = Math.floor((f.validTo.getTime() - now.getTime()) / DAY_MS);
  const renew = `renew ${f.file} (mkcert, tailscale cert…) and restart svc (svc service restart)`;
  if (f.validTo.getTime() <= now.getTime()) return { id: 'tls', status: 'fail', summary: `the certificate ${f.file} expired on ${f.validTo.toISOString()}`, fix: renew };
  if (days < 30) return { id: 'tls', status: 'warn', summary: `the certificate ${f.file} expires in ${days} day${days === 1 ? '' : 's'} (${f.validTo.toISOString()})`, fix: renew };
  return { id: 'tls', status: 'ok', summary: `HTTPS with ${f.file}, valid until ${f.validTo.toISOString().slice(0, 10)} (${days} days)` };
}

// ---------------------------------------------------------------------------------------------
// fleet

export interface FleetFacts {
  /** <home>/fleet/membership.json */
  file: string;
  membership: 'absent' | 'damaged' | { hub: string; machineId: string; name: string };
  /** The running server's connection to the hub; null when no server answered with one. */
  connection: MemberState | null;
}

export function fleetCheck(f: FleetFacts): Check {
  if (f.membership === 'absent') return { id: 'fleet', status: 'ok', summary: 'not joined to a fleet' };
  const again = `remove ${dirname(f.file)} and join again with a new invite (svc fleet join <url> --code <code>)`;
  if (f.membership === 'damaged') return { id: 'fleet', status: 'warn', summary: `${f.file} (or the machine's key beside it) cannot be read`, fix: again };
  const { hub, machineId, name } = f.membership;
  const who = `machine '${name}' (${machineId}) of the hub at ${hub}`;
  switch (f.connection) {
    case 'connected':
      return { id: 'fleet', status: 'ok', summary: `${who}: connected` };
    case 'revoked':
      return { id: 'fleet', status: 'fail', summary: `${who}: the hub revoked this machine`, fix: again };
    case 'connecting':
    case 'reconnecting':
    case 'closed':
      return {
        id: 'fleet',
        status: 'warn',
        summary: `${who}: cannot reach the hub (${f.connection})`,
        fix: `check that \`svc dashboard serve --fleet\` runs there and that ${hub} is reachable from this machine`,
      };
    case null:
      return { id: 'fleet', status: 'ok', summary: `${who}; svc serve connects to it when it runs` };
  }
}

// ---------------------------------------------------------------------------------------------
// push

export interface PushFacts {
  /** <home>/push-vapid.json: absent, a key pair, or something else. */
  keys: 'absent' | 'present' | 'invalid';
  file: string;
  /** Subscribed devices; null when the database could not be read. */
  subscriptions: number | null;
}

export function pushCheck(f: PushFacts): Check {
  const devices = f.subscriptions === null ? 'subscriptions unknown (database not readable)' : `${f.subscriptions} subscribed device${f.subscriptions === 1 ? '' : 's'}`;
  if (f.keys === 'absent') return { id: 'push', status: 'ok', summary: 'push not set up (the web UI sets it up when you allow notifications)' };
  if (f.keys === 'invalid') {
    return { id: 'push', status: 'warn', summary: `${f.file} is not a VAPID key pair; ${devices}`, fix: `remove ${f.file}: the server makes a new pair and each device subscribes again when it next allows notifications` };
  }
  return { id: 'push', status: 'ok', summary: `VAPID keys present; ${devices}` };
}

// ---------------------------------------------------------------------------------------------
// all of them

export interface Facts {
  server: ServerFacts;
  service: ServiceFacts;
  providers: ProviderFacts[];
  providerContext: ProviderContext;
  disk: DiskFacts;
  tls: TlsFacts;
  fleet: FleetFacts;
  push: PushFacts;
}

/** The report, in the order a person reads it: is it running, can it run the agent, then the home. */
export function diagnose(f: Facts, now: Date): Report {
  return report([
    serverCheck(f.server, f.service.installed !== null),
    serviceCheck(f.service),
    ...f.providers.map((p) => providerCheck(p, f.providerContext)),
    diskCheck(f.disk),
    tlsCheck(f.tls, now),
    fleetCheck(f.fleet),
    pushCheck(f.push),
  ]);
}
