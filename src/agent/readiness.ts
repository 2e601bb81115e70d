// Whether a provider can answer, and the one thing to do when it cannot: from what the CLI
// detection found (installed, where) and where its login lives (a key in the environment, a file in
// the home directory). Pure: the detector gathers the facts, this says what they mean. The same
// words reach the UI, `svc serve`, `svc status`, `/status` and `/cli`.
import type { CliStatus, CredentialsInfo, ProviderInfo } from '../protocol/providers.ts';

/** found (`source` says where), missing (none of the places this CLI keeps its login has one), or unknown (svc cannot see where it keeps it). */
export type CredentialState = Extract<CliStatus, { state: 'ready' }>['credentials'];
export type Readiness = Extract<CliStatus, { state: 'ready' }>['readiness'];

/**
 * Where a CLI's login is, if anywhere: an environment variable first (agent.env is merged into the
 * environment runs get), then a login file under the home directory (`existing`: the files found).
 */
export function findCredentials(credentials: CredentialsInfo | null, env: Readonly<Record<string, string | undefined>>, existing: ReadonlySet<string>): CredentialState {
  if (!credentials) return { state: 'unknown' };
  const key = credentials.env.find((name) => env[name]);
  if (key) return { state: 'found', source: key };
  const file = credentials.files.find((f) => existing.has(f));
  if (file) return { state: 'found', source: `~/${file}` };
  return credentials.files.length ? { state: 'missing' } : { state: 'unknown' };
}

/** How to put a key in the environment of runs instead of logging in. */
const keyAlternative = (credentials: CredentialsInfo) => (credentials.env[0] ? `, or set ${credentials.env[0]} in Settings (agent.env)` : '');

export function readiness(info: ProviderInfo, installed: boolean, credentials: CredentialState): Readiness {
  const name = info.displayName;
  if (!installed) {
    if (!info.install) return { state: 'not_installed', summary: `${name} is not set up: give its command in Settings (agent.customCommand).` };
    return { state: 'not_installed', summary: `${name} is not installed. Install it with: ${info.install.command}`, fix: info.install.command };
  }
  if (credentials.state === 'found' || !info.credentials) return { state: 'ready', summary: `${name} is installed${credentials.state === 'found' ? ` and has a login (${credentials.source})` : ''}.` };
  const how = `${info.credentials.loginHow}${keyAlternative(info.credentials)}`;
  if (credentials.state === 'missing') {
    return { state: 'needs_login', summary: `${name} is installed but not logged in: run ${info.credentials.login} in a terminal and ${how}.`, fix: info.credentials.login };
  }
  return { state: 'login_unknown', summary: `${name} is installed; if it says it is not logged in, run ${info.credentials.login} in a terminal and ${how}.`, fix: info.credentials.login };
}

/**
 * Why a run of this CLI cannot succeed for want of a login, when svc can know it: the CLI has a login
 * check (`conclusive`: every place for its login is in sight, and its configuration takes it nowhere
 * else) and none of those places holds one. Undefined when a run may succeed, or svc cannot tell. The
 * words say where svc looked, so a person whose login is somewhere svc does not know can tell why.
 */
export function missingLogin(info: ProviderInfo, credentials: CredentialState, conclusive: boolean): string | undefined {
  const where = info.credentials;
  if (!where || !conclusive || credentials.state !== 'missing') return undefined;
  const keys = where.env.length ? `no ${where.env.join(' or ')} in the environment of runs` : '';
  const files = where.files.length ? `no ${where.files.map((f) => (f.startsWith('$') ? f : `~/${f}`)).join(' or ')}` : '';
  return `svc found ${[keys, files].filter(Boolean).join(' and ')}`;
}
