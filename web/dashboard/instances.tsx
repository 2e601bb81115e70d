// The instances card: every instance the manager knows, with its status (and why it is not online),
// the work it has (running, queued), provider and model, its latest message, a link that opens its chat
// through the manager, lifecycle buttons for the ones this manager started, and Remove for any of them.
import { useState } from 'preact/hooks';
import { Badge, Button, Card, EmptyState, Field } from '../ui/components.tsx';
import { Icon } from '../ui/icons.tsx';
import { count } from '../ui/text.ts';
import { api, type Instance, type Latest, type ScheduleJob } from './api.ts';
import { confirmAction, failed, toast } from './feedback.tsx';
import { FormError, StatusBadge, Time, useFormErrors } from './parts.tsx';

const ORIGIN: Record<Instance['origin'], string> = { started: 'started by this manager', scanned: 'found on this machine', added: 'added by URL', fleet: 'on a fleet machine' };

/** The newest message the manager saw in the instance: its answer, or what it was asked. */
function latestMessage(latest: Latest | undefined): { who: string; text: string; at: number } | null {
  const user = latest?.lastUser;
  const answer = latest?.lastAssistant;
  if (answer && (!user || answer.createdAt >= user.createdAt)) return { who: 'Latest answer', text: answer.content, at: answer.createdAt };
  if (user) return { who: 'Latest message', text: user.content, at: user.createdAt };
  return null;
}

function Work({ instance, latest }: { instance: Instance; latest: Latest | undefined }) {
  const queued = Math.max(instance.pending, latest?.queue.pending ?? 0);
  if (!instance.busy && queued === 0) return null;
  // the newest message in is the running one only while none waits behind it (queued ones are saved too)
  const task = instance.busy && queued === 0 ? latest?.lastUser?.content : undefined;
  return (
    <p class="instance-work">
      {instance.busy && <Badge tone="accent">Busy</Badge>}
      {queued > 0 && <Badge tone="warn">{count(queued, 'message')} queued</Badge>}
      {task && <span class="muted clip-1">working on “{task}”</span>}
    </p>
  );
}

