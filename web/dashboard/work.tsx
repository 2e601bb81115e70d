// The fleet's work queue: a prompt queued for any machine (or one), with the provider and the directory it needs;
// the items, newest first, with where each runs or ran, its answer, and the attempts of machines that stopped
// answering mid-run. Shown when the fleet is on; it follows the `fleet_work` events.
import { useEffect, useState } from 'preact/hooks';
import { Badge, Button, Card, EmptyState, Field, type Tone } from '../ui/components.tsx';
import { count } from '../ui/text.ts';
import { api, type Machine, type WorkItem } from './api.ts';
import { failed, toast } from './feedback.tsx';
import { fleetEvents } from './fleet.tsx';
import { FormError, Time, useFormErrors } from './parts.tsx';

const FIELDS = ['prompt', 'machine', 'provider', 'workingDir'] as const;
const PROVIDERS = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'pi', 'custom'] as const;
const TONE: Record<WorkItem['status'], Tone> = { queued: 'neutral', running: 'accent', succeeded: 'ok', failed: 'danger' };

/** The fleet's items changed (main.tsx sends each `fleet_work` event here). */
export const workEvents = new EventTarget();

function QueueForm({ machines, onQueued }: { machines: Machine[]; onQueued: () => void }) {
  const [d, setDraft] = useState({ prompt: '', machine: 'any', provider: '', workingDir: '' });
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS);
  const set = (field: keyof typeof d, value: string) => setDraft((old) => ({ ...old, [field]: value }));
  const queue = async () => {
    form.clear();
    if (!d.prompt.trim()) return form.set('prompt', 'Write what the agent should do.');
    setBusy(true);
    try {
      const body = { prompt: d.prompt, machine: d.machine, ...(d.provider ? { provider: d.provider } : {}), ...(d.workingDir.trim() ? { workingDir: d.workingDir.trim() } : {}) };
      await api('/api/dashboard/work', { method: 'POST', body });
      toast(d.machine === 'any' ? 'Queued for the first machine that can run it.' : 'Queued for that machine.');
      setDraft((old) => ({ ...old, prompt: '' }));
      onQueued();
    } catch (err) {
      form.show(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="work-form"
      noValidate
      aria-label="Queue work"
      onSubmit={(e) => {
        e.preventDefault();
        void queue();
      }}
    >
      <Field id="work-prompt" label="Prompt" error={form.errors.prompt}>
        {(c) => <textarea {...c} rows={2} value={d.prompt} placeholder="Run the test suite and fix what fails." onInput={(e) => set('prompt', (e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <div class="form-grid">
        <Field id="work-machine" label="Machine" help="Any: the first machine that can run it takes it." error={form.errors.machine}>
          {(c) => (
            <select {...c} value={d.machine} onChange={(e) => set('machine', (e.target as HTMLSelectElement).value)}>
              <option value="any">Any machine</option>
              {machines.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                  {m.online ? '' : ' (offline)'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="work-provider" label="Provider" help="Only a machine where it is ready takes the item." error={form.errors.provider}>
          {(c) => (
            <select {...c} value={d.provider} onChange={(e) => set('provider', (e.target as HTMLSelectElement).value)}>
              <option value="">The machine's own</option>
              {PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="work-dir" label="Working directory" help="Optional: only a machine where it exists takes the item." error={form.errors.workingDir}>
          {(c) => <input {...c} class={`${c.class} mono`} value={d.workingDir} placeholder="/home/me/src/app" spellcheck={false} autocomplete="off" onInput={(e) => set('workingDir', (e.target as HTMLInputElement).value)} />}
        </Field>
      </div>
      <FormError message={form.errors.form} />
      <div class="form-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Queueing…' : 'Queue'}
        </Button>
      </div>
    </form>
  );
}

function WorkRow({ item, machines }: { item: WorkItem; machines: Machine[] }) {
  const nameOf = (id: string | null) => (id ? (machines.find((m) => m.id === id)?.name ?? id) : null);
  const abandoned = item.attempts.filter((a) => a.status === 'abandoned').length;
  const where = nameOf(item.machineId);
  return (
    <li class="work-item" data-id={item.id} data-status={item.status}>
      <div class="work-head">
        <Badge tone={TONE[item.status]}>{item.status}</Badge>
        <span class="work-prompt">{item.prompt}</span>
      </div>
      <p class="muted work-facts">
        {where ? <>on {where}</> : item.machine === 'any' ? 'any machine' : <>for {nameOf(item.machine)}</>}
        {item.provider && <> · {item.provider}</>}
        {item.workingDir && (
          <>
            {' '}
            · <code>{item.workingDir}</code>
          </>
        )}{' '}
        · <Time at={item.updatedAt} />
        {abandoned > 0 && <> · {count(abandoned, 'machine')} stopped answering, taken over</>}
        {item.instanceId && item.runId && (
          <>
            {' '}
            ·{' '}
            <a href={`/i/${encodeURIComponent(item.instanceId)}/`} target="_blank" rel="noreferrer">
              open its chat
            </a>
          </>
        )}
      </p>
      {item.reason && <p class="work-reason">{item.reason}</p>}
      {item.answer && (
        <details class="work-answer">
          <summary>Answer</summary>
          <p>{item.answer}</p>
        </details>
      )}
    </li>
  );
}

export function Work() {
  const [enabled, setEnabled] = useState(false);
  const [items, setItems] = useState<WorkItem[]>([]);
  const [machines, setMachines] = useState<Machine[]>([]);
  const load = () =>
    void Promise.all([api<{ enabled: boolean }>('/api/dashboard/fleet'), api<{ items: WorkItem[] }>('/api/dashboard/work'), api<{ machines: Machine[] }>('/api/dashboard/machines')]).then(
      ([fleet, w, m]) => {
        setEnabled(fleet.enabled);
        setItems(w.items);
        setMachines(m.machines);
      },
      failed('Reading the work queue failed'),
    );
  useEffect(() => {
    load();
    workEvents.addEventListener('change', load);
    fleetEvents.addEventListener('change', load);
    return () => {
      workEvents.removeEventListener('change', load);
      fleetEvents.removeEventListener('change', load);
    };
  }, []);
  if (!enabled) return null;
  return (
    <Card title="Work" titleId="work-title" class="work">
      <QueueForm machines={machines} onQueued={load} />
      {items.length === 0 ? (
        <EmptyState title="Nothing queued">Queue a prompt: a machine that can run it takes it, and if that machine dies mid-run another one finishes it.</EmptyState>
      ) : (
        <ul class="work-items" aria-label="Work items">
          {items.map((i) => (
            <WorkRow key={i.id} item={i} machines={machines} />
          ))}
        </ul>
      )}
    </Card>
  );
}
