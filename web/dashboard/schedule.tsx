// The schedule: prompts sent to an instance on a cron expression or once at a time. Create, edit, pause
// (enabled: false) and delete jobs; each shows the instance by its label, its next run and its run
// history (sent, answered with the answer's message, failed or skipped with why). A refused job shows
// the API's reason under the field it names.
import { useState } from 'preact/hooks';
import { Badge, Button, Card, Checkbox, EmptyState, Field, type Tone } from '../ui/components.tsx';
import { Icon } from '../ui/icons.tsx';
import { count } from '../ui/text.ts';
import { api, type Instance, type ScheduleJob, type ScheduleRun } from './api.ts';
import { confirmAction, failed, toast } from './feedback.tsx';
import { dateTime, fromLocalInput, toLocalInput } from './format.ts';
import { FormError, Time, useFormErrors } from './parts.tsx';

const FIELDS = ['title', 'instanceId', 'prompt', 'cron', 'runAt', 'whenBusy', 'enabled'] as const;

const jobPath = (id: string) => `/api/dashboard/schedule/jobs/${encodeURIComponent(id)}`;

const RUN_TONE: Record<ScheduleRun['status'], Tone> = { sending: 'accent', sent: 'accent', answered: 'ok', failed: 'danger', skipped: 'warn' };

/** A run in a few words: what happened, and why when it did not answer. */
function RunLine({ run, instanceId }: { run: ScheduleRun; instanceId: string }) {
  return (
    <li class="run" data-status={run.status}>
      <Badge tone={RUN_TONE[run.status]}>{run.status}</Badge>
      <Time at={run.slot} />
      <span class="run-detail">
        {run.status === 'answered' && run.messageId !== null && (
          <>
            answer:{' '}
            <a href={`/i/${encodeURIComponent(instanceId)}/`} target="_blank" rel="noreferrer">
              message #{run.messageId}
            </a>
          </>
        )}
        {(run.status === 'sending' || run.status === 'sent') && 'sent; waiting for the answer'}
        {(run.status === 'failed' || run.status === 'skipped') && (run.reason ?? '')}
      </span>
    </li>
  );
}