function InstanceRow({ instance: i, latest, jobs, reload }: { instance: Instance; latest: Latest | undefined; jobs: ScheduleJob[]; reload: () => Promise<void> }) {
  const [doing, setDoing] = useState<string | null>(null);
  const owned = i.owner === 'manager';
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setDoing(what);
    try {
      await fn();
      await reload();
    } catch (err) {
      failed(`${what} ${i.label}`)(err);
    } finally {
      setDoing(null);
    }
  };
  const lifecycle = (action: 'start' | 'stop' | 'restart') => run(action[0]!.toUpperCase() + action.slice(1), () => api(`/api/dashboard/instances/${encodeURIComponent(i.id)}/${action}`, { method: 'POST', body: {} }));
  const remove = async () => {
    const running = owned && i.status === 'online';
    const scheduled = jobs.filter((j) => j.instanceId === i.id).length;
    const yes = await confirmAction({
      title: `Remove ${i.label}?`,
      body: (
        <>
          <p>
            The dashboard forgets it: its label, its token and its state here.{' '}
            {owned ? (running ? 'It runs under this manager, so it is stopped first. ' : '') + 'Its home directory stays on disk.' : 'It keeps running; add it again by its URL to see it here.'}
          </p>
          {scheduled > 0 && <p>{count(scheduled, 'scheduled job')} that send to it will be skipped until they send elsewhere.</p>}
        </>
      ),
      confirmLabel: running ? 'Stop and remove' : 'Remove',
      danger: true,
    });
    if (!yes) return;
    await run('Remove', async () => {
      if (running) await api(`/api/dashboard/instances/${encodeURIComponent(i.id)}/stop`, { method: 'POST', body: {} });
      await api(`/api/dashboard/instances/${encodeURIComponent(i.id)}`, { method: 'DELETE' });
      toast(`Removed ${i.label}.`);
    });
  };
  const message = latestMessage(latest);
  const titleId = `inst-${i.id}-title`;
  return (
    <li class={`instance ${i.status}`} data-id={i.id} aria-labelledby={titleId} aria-busy={doing !== null}>
      <div class="instance-head">
        <h3 id={titleId} class="instance-label">
          {i.label}
        </h3>
        <StatusBadge instance={i} />
      </div>
      {i.status !== 'online' && i.reason && <p class={`instance-reason ${i.status}`}>{i.reason}</p>}
      <Work instance={i} latest={latest} />
      <p class="instance-meta muted">
        <span>{i.provider ?? 'provider unknown'}</span>
        <span>{i.model || 'default model'}</span>
        <span>{ORIGIN[i.origin]}</span>
        <span class="instance-url">{i.url.replace(/^https?:\/\//, '')}</span>
      </p>
      {message ? (
        <div class="latest">
          <span class="latest-head muted">
            {message.who} · <Time at={message.at} />
          </span>
          <p class="latest-text">{message.text.slice(0, 400)}</p>
        </div>
      ) : (
        <p class="latest latest-none muted">No messages yet.</p>
      )}
      <div class="card-actions instance-actions">
        {/* through the manager's proxy: one origin, and the instance's token stays here */}
        <a class="btn small" href={`/i/${encodeURIComponent(i.id)}/`} target="_blank" rel="noreferrer" aria-label={`Open ${i.label}'s chat (new tab)`}>
          open <Icon name="chevron" size={14} />
        </a>
        {owned &&
          (i.status === 'online' ? (
            <>
              <Button small onClick={() => void lifecycle('stop')} disabled={doing !== null} aria-label={`Stop ${i.label}`}>
                {doing === 'Stop' ? 'Stopping…' : 'Stop'}
              </Button>
              <Button small onClick={() => void lifecycle('restart')} disabled={doing !== null} aria-label={`Restart ${i.label}`}>
                {doing === 'Restart' ? 'Restarting…' : 'Restart'}
              </Button>
            </>
          ) : (
            <Button small onClick={() => void lifecycle('start')} disabled={doing !== null} aria-label={`Start ${i.label}`}>
              {doing === 'Start' ? 'Starting…' : 'Start'}
            </Button>
          ))}
        <Button small variant="danger-outline" class="push-end" onClick={() => void remove()} disabled={doing !== null} aria-label={`Remove ${i.label}`}>
          {doing === 'Remove' ? 'Removing…' : 'Remove'}
        </Button>
      </div>
    </li>
  );
}

/** Adds an instance that runs elsewhere (another machine, or a port outside the scan) by its URL and token. */
function AddInstance({ onDone }: { onDone: (added: boolean) => void }) {
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(['url', 'token', 'label'] as const);
  const submit = async () => {
    form.clear();
    if (!url.trim()) return form.set('url', 'Give the address of the instance, e.g. http://192.168.1.20:3457');
    setBusy(true);
    try {
      const added = await api<Instance>('/api/dashboard/instances', { method: 'POST', body: { url: url.trim(), ...(token ? { token } : {}), ...(label.trim() ? { label: label.trim() } : {}) } });
      toast(`Added ${added.label}.`);
      onDone(true);
    } catch (err) {
      form.show(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="inline-form add-instance"
        noValidate
      aria-label="Add an instance"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field id="add-url" label="Address" help="The instance's URL, as `svc serve` printed it." error={form.errors.url}>
        {(c) => <input {...c} type="url" value={url} placeholder="http://127.0.0.1:3457" onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />}
      </Field>
      <Field id="add-token" label="Access token" help="Its `svc token`; not needed on this machine." error={form.errors.token}>
        {(c) => <input {...c} type="password" autocomplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />}
      </Field>
      <Field id="add-label" label="Label" help="Optional; default: its host and port." error={form.errors.label}>
        {(c) => <input {...c} value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />}
      </Field>
      <FormError message={form.errors.form} />
      <div class="form-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Add instance'}
        </Button>
        <Button onClick={() => onDone(false)}>Cancel</Button>
      </div>
    </form>
  );
}

export function Instances({ instances, latest, jobs, reload }: { instances: Instance[]; latest: Record<string, Latest>; jobs: ScheduleJob[]; reload: () => Promise<void> }) {
  const [starting, setStarting] = useState(false);
  const [adding, setAdding] = useState(false);
  const start = async () => {
    setStarting(true);
    try {
      const started = await api<Instance>('/api/dashboard/instances/start', { method: 'POST', body: {} });
      toast(`Started ${started.label}.`);
      await reload();
    } catch (err) {
      failed('Starting a new instance failed')(err);
    } finally {
      setStarting(false);
    }
  };
  return (
    <Card
      title="Instances"
      titleId="instances-title"
      class="instances-card"
      actions={
        <>
          <Button small onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
            Add by URL
          </Button>
          <Button small variant="primary" onClick={() => void start()} disabled={starting}>
            <Icon name="plus" size={15} /> {starting ? 'Starting…' : 'Start a new instance'}
          </Button>
        </>
      }
    >
      {adding && (
        <AddInstance
          onDone={(added) => {
            setAdding(false);
            if (added) void reload();
          }}
        />
      )}
      {instances.length === 0 ? (
        <EmptyState title="No instances yet">
          Start one here, run <code>svc serve</code> on this machine (the scan finds it), or add one by its URL.
        </EmptyState>
      ) : (
        <ul class="instances">
          {instances.map((i) => (
            <InstanceRow key={i.id} instance={i} latest={latest[i.id]} jobs={jobs} reload={reload} />
          ))}
        </ul>
      )}
    </Card>
  );
}
