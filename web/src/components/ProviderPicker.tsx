// Provider and model picker: the providers the server knows (/api/cli-registry), whether each can
// answer (/api/cli-status: installed, logged in) and the command that sets up one that cannot.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { chooseAgent, pollCliStatus } from '../actions.ts';
import { setState, useStore } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';
import { blocked, readinessLabel, readinessOf, SetupHelp } from './Readiness.tsx';

/** Space kept between the popover and the window's edge. */
const EDGE = 8;

export function ProviderPicker() {
  const registry = useStore((s) => s.registry);
  const status = useStore((s) => s.cliStatus);
  const session = useStore((s) => s.session);
  const open = useStore((s) => s.pickerOpen);
  const setOpen = (pickerOpen: boolean) => setState({ pickerOpen });
  const root = useRef<HTMLDivElement>(null);
  const pop = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    void pollCliStatus();
    pop.current?.querySelector<HTMLInputElement>('input[type=radio]:checked')?.focus();
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

  // The popover opens below the button, shifted left as far as it takes to stay inside the window.
  useLayoutEffect(() => {
    if (!open) return;
    const place = () => {
      const el = pop.current;
      if (!el) return;
      el.style.left = '0px';
      const rect = el.getBoundingClientRect();
      const over = rect.right - (document.documentElement.clientWidth - EDGE);
      if (over > 0) el.style.left = `${-Math.min(over, rect.left - EDGE)}px`;
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
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
        <div class="picker-pop" ref={pop} role="dialog" aria-label="Choose the agent">
          {registry === null && <p class="muted pad">This server does not list its providers (no /api/cli-registry).</p>}
          {registry === undefined && <p class="muted pad">Loading…</p>}
          {providers.length > 0 && (
            <fieldset class="provider-list">
              <legend class="sr-only">Provider</legend>
              {providers.map((p) => {
                const st = status?.providers[p.id];
                const readiness = readinessOf(st);
                const selected = p.id === active?.provider;
                const tone = blocked(readiness?.state) ? ' missing' : readiness?.state === 'ready' || readiness?.state === 'login_unknown' ? ' ok' : '';
                return (
                  <div
                    key={p.id}
                    class={`provider${selected ? ' selected' : ''}`}
                    data-provider={p.id}
                    data-installed={String(st?.state === 'ready' ? st.installed : null)}
                    data-readiness={readiness?.state}
                  >
                    <label class="provider-choice">
                      <input
                        type="radio"
                        name="provider"
                        value={p.id}
                        checked={selected}
                        onChange={() => void chooseAgent({ provider: p.id, model: '', effort: '' })}
                      />
                      <span class="provider-name">{p.displayName}</span>
                      <span class={`install-state${tone}`}>{readinessLabel(p, st)}</span>
                    </label>
                    <SetupHelp provider={p} status={st} />
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