function Runs({ runs, instanceId }: { runs: ScheduleRun[] | undefined; instanceId: string }) {
  if (!runs) return null;
  if (!runs.length) return <p class="job-runs-none muted">It has not run yet.</p>;
  const [last, ...older] = runs;
  return (
    <div class="job-runs">
      <ul class="runs runs-last" aria-label="Last run">
        <RunLine run={last!} instanceId={instanceId} />
      </ul>
      {older.length > 0 && (
        <details class="run-history">
          <summary>
            <Icon name="chevron" size={14} class="chev" /> Run history ({count(runs.length, 'run')})
          </summary>
          <ul class="runs">
            {older.map((r) => (
              <RunLine key={r.id} run={r} instanceId={instanceId} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

interface Draft {
  title: string;
  instanceId: string;
  prompt: string;
  mode: 'cron' | 'once';
  cron: string;
  runAt: string;
  whenBusy: 'skip' | 'queue';
  enabled: boolean;
}

const draftOf = (job: ScheduleJob | null, instances: Instance[]): Draft =>
  job
    ? {
        title: job.title,
        instanceId: job.instanceId,
        prompt: job.prompt,
        mode: job.cron !== null ? 'cron' : 'once',
        cron: job.cron ?? '',
        runAt: toLocalInput(job.runAt ?? Date.now() + 3_600_000),
        whenBusy: job.whenBusy,
        enabled: job.enabled,
      }
    : {
        title: '',
        instanceId: instances.find((i) => i.status === 'online')?.id ?? instances[0]?.id ?? '',
        prompt: '',
        mode: 'cron',
        cron: '',
        runAt: toLocalInput(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000),
        whenBusy: 'skip',
        enabled: true,
      };

function JobForm({ job, instances, onDone }: { job: ScheduleJob | null; instances: Instance[]; onDone: (saved: ScheduleJob | null) => void }) {
  const [d, setD] = useState<Draft>(() => draftOf(job, instances));
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setD((prev) => ({ ...prev, [key]: value }));
  const prefix = job ? `job-${job.id}` : 'job-new';
  const save = async () => {
    form.clear();
    if (!d.title.trim()) return form.set('title', 'Give the job a title.');
    if (!d.instanceId) return form.set('instanceId', 'Pick the instance it sends to.');
    if (!d.prompt.trim()) return form.set('prompt', 'Write the prompt it sends.');
    if (d.mode === 'cron' && !d.cron.trim()) return form.set('cron', 'Write a cron expression, e.g. 0 9 * * 1-5.');
    const runAt = fromLocalInput(d.runAt);
    if (d.mode === 'once' && !Number.isFinite(runAt)) return form.set('runAt', 'Pick a date and time.');
    const timing = d.mode === 'cron' ? { cron: d.cron.trim() } : { runAt };
    let body: Record<string, unknown>;
    if (!job) {
      body = { title: d.title.trim(), instanceId: d.instanceId, prompt: d.prompt, whenBusy: d.whenBusy, enabled: d.enabled, ...timing };
    } else {
      // only what changed: a new timing replaces the old one whole
      const before = draftOf(job, instances);
      const timingChanged = d.mode !== before.mode || (d.mode === 'cron' ? d.cron.trim() !== job.cron : runAt !== job.runAt);
      body = {
        ...(d.title.trim() !== job.title ? { title: d.title.trim() } : {}),
        ...(d.instanceId !== job.instanceId ? { instanceId: d.instanceId } : {}),
        ...(d.prompt !== job.prompt ? { prompt: d.prompt } : {}),
        ...(d.whenBusy !== job.whenBusy ? { whenBusy: d.whenBusy } : {}),
        ...(d.enabled !== job.enabled ? { enabled: d.enabled } : {}),
        ...(timingChanged ? timing : {}),
      };
      if (!Object.keys(body).length) return onDone(null);
    }
    setBusy(true);
    try {
      const saved = await api<ScheduleJob>(job ? jobPath(job.id) : '/api/dashboard/schedule/jobs', { method: job ? 'PATCH' : 'POST', body });
      onDone(saved);
    } catch (err) {
      form.show(err);
      setBusy(false);
    }
  };
  return (
    <form
      class="job-form"
        noValidate
      aria-label={job ? `Edit ${job.title}` : 'New scheduled job'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div class="form-grid">
        <Field id={`${prefix}-title`} label="Title" error={form.errors.title}>
          {(c) => <input {...c} value={d.title} placeholder="Morning summary" onInput={(e) => set('title', (e.target as HTMLInputElement).value)} />}
        </Field>
        <Field id={`${prefix}-instance`} label="Instance" help="Where the prompt is sent." error={form.errors.instanceId}>
          {(c) => (
            <select {...c} value={d.instanceId} onChange={(e) => set('instanceId', (e.target as HTMLSelectElement).value)}>
              {!d.instanceId && <option value="">Pick an instance</option>}
              {instances.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.label} ({i.status})
                </option>
              ))}
              {d.instanceId && !instances.some((i) => i.id === d.instanceId) && <option value={d.instanceId}>{d.instanceId} (removed)</option>}
            </select>
          )}
        </Field>
      </div>
      <Field id={`${prefix}-prompt`} label="Prompt" error={form.errors.prompt}>
        {(c) => <textarea {...c} rows={3} value={d.prompt} placeholder="Summarise yesterday's commits." onInput={(e) => set('prompt', (e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <fieldset class="timing">
        <legend>When</legend>
        <div class="segmented" role="radiogroup" aria-label="Repeat or once">
          {(['cron', 'once'] as const).map((mode) => (
            <label key={mode} class={d.mode === mode ? 'on' : ''}>
              <input type="radio" name={`${prefix}-mode`} value={mode} checked={d.mode === mode} onChange={() => set('mode', mode)} />
              {mode === 'cron' ? 'Repeat (cron)' : 'Once'}
            </label>
          ))}
        </div>
        {d.mode === 'cron' ? (
          <Field id={`${prefix}-cron`} label="Cron expression" help="5 fields (minute hour day month weekday), or 6 with seconds first. 0 9 * * 1-5: weekdays at 9:00." error={form.errors.cron}>
            {(c) => <input {...c} class={`${c.class} mono`} value={d.cron} placeholder="0 9 * * 1-5" spellcheck={false} autocomplete="off" onInput={(e) => set('cron', (e.target as HTMLInputElement).value)} />}
          </Field>
        ) : (
          <Field id={`${prefix}-runat`} label="Run at" help="Your local time." error={form.errors.runAt}>
            {(c) => <input {...c} type="datetime-local" step={1} value={d.runAt} onInput={(e) => set('runAt', (e.target as HTMLInputElement).value)} />}
          </Field>
        )}
      </fieldset>
      <div class="form-grid">
        <Field id={`${prefix}-busy`} label="When the instance is busy" error={form.errors.whenBusy}>
          {(c) => (
            <select {...c} value={d.whenBusy} onChange={(e) => set('whenBusy', (e.target as HTMLSelectElement).value as Draft['whenBusy'])}>
              <option value="skip">Skip that run (recorded)</option>
              <option value="queue">Send anyway (it waits in the queue)</option>
            </select>
          )}
        </Field>
        <div class="check-cell">
          <Checkbox id={`${prefix}-enabled`} label="Enabled" help="A paused job keeps its settings and sends nothing." checked={d.enabled} onChange={(v) => set('enabled', v)} />
        </div>
      </div>
      <FormError message={form.errors.form ?? form.errors.enabled} />
      <div class="form-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {job ? 'Save job' : 'Create job'}
        </Button>
        <Button onClick={() => onDone(null)}>Cancel</Button>
      </div>
    </form>
  );
}

function JobRow({ job, runs, instances, onEdit, reload }: { job: ScheduleJob; runs: ScheduleRun[] | undefined; instances: Instance[]; onEdit: () => void; reload: () => Promise<void> }) {
  const target = instances.find((i) => i.id === job.instanceId);
  const toggle = () =>
    void api(jobPath(job.id), { method: 'PATCH', body: { enabled: !job.enabled } }).then(() => {
      toast(job.enabled ? `Paused “${job.title}”.` : `Resumed “${job.title}”.`);
      return reload();
    }, failed(`${job.enabled ? 'Pausing' : 'Resuming'} “${job.title}” failed`));
  const remove = async () => {
    const yes = await confirmAction({ title: `Delete “${job.title}”?`, body: <p>The job and its run history are deleted; nothing more is sent.</p>, confirmLabel: 'Delete job', danger: true });
    if (yes) await api(jobPath(job.id), { method: 'DELETE' }).then(reload, failed(`Deleting “${job.title}” failed`));
  };
  const titleId = `job-${job.id}-title`;
  const spent = job.cron === null && job.nextRunAt === null && (runs?.length ?? 0) > 0;
  return (
    <li class="job" data-id={job.id} data-enabled={String(job.enabled)} aria-labelledby={titleId}>
      <div class="job-head">
        <h3 id={titleId}>{job.title}</h3>
        <Badge tone={job.enabled ? 'ok' : 'neutral'}>{job.enabled ? 'Active' : 'Paused'}</Badge>
      </div>
      <p class="job-when">
        <span>
          to <strong class="job-target">{target?.label ?? `${job.instanceId} (removed)`}</strong>
        </span>
        <span>
          {job.cron !== null ? (
            <>
              cron <code>{job.cron}</code>
            </>
          ) : (
            <>once, {dateTime(job.runAt ?? 0, true)}</>
          )}
        </span>
        <span>{job.whenBusy === 'skip' ? 'skips a busy instance' : 'queues behind a busy instance'}</span>
      </p>
      <p class="job-next">
        <span class="muted">Next run: </span>
        {job.nextRunAt !== null ? (
          <>
            <Time at={job.nextRunAt} /> <span class="muted">({dateTime(job.nextRunAt, true)})</span>
          </>
        ) : !job.enabled ? (
          'none while paused'
        ) : job.cron === null ? (
          'none (it ran once)'
        ) : (
          'none'
        )}
      </p>
      <p class="job-prompt">{job.prompt}</p>
      <Runs runs={runs} instanceId={job.instanceId} />
      <div class="card-actions">
        <Button small onClick={onEdit} aria-label={`Edit ${job.title}`}>
          <Icon name="pencil" size={14} /> Edit
        </Button>
        {/* a one-off job that ran has nothing left to pause: Edit gives it a new time */}
        {!(spent && job.enabled) && (
          <Button small onClick={toggle} aria-label={`${job.enabled ? 'Pause' : 'Resume'} ${job.title}`}>
            {job.enabled ? 'Pause' : 'Resume'}
          </Button>
        )}
        <Button small variant="danger-outline" class="push-end" onClick={() => void remove()} aria-label={`Delete ${job.title}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}

export function Schedule({ jobs, runs, instances, reload }: { jobs: ScheduleJob[]; runs: Record<string, ScheduleRun[]>; instances: Instance[]; reload: () => Promise<void> }) {
  // null: no form; 'new', or the id of the job being edited
  const [editing, setEditing] = useState<string | null>(null);
  const done = (saved: ScheduleJob | null, created: boolean) => {
    setEditing(null);
    if (saved) {
      toast(created ? `Scheduled “${saved.title}”.` : `Saved “${saved.title}”.`);
      void reload();
    }
  };
  return (
    <Card
      title="Schedule"
      titleId="schedule-title"
      class="schedule"
      actions={
        <Button small variant="primary" onClick={() => setEditing('new')} disabled={editing === 'new' || !instances.length} aria-expanded={editing === 'new'}>
          <Icon name="plus" size={15} /> New job
        </Button>
      }
    >
      {editing === 'new' && <JobForm job={null} instances={instances} onDone={(saved) => done(saved, true)} />}
      {jobs.length === 0 && editing !== 'new' ? (
        <EmptyState title="Nothing scheduled">{instances.length ? 'A job sends a prompt to an instance on a cron expression, or once at a time you pick.' : 'Add an instance first: a job sends its prompt to one.'}</EmptyState>
      ) : (
        <ul class="jobs">
          {jobs.map((j) =>
            editing === j.id ? (
              <li class="job editing" key={j.id} data-id={j.id}>
                <JobForm job={j} instances={instances} onDone={(saved) => done(saved, false)} />
              </li>
            ) : (
              <JobRow key={j.id} job={j} runs={runs[j.id]} instances={instances} onEdit={() => setEditing(j.id)} reload={reload} />
            ),
          )}
        </ul>
      )}
    </Card>
  );
}
