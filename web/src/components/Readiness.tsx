// Whether a provider can answer (GET /api/cli-status `readiness`), in the words the picker and
// the empty chat use, and what to do when it cannot.
import type { CliState, ProviderInfo } from '../api.ts';
import { CommandChip } from '../../ui/Copy.tsx';

type Ready = Extract<CliState, { state: 'ready' }>;
export type ReadinessState = Ready['readiness']['state'] | 'detecting';

/** What blocks a provider: it is not installed or not logged in (svc found no login to use). */
export const blocked = (state: ReadinessState | undefined) => state === 'not_installed' || state === 'needs_login';

/** The readiness of a CLI (a server without it: from whether it is installed). */
export function readinessOf(status: CliState | undefined): { state: ReadinessState; summary?: string; fix?: string } | undefined {
  if (!status) return undefined;
  if (status.state === 'detecting') return { state: 'detecting' };
  return status.readiness ?? { state: status.installed ? 'login_unknown' : 'not_installed' };
}

/** The short label beside a provider's name. */
export function readinessLabel(provider: ProviderInfo, status: CliState | undefined): string {
  const readiness = readinessOf(status);
  if (!status || !readiness) return '';
  if (status.state === 'detecting') return 'Detecting…';
  const version = status.version ? ` · ${status.version}` : '';
  switch (readiness.state) {
    case 'ready':
      return `Ready${version}`;
    case 'login_unknown':
      return `Installed${version}`;
    case 'needs_login':
      return 'Not logged in';
    case 'not_installed':
      // (the custom provider is the user's own command: configured, not installed)
      return provider.install ? 'Not installed' : 'Not set up';
    default:
      return '';
  }
}

/** What is missing, in a few words: the heading of the empty chat. */
export function missingTitle(provider: ProviderInfo | undefined, id: string, state: ReadinessState): string {
  const name = provider?.displayName ?? id;
  if (state === 'needs_login') return `${name} is not logged in`;
  return provider && !provider.install ? `${name} is not set up` : `${name} is not installed`;
}

/** The readiness sentence, the command that fixes it, and the installation guide of a CLI that is missing. */
export function SetupHelp({ provider, status }: { provider: ProviderInfo; status: CliState | undefined }) {
  const readiness = readinessOf(status);
  if (!readiness || !blocked(readiness.state)) return null;
  const docs = readiness.state === 'not_installed' ? provider.install?.docs : undefined;
  return (
    <div class="setup-help">
      {readiness.summary && <p class="setup-summary">{readiness.summary}</p>}
      {readiness.fix && <CommandChip command={readiness.fix} label={`Copy the command that sets up ${provider.displayName}`} />}
      {docs && (
        <a href={docs} target="_blank" rel="noopener noreferrer">
          Installation guide
        </a>
      )}
    </div>
  );
}
