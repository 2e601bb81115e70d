// The executive's settings (GET/PUT /api/svc-ceo/settings): the provider CLI and model it runs, the
// CLI's path, extra environment, push-to-talk transcription and realtime voice. Secrets (environment
// values, API keys) are write-only, as in the chat's settings: a saved one shows as saved, is never
// filled in, and is sent only when a new one is typed (or cleared on purpose). Saving sends only what
// changed; a refused value shows under its field.
import { useEffect, useState } from 'preact/hooks';
import { Badge, Button, Card, Field, IconButton } from '../ui/components.tsx';
import { api, ApiError } from './api.ts';
import type { CeoProvider, CeoState } from './executive.tsx';
import { toast } from './feedback.tsx';
import { FormError, useFormErrors } from './parts.tsx';

const SAVED = '***';
const CUSTOM = '\u0000custom';

interface Settings {
  provider: string;
  model: string;
  executable: string;
  env: Record<string, string>;
  voice: { engine: 'auto' | 'offline' | 'endpoint'; baseUrl: string; model: string; apiKey: string; language: string };
  realtime: { baseUrl: string; apiKey: string; model: string; voice: string };
}

/** A secret as the form holds it: whether one is saved, what was typed, and whether to clear it. */
interface Secret {
  saved: boolean;
  typed: string;
  clear: boolean;
}

interface Draft {
  provider: string;
  model: string;
  customModel: boolean;
  executable: string;
  env: { name: string; secret: Secret }[];
  voice: Omit<Settings['voice'], 'apiKey'> & { apiKey: Secret };
  realtime: Omit<Settings['realtime'], 'apiKey'> & { apiKey: Secret };
}

const secretOf = (value: string): Secret => ({ saved: value === SAVED, typed: value === SAVED ? '' : value, clear: false });

const draftOf = (s: Settings, providers: CeoProvider[]): Draft => ({
  provider: s.provider,
  model: s.model,
  customModel: !(providers.find((p) => p.id === s.provider)?.models ?? []).some((m) => m.id === s.model),
  executable: s.executable,
  env: Object.entries(s.env).map(([name, value]) => ({ name, secret: secretOf(value) })),
  voice: { ...s.voice, apiKey: secretOf(s.voice.apiKey) },
  realtime: { ...s.realtime, apiKey: secretOf(s.realtime.apiKey) },
});

/** A secret's part of the patch: a new value, '' to clear a saved one, or nothing. */
const secretPatch = (s: Secret): string | undefined => (s.typed ? s.typed : s.clear ? '' : undefined);

/** The changes from `before` to the draft (the PUT body); empty when nothing changed. */
function patchOf(before: Settings, d: Draft): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['provider', 'model', 'executable'] as const) if (d[key].trim() !== before[key]) out[key] = d[key].trim();
  const env: Record<string, string | null> = {};
  for (const name of Object.keys(before.env)) if (!d.env.some((e) => e.name === name)) env[name] = null;
  for (const e of d.env) {
    const value = secretPatch(e.secret);
    if (!(e.name in before.env)) env[e.name] = value ?? '';
    else if (value !== undefined) env[e.name] = value;
  }
  if (Object.keys(env).length) out.env = env;
  for (const group of ['voice', 'realtime'] as const) {
    const changed: Record<string, string> = {};
    const was = before[group] as Record<string, string>;
    for (const [key, value] of Object.entries(d[group])) {
      if (key === 'apiKey') {
        const secret = secretPatch(value as Secret);
        if (secret !== undefined) changed[key] = secret;
      } else if ((value as string).trim() !== was[key]) changed[key] = (value as string).trim();
    }
    if (Object.keys(changed).length) out[group] = changed;
  }
  return out;
}

/** A write-only field: "saved" when one is, never its value; typing replaces it, Clear removes it. */
function SecretField({ id, label, help, secret, error, onChange }: { id: string; label: string; help?: string; secret: Secret; error?: string; onChange: (s: Secret) => void }) {
  const state = secret.clear ? 'cleared on save' : secret.saved && !secret.typed ? 'saved' : '';
  return (
    <Field id={id} label={<>{label} {state && <Badge tone={secret.clear ? 'warn' : 'ok'}>{state}</Badge>}</>} help={help ?? 'Secret: never shown again once saved.'} error={error}>
      {(c) => (
        <div class="input-row">
          <input
            {...c}
            type="password"
            autocomplete="new-password"
            spellcheck={false}
            value={secret.typed}
            placeholder={secret.saved ? 'Saved (hidden). Type to replace.' : ''}
            onInput={(e) => onChange({ ...secret, typed: (e.target as HTMLInputElement).value, clear: false })}
          />
          {secret.saved && (
            <Button small variant="ghost" onClick={() => onChange({ ...secret, typed: '', clear: !secret.clear })} aria-label={`${secret.clear ? 'Keep' : 'Clear'} the saved ${label.toLowerCase()}`}>
              {secret.clear ? 'Keep' : 'Clear'}
            </Button>
          )}
        </div>
      )}
    </Field>
  );
}

