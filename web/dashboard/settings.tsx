// The manager's settings panel: the scan range and interval, the health-check period and the event
// bridge's backoff cap. Saved with PUT /api/dashboard/settings, which applies them at once.
import { useEffect, useState } from 'preact/hooks';
import { api, type DashboardSettingsView } from './api.ts';

type Fields = Record<'from' | 'count' | 'intervalSec' | 'healthIntervalSec' | 'bridgeMaxBackoffSec', string>;

const fieldsOf = ({ settings: s }: DashboardSettingsView): Fields => ({
  from: String(s.scan.from),
  count: String(s.scan.count),
  intervalSec: String(s.scan.intervalSec),
  healthIntervalSec: String(s.healthIntervalSec),
  bridgeMaxBackoffSec: String(s.bridgeMaxBackoffSec),
});

const LABELS: [keyof Fields, string, string][] = [
  ['from', 'First port to scan', 'scan.from'],
  ['count', 'Ports to scan', 'scan.count'],
  ['intervalSec', 'Scan every (s)', 'scan.intervalSec'],
  ['healthIntervalSec', 'Check instances every (s)', 'healthIntervalSec'],
  ['bridgeMaxBackoffSec', 'Longest reconnect wait (s)', 'bridgeMaxBackoffSec'],
];

export function Settings() {
  const [view, setView] = useState<DashboardSettingsView | null>(null);
  const [fields, setFields] = useState<Fields | null>(null);
  const [status, setStatus] = useState('');
  useEffect(() => {
    void api<DashboardSettingsView>('/api/dashboard/settings').then((v) => (setView(v), setFields(fieldsOf(v))));
  }, []);
  if (!view || !fields) return null;
  const save = async () => {
    // only the fields changed here: a start-up flag's value stays until someone sets that field
    const before = fieldsOf(view);
    const changed = (k: keyof Fields) => (fields[k] !== before[k] ? { [k]: Number(fields[k]) } : {});
    const scan = { ...changed('from'), ...changed('count'), ...changed('intervalSec') };
    const body = { ...(Object.keys(scan).length ? { scan } : {}), ...changed('healthIntervalSec'), ...changed('bridgeMaxBackoffSec') };
    try {
      const next = await api<DashboardSettingsView>('/api/dashboard/settings', { method: 'PUT', body });
      setView(next);
      setFields(fieldsOf(next));
      setStatus('Saved and applied.');
    } catch (err) {
      setStatus((err as Error).message);
    }
  };
  return (
    <section aria-label="Settings" class="settings">
      <h2>Settings</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        {LABELS.map(([key, label, dotted]) => (
          <label key={key}>
            {label}
            <input type="number" step="any" value={fields[key]} onInput={(e) => setFields({ ...fields, [key]: (e.target as HTMLInputElement).value })} />
            {view.overridden.includes(dotted) && <small class="override">set by a start-up flag for this run</small>}
          </label>
        ))}
        <button type="submit">Save settings</button>
        <span class="settings-status" role="status">{status}</span>
      </form>
    </section>
  );
}
