// One memory search across every online instance: its hits labelled by instance, an empty state that
// says where it looked, and the instances that could not be searched (with why).
import { useState } from 'preact/hooks';
import { Badge, Button, Card, EmptyState, Field } from '../ui/components.tsx';
import { Icon } from '../ui/icons.tsx';
import { count } from '../ui/text.ts';
import { api, type Instance, type MemorySearch } from './api.ts';
import { FormError, useFormErrors } from './parts.tsx';

export function Memory({ instances }: { instances: Instance[] }) {
  const [q, setQ] = useState('');
  const [result, setResult] = useState<MemorySearch | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(['q'] as const);
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  const search = async () => {
    form.clear();
    const text = q.trim();
    if (!text) return form.set('q', 'Type what to look for.');
    setBusy(true);
    try {
      setResult(await api<MemorySearch>(`/api/dashboard/memory/search?q=${encodeURIComponent(text)}&limit=20`));
    } catch (err) {
      setResult(null);
      form.show(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Memory search" titleId="memory-title" class="memory">
      <form
        role="search"
        aria-label="Memory across instances"
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <Field id="memory-q" label="Search memory" help="Every online instance's memory, at once." error={form.errors.q}>
          {(c) => (
            <div class="input-row">
              <input {...c} type="search" value={q} placeholder="a fact, a name, a decision…" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
              <Button type="submit" disabled={busy}>
                <Icon name="search" size={15} /> {busy ? 'Searching…' : 'Search'}
              </Button>
            </div>
          )}
        </Field>
        <FormError message={form.errors.form} />
      </form>
      {result && (
        <div class="memory-results" aria-live="polite">
          {result.errors.length > 0 && (
            <ul class="memory-errors" aria-label="Instances not searched">
              {result.errors.map((e) => (
                <li key={e.instanceId} class="form-error">
                  Could not search {label(e.instanceId)}: {e.message}
                </li>
              ))}
            </ul>
          )}
          {result.hits.length > 0 ? (
            <>
              <p class="muted result-count">
                {count(result.hits.length, 'match', 'matches')} in {count(result.searched, 'instance')}
              </p>
              <ul class="hits">
                {result.hits.map((h) => (
                  <li key={`${h.instanceId}${h.path}${h.heading}`} class="hit">
                    <p class="hit-head">
                      <Badge tone="accent">{h.instanceLabel}</Badge>
                      <span class="hit-path">{h.path}</span>
                      {h.heading && <span class="muted">· {h.heading}</span>}
                    </p>
                    <p class="hit-snippet">{h.snippet}</p>
                  </li>
                ))}
              </ul>
            </>
          ) : result.searched === 0 ? (
            <EmptyState title="No instance is online to search">Memory is searched in the instances that are online; start or add one.</EmptyState>
          ) : (
            <EmptyState title={`No memory matches ‘${result.query}’ in ${count(result.searched, 'instance')}`}>Try other words, or fewer of them.</EmptyState>
          )}
        </div>
      )}
    </Card>
  );
}