export function ExecutiveSettings() {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [providers, setProviders] = useState<CeoProvider[]>([]);
  const [d, setD] = useState<Draft | null>(null);
  const [newName, setNewName] = useState('');
  const [newValue, setNewValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const form = useFormErrors([] as string[]);
  useEffect(() => {
    void Promise.all([api<Settings>('/api/svc-ceo/settings'), api<CeoState>('/api/svc-ceo/state')]).then(
      ([s, state]) => {
        setSaved(s);
        setProviders(state.providers);
        setD(draftOf(s, state.providers));
      },
      (err) => form.show(err),
    );
  }, []);
  if (!saved || !d)
    return (
      <Card title="Executive settings" titleId="ceo-settings-title" class="ceo-settings">
        {form.errors.form ? <FormError message={form.errors.form} /> : <p class="muted">Loading…</p>}
      </Card>
    );
  const provider = providers.find((p) => p.id === d.provider);
  const models = provider?.models ?? [];
  const err = (field: string) => form.errors[field];
  const set = (patch: Partial<Draft>) => setD({ ...d, ...patch });
  const addEnv = () => {
    const name = newName.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return form.set('env.new', 'A name of letters, digits and _ that does not start with a digit, e.g. ANTHROPIC_API_KEY.');
    form.clear();
    set({ env: [...d.env.filter((e) => e.name !== name), { name, secret: { saved: false, typed: newValue, clear: false } }] });
    setNewName('');
    setNewValue('');
  };
  const save = async () => {
    form.clear();
    setStatus('');
    const body = patchOf(saved, d);
    if (!Object.keys(body).length) return setStatus('Nothing changed.');
    setBusy(true);
    try {
      const next = await api<Settings>('/api/svc-ceo/settings', { method: 'PUT', body });
      setSaved(next);
      setD(draftOf(next, providers));
      setStatus('Saved. The next turn uses them.');
      toast('Executive settings saved.');
    } catch (e) {
      // the field a 400 names is the path of the body ("realtime.baseUrl", "env.KEY"): shown under it
      if (e instanceof ApiError && e.field) form.set(e.field, e.message.replace(/^(body|query|params) field '[^']*': /, ''));
      else form.show(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Executive settings" titleId="ceo-settings-title" class="ceo-settings">
      <form
        class="settings-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset>
          <legend>Provider</legend>
          <div class="form-grid">
            <Field id="ceo-set-provider" label="Provider" help="The CLI the executive runs for each turn." error={err('provider')}>
              {(c) => (
                <select
                  {...c}
                  value={d.provider}
                  onChange={(e) => {
                    const id = (e.target as HTMLSelectElement).value;
                    const list = providers.find((p) => p.id === id)?.models ?? [];
                    set({ provider: id, model: list.some((m) => m.id === d.model) ? d.model : '', customModel: false });
                  }}
                >
                  {providers.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.displayName}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="ceo-set-model" label="Model" help={d.customModel ? 'Type the model name the CLI takes.' : "The provider's models; Other… for another name."} error={d.customModel ? undefined : err('model')}>
              {(c) => (
                <select
                  {...c}
                  value={d.customModel ? CUSTOM : d.model}
                  onChange={(e) => {
                    const v = (e.target as HTMLSelectElement).value;
                    set(v === CUSTOM ? { customModel: true } : { model: v, customModel: false });
                  }}
                >
                  {!models.some((m) => m.id === '') && <option value="">Default</option>}
                  {models.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.label}
                    </option>
                  ))}
                  <option value={CUSTOM}>Other…</option>
                </select>
              )}
            </Field>
            {d.customModel && (
              <Field id="ceo-set-model-name" label="Model name" error={err('model')}>
                {(c) => <input {...c} value={d.model} spellcheck={false} onInput={(e) => set({ model: (e.target as HTMLInputElement).value })} />}
              </Field>
            )}
            <Field id="ceo-set-executable" label="Executable" help={`Path of the CLI; empty: ${provider?.displayName ?? 'its'} command on PATH.`} error={err('executable')}>
              {(c) => <input {...c} value={d.executable} spellcheck={false} placeholder={provider ? `e.g. /usr/local/bin/${d.provider}` : ''} onInput={(e) => set({ executable: (e.target as HTMLInputElement).value })} />}
            </Field>
          </div>
        </fieldset>
        <fieldset>
          <legend>Environment</legend>
          <p class="muted small">Passed to the executive's CLI (API keys…). Values are secret: never shown again once saved.</p>
          {d.env.length > 0 && (
            <ul class="env-list">
              {d.env.map((e, n) => (
                <li key={e.name}>
                  <code class="env-name">{e.name}</code>
                  <input
                    class="control"
                    type="password"
                    autocomplete="new-password"
                    spellcheck={false}
                    aria-label={`Value of ${e.name}`}
                    aria-invalid={err(`env.${e.name}`) ? 'true' : undefined}
                    placeholder={e.secret.saved ? 'Saved (hidden). Type to replace.' : 'value'}
                    value={e.secret.typed}
                    onInput={(ev) => set({ env: d.env.map((x, m) => (m === n ? { ...x, secret: { ...x.secret, typed: (ev.target as HTMLInputElement).value } } : x)) })}
                  />
                  <IconButton small icon="x" label={`Remove ${e.name}`} onClick={() => set({ env: d.env.filter((_, m) => m !== n) })} />
                  {err(`env.${e.name}`) && (
                    <small class="field-error" role="alert">
                      {err(`env.${e.name}`)}
                    </small>
                  )}
                </li>
              ))}
            </ul>
          )}
          <div class="env-add">
            <input class="control mono" aria-label="New variable name" placeholder="NAME" value={newName} spellcheck={false} aria-invalid={err('env.new') ? 'true' : undefined} aria-describedby={err('env.new') ? 'env-new-error' : undefined} onInput={(e) => setNewName((e.target as HTMLInputElement).value)} />
            <input class="control" type="password" autocomplete="new-password" aria-label="New variable value" placeholder="value" value={newValue} onInput={(e) => setNewValue((e.target as HTMLInputElement).value)} />
            <Button small onClick={addEnv} disabled={!newName.trim()}>
              Add variable
            </Button>
          </div>
          {err('env.new') && (
            <small id="env-new-error" class="field-error" role="alert">
              {err('env.new')}
            </small>
          )}
        </fieldset>
        <fieldset>
          <legend>Push-to-talk transcription</legend>
          <div class="form-grid">
            <Field id="ceo-set-voice-engine" label="Engine" help="auto: the endpoint when one is set, else offline (pocketsphinx, US English)." error={err('voice.engine')}>
              {(c) => (
                <select {...c} value={d.voice.engine} onChange={(e) => set({ voice: { ...d.voice, engine: (e.target as HTMLSelectElement).value as Draft['voice']['engine'] } })}>
                  <option value="auto">auto</option>
                  <option value="offline">offline</option>
                  <option value="endpoint">endpoint</option>
                </select>
              )}
            </Field>
            <Field id="ceo-set-voice-url" label="Transcription endpoint" help="OpenAI-compatible …/v1; empty: the offline engine." error={err('voice.baseUrl')}>
              {(c) => <input {...c} type="url" value={d.voice.baseUrl} placeholder="http://127.0.0.1:8080/v1" onInput={(e) => set({ voice: { ...d.voice, baseUrl: (e.target as HTMLInputElement).value } })} />}
            </Field>
            <Field id="ceo-set-voice-model" label="Transcription model" error={err('voice.model')}>
              {(c) => <input {...c} value={d.voice.model} onInput={(e) => set({ voice: { ...d.voice, model: (e.target as HTMLInputElement).value } })} />}
            </Field>
            <Field id="ceo-set-voice-language" label="Language" help="Two letters such as en; empty: detected." error={err('voice.language')}>
              {(c) => <input {...c} value={d.voice.language} maxLength={2} onInput={(e) => set({ voice: { ...d.voice, language: (e.target as HTMLInputElement).value } })} />}
            </Field>
            <SecretField id="ceo-set-voice-key" label="Transcription API key" secret={d.voice.apiKey} error={err('voice.apiKey')} onChange={(apiKey) => set({ voice: { ...d.voice, apiKey } })} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Realtime voice</legend>
          <div class="form-grid">
            <Field id="ceo-set-rt-url" label="Realtime endpoint" help="e.g. https://api.openai.com/v1; empty turns live voice off." error={err('realtime.baseUrl')}>
              {(c) => <input {...c} type="url" value={d.realtime.baseUrl} placeholder="https://api.openai.com/v1" onInput={(e) => set({ realtime: { ...d.realtime, baseUrl: (e.target as HTMLInputElement).value } })} />}
            </Field>
            <SecretField id="ceo-set-rt-key" label="Realtime API key" secret={d.realtime.apiKey} error={err('realtime.apiKey')} onChange={(apiKey) => set({ realtime: { ...d.realtime, apiKey } })} />
            <Field id="ceo-set-rt-model" label="Realtime model" error={err('realtime.model')}>
              {(c) => <input {...c} value={d.realtime.model} onInput={(e) => set({ realtime: { ...d.realtime, model: (e.target as HTMLInputElement).value } })} />}
            </Field>
            <Field id="ceo-set-rt-voice" label="Voice" error={err('realtime.voice')}>
              {(c) => <input {...c} value={d.realtime.voice} onInput={(e) => set({ realtime: { ...d.realtime, voice: (e.target as HTMLInputElement).value } })} />}
            </Field>
          </div>
        </fieldset>
        <FormError message={form.errors.form ?? Object.entries(form.errors).find(([k]) => !knownField(k))?.[1]} />
        <div class="form-actions">
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save executive settings'}
          </Button>
          <span class="settings-status muted" role="status">
            {status}
          </span>
        </div>
      </form>
    </Card>
  );
}

/** The fields this form shows an error under (any other named field's error goes on the form). */
const knownField = (field: string) =>
  field === 'form' || field.startsWith('env.') || ['provider', 'model', 'executable', 'voice.engine', 'voice.baseUrl', 'voice.model', 'voice.language', 'voice.apiKey', 'realtime.baseUrl', 'realtime.apiKey', 'realtime.model', 'realtime.voice'].includes(field);
