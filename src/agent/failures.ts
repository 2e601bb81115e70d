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

export function describeFailure(info: ProviderInfo, failure: FailureClass, message: string): FailureReport {
  const name = info.displayName;
  const said = detail(message);
  const because = said ? ` (${name} said: ${said})` : '';
  switch (failure) {
    case 'cli_missing':
      return info.install
        ? { failure, summary: `${name} is not installed${said ? ` (${said})` : ''}. Install it with ${info.install.command}, or set its path in Settings (agent.executables.${info.id}).`, fix: info.install.command }
        : { failure, summary: `The custom command was not found${said ? ` (${said})` : ''}. Check Settings (agent.customCommand).` };
    case 'auth': {
      const login = info.credentials;
      if (!login) return { failure, summary: `${name} refused the credentials it was given${because}.` };
      const key = login.env[0] ? `, or set ${login.env[0]} in Settings (agent.env)` : '';
      return { failure, summary: `${name} is not logged in or its key was refused${because}. Run ${login.login} in a terminal and ${login.loginHow}${key}.`, fix: login.login };
    }
    case 'rate_limit':
      return { failure, summary: `${name} hit its usage limit${because}. Wait until it resets, or add a fallback provider with /fallback.` };
    case 'overloaded':
      return { failure, summary: `${name}'s model service is overloaded${because}. Try again in a moment, or add a fallback provider with /fallback.` };
    case 'server_error':
      return { failure, summary: `${name}'s model service answered with an error${because}. Try again; if it persists, check the provider's status page.` };
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
