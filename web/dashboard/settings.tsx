// The manager's settings: the scan range and interval, the health-check period and the event bridge's
// backoff cap. Saved with PUT /api/dashboard/settings, which applies them at once; only the fields
// changed here are sent, so a start-up flag's value stays until someone sets that field. A refused
// value shows under its field.
import { useEffect, useState } from 'preact/hooks';
import { Badge, Button, Card, Field } from '../ui/components.tsx';
import { api, type DashboardSettingsView } from './api.ts';
import { toast } from './feedback.tsx';
import { FormError, useFormErrors } from './parts.tsx';

type Key = 'from' | 'count' | 'intervalSec' | 'healthIntervalSec' | 'bridgeMaxBackoffSec';
type Fields = Record<Key, string>;

const fieldsOf = ({ settings: s }: DashboardSettingsView): Fields => ({
  from: String(s.scan.from),
  count: String(s.scan.count),
  intervalSec: String(s.scan.intervalSec),
  healthIntervalSec: String(s.healthIntervalSec),
  bridgeMaxBackoffSec: String(s.bridgeMaxBackoffSec),
});

/** Each field: its label, its help, and its dotted name in the API (what a 400 and `overridden` name). */
const FIELDS: { key: Key; label: string; help: string; dotted: string; min: number; step: string }[] = [
  { key: 'from', label: 'First port to scan', help: 'Local instances are looked for from this port on.', dotted: 'scan.from', min: 1, step: '1' },
  { key: 'count', label: 'Ports to scan', help: '0: no scan.', dotted: 'scan.count', min: 0, step: '1' },
  { key: 'intervalSec', label: 'Scan every (s)', help: 'At least 5.', dotted: 'scan.intervalSec', min: 5, step: 'any' },
  { key: 'healthIntervalSec', label: 'Check instances every (s)', help: "How often each instance's state is read.", dotted: 'healthIntervalSec', min: 1, step: 'any' },
  { key: 'bridgeMaxBackoffSec', label: 'Longest reconnect wait (s)', help: "Between retries of an instance's event stream.", dotted: 'bridgeMaxBackoffSec', min: 1, step: 'any' },
];

export function Settings() {
  const [view, setView] = useState<DashboardSettingsView | null>(null);
  const [fields, setFields] = useState<Fields | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(FIELDS.map((f) => f.key));
  useEffect(() => {
    void api<DashboardSettingsView>('/api/dashboard/settings').then(
      (v) => (setView(v), setFields(fieldsOf(v))),
      (err) => form.show(err),
    );
  }, []);
  const save = async () => {
    if (!view || !fields) return;
    form.clear();
    setStatus('');
    // only the fields changed here: a start-up flag's value stays until someone sets that field
    const before = fieldsOf(view);
    const changed = (k: Key) => (fields[k] !== before[k] ? { [k]: Number(fields[k]) } : {});
    const bad = FIELDS.find((f) => fields[f.key] !== before[f.key] && (fields[f.key].trim() === '' || !Number.isFinite(Number(fields[f.key]))));
    if (bad) return form.set(bad.key, 'A number, please.');
    const scan = { ...changed('from'), ...changed('count'), ...changed('intervalSec') };
    const body = { ...(Object.keys(scan).length ? { scan } : {}), ...changed('healthIntervalSec'), ...changed('bridgeMaxBackoffSec') };
    if (!Object.keys(body).length) return setStatus('Nothing changed.');
    setBusy(true);
    try {
      const next = await api<DashboardSettingsView>('/api/dashboard/settings', { method: 'PUT', body });
      setView(next);
      setFields(fieldsOf(next));
      setStatus('Saved and applied.');
      toast('Manager settings saved and applied.');
    } catch (err) {
      form.show(err, (name) => FIELDS.find((f) => f.dotted === name)?.key);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Manager settings" titleId="manager-settings-title" class="settings">
      {!view || !fields ? (
        form.errors.form ? <FormError message={form.errors.form} /> : <p class="muted">Loading…</p>
      ) : (
        <form
          class="settings-form"
        noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <div class="form-grid">
            {FIELDS.map((f) => (
              <Field
                key={f.key}
                id={`set-${f.key}`}
                label={
                  <>
                    {f.label} {view.overridden.includes(f.dotted) && <Badge tone="warn">start-up flag</Badge>}
                  </>
                }
                help={view.overridden.includes(f.dotted) ? `Set by a start-up flag for this run. ${f.help}` : f.help}
                error={form.errors[f.key]}
              >
                {(c) => <input {...c} type="number" inputMode="decimal" min={f.min} step={f.step} value={fields[f.key]} onInput={(e) => setFields({ ...fields, [f.key]: (e.target as HTMLInputElement).value })} />}
              </Field>
            ))}
          </div>
          <FormError message={form.errors.form} />
          <div class="form-actions">
            <Button type="submit" variant="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save settings'}
            </Button>
            <span class="settings-status muted" role="status">
              {status}
            </span>
          </div>
        </form>
      )}
    </Card>
  );
}
