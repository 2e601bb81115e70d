// Provider and model picker: the providers the server knows (/api/cli-registry), whether each CLI
// is installed (/api/cli-status), and how to install one that is not.
import { useEffect, useRef, useState } from 'preact/hooks';
import { chooseAgent, pollCliStatus } from '../actions.ts';
import type { CliState, ProviderInfo } from '../api.ts';
import { copyText } from '../markdown.ts';
import { useStore } from '../store.ts';
import { Icon } from './icons.tsx';

function installState(state: CliState | undefined): { label: string; installed: boolean | null } {
  if (!state) return { label: '', installed: null };
  if (state.state === 'detecting') return { label: 'Detecting…', installed: null };
  if (state.installed) return { label: state.version ? `Installed · ${state.version}` : 'Installed', installed: true };
  return { label: 'Not installed', installed: false };
}

function InstallHelp({ provider }: { provider: ProviderInfo }) {
  const [copied, setCopied] = useState(false);
  const command = provider.install?.command;
  return (
    <div class="install-help">
      {command && (
        <div class="install-cmd">
          <code>{command}</code>
          <button
            type="button"
            class="icon-btn small"
            aria-label={`Copy the install command of ${provider.displayName}`}
            onClick={async () => {
              if (await copyText(command)) {
                setCopied(true);
                setTimeout(() => setCopied(false), 1500);
              }
            }}
          >
            <Icon name={copied ? 'check' : 'copy'} size={14} />
          </button>
        </div>
      )}
      {provider.install?.docs && (
        <a href={provider.install.docs} target="_blank" rel="noopener noreferrer">
          Installation guide
        </a>
      )}
      {!command && !provider.install?.docs && <span class="muted">Install its command-line tool, then reload.</span>}
    </div>
  );
}

export function ProviderPicker() {
  const registry = useStore((s) => s.registry);
  const status = useStore((s) => s.cliStatus);
  const session = useStore((s) => s.session);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    void pollCliStatus();
    const onDown = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        root.current?.querySelector<HTMLButtonElement>('.picker-btn')?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const active = registry?.active ?? session;
  const providers = registry?.providers ?? [];
  const current = providers.find((p) => p.id === active?.provider);
  const modelLabel = active?.model ? (current?.models.find((m) => m.id === active.model)?.label ?? active.model) : '';
  const label = current?.displayName ?? active?.provider ?? 'Agent';

  return (
    <div class="picker" ref={root}>
      <button
        type="button"
        class="picker-btn"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={`Agent: ${label}${modelLabel ? `, model ${modelLabel}` : ''}. Change`}
        onClick={() => setOpen(!open)}
      >
        <span class="picker-provider">{label}</span>
        {modelLabel && <span class="picker-model">{modelLabel}</span>}
        <Icon name="down" size={14} />
      </button>
      {open && (
        <div class="picker-pop" role="dialog" aria-label="Choose the agent">
          {registry === null && <p class="muted pad">This server does not list its providers (no /api/cli-registry).</p>}
          {registry === undefined && <p class="muted pad">Loading…</p>}
          {providers.length > 0 && (
            <fieldset class="provider-list">
              <legend class="sr-only">Provider</legend>
              {providers.map((p) => {
                const st = installState(status?.providers[p.id]);
                const selected = p.id === active?.provider;
                return (
                  <div key={p.id} class={`provider${selected ? ' selected' : ''}`} data-provider={p.id} data-installed={String(st.installed)}>
                    <label class="provider-choice">
                      <input
                        type="radio"
                        name="provider"
                        value={p.id}
                        checked={selected}
                        onChange={() => void chooseAgent({ provider: p.id, model: '', effort: '' })}
                      />
                      <span class="provider-name">{p.displayName}</span>
                      <span class={`install-state${st.installed === false ? ' missing' : st.installed ? ' ok' : ''}`}>{st.label}</span>
                    </label>
                    {st.installed === false && <InstallHelp provider={p} />}
                  </div>
                );
              })}
            </fieldset>
          )}
          {current && current.models.length > 0 && (
            <label class="field">
              <span>Model</span>
              <select value={active?.model ?? ''} onChange={(e) => void chooseAgent({ model: (e.target as HTMLSelectElement).value })}>
                {!current.models.some((m) => m.id === '') && <option value="">Default</option>}
                {active?.model && !current.models.some((m) => m.id === active.model) && <option value={active.model}>{active.model}</option>}
                {current.models.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
          )}
          {current && (current.efforts?.length ?? 0) > 0 && (
            <label class="field">
              <span>Reasoning effort</span>
              <select value={active?.effort ?? ''} onChange={(e) => void chooseAgent({ effort: (e.target as HTMLSelectElement).value })}>
                <option value="">Default</option>
                {current.efforts!.map((x) => (
                  <option key={x} value={x}>
                    {x}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      )}
    </div>
  );
}
