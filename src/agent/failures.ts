// What a failed run tells a person: one readable sentence in svc's terms (never a raw failure code,
// never Markdown), and the one command that fixes it when there is one. Pure: the runtime puts the
// result in `agent_done`, the saved record of the run, and the NDJSON `done` line.
import type { ProviderInfo } from '../protocol/providers.ts';
import type { FailureClass } from './providers/types.ts';

export interface FailureReport {
  /** The failure class, for programs (`auth`, `rate_limit`, …). */
  failure: FailureClass;
  /** For people: what happened and what to do. */
  summary: string;
  /** The one command that fixes it, run in a terminal. */
  fix?: string;
}

/** The CLI's own words, trimmed: one line, no trailing period, at most 300 characters. */
function detail(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim().replace(/[.\s]+$/, '');
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}

/** Where a run's provider is set up, in the words a failure names: the chat's agent settings, or the executive's. */
export interface SettingsPlace {
  executable(providerId: string): string;
  env: string;
}

export const AGENT_SETTINGS: SettingsPlace = {
  executable: (id) => `Settings (agent.executables.${id})`,
  env: 'Settings (agent.env)',
};

/**
 * `preflight`: svc found the failure before starting the CLI (a missing login), so the message is what
 * svc found, not the CLI's words. `place`: where the run's executable and environment are set.
 */
export function describeFailure(info: ProviderInfo, failure: FailureClass, message: string, preflight = false, place: SettingsPlace = AGENT_SETTINGS): FailureReport {
  const name = info.displayName;
  const said = detail(message);
  const because = said ? ` (${name} said: ${said})` : '';
  switch (failure) {
    case 'cli_missing':
      return info.install
        ? { failure, summary: `${name} is not installed${said ? ` (${said})` : ''}. Install it with ${info.install.command}, or set its path in ${place.executable(info.id)}.`, fix: info.install.command }
        : { failure, summary: `The custom command was not found${said ? ` (${said})` : ''}. Check Settings (agent.customCommand).` };
    case 'auth': {
      const login = info.credentials;
      if (!login) return { failure, summary: `${name} refused the credentials it was given${because}.` };
      const key = login.env[0] ? `, or set ${login.env[0]} in ${place.env}` : '';
      if (preflight) return { failure, summary: `${name} is not logged in: ${said || 'svc found no login for it'}. Run ${login.login} in a terminal and ${login.loginHow}${key}.`, fix: login.login };
      return { failure, summary: `${name} is not logged in or its key was refused${because}. Run ${login.login} in a terminal and ${login.loginHow}${key}.`, fix: login.login };
    }
    case 'rate_limit':
      return { failure, summary: `${name} hit its usage limit${because}. Wait until it resets, or add a fallback provider with /fallback.` };
    case 'overloaded':
      return { failure, summary: `${name}'s model service is overloaded${because}. Try again in a moment, or add a fallback provider with /fallback.` };
    case 'server_error':
      return { failure, summary: `${name}'s model service answered with an error${because}. Try again; if it persists, check the provider's status page.` };
    case 'network':
      return { failure, summary: `${name} cannot reach its model service: the network is unreachable${said ? ` (${said})` : ''}. Check the internet connection, a proxy or VPN, and the model endpoint in ${name}'s own configuration, then send the message again (a proxy is set as HTTPS_PROXY in ${place.env}).` };
    case 'timeout':
      return { failure, summary: `${name} was stopped: ${said || 'it took too long'}.` };
    case 'stale_session':
      return { failure, summary: `${name} no longer knows the conversation it was continuing${because}. Send the message again: a fresh session starts.` };
    case 'invalid_request':
      return { failure, summary: `${name} refused the request${because}. Check the model and options in Settings.` };
    case 'crash':
      return { failure, summary: `${name} stopped unexpectedly${because}. Its output is in the run's trace.` };
    case 'unknown':
      return { failure, summary: `${name} failed${because}. Its output is in the run's trace.` };
  }
}
