// The settings page, made from the settings JSON Schema (GET /api/settings/schema): each section and
// field is shown with the label and help its zod schema carries, a select for a fixed choice, a
// checkbox for a switch, a number box with its bounds, lists one per line, maps, and secrets that are
// write-only. New settings show up without a UI change. A few fields get more than their schema says:
// the model and effort offered from the provider registry, the ordered fallback list, the channels'
// live state and pairing. Saving sends only what changed, as a JSON merge patch; a refused value is
// named by the server (`field`) and its error is shown under that field, in plain words.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, get, type ProviderInfo } from '../api.ts';
import { loadRegistry } from '../actions.ts';
import { onLiveEvent, setState, toast, useStore } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';
import { ConfirmDialog } from '../../ui/components.tsx';
import { ChannelStatus } from './Channels.tsx';
import { PushControl } from '../../ui/PushControl.tsx';
import { chatPush } from '../push.ts';
import { DiskUse } from './DiskUse.tsx';
import { Endpoints } from './Endpoints.tsx';
import { choicesOf, plainError, REDACTED, settingKind, type Choice, type SettingSchema } from '../../../src/protocol/settings-form.ts';
import './settings.css';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The merge patch that turns `before` into `after` (RFC 7396). */
export function diffPatch(before: Json, after: Json): Json | undefined {
  if (isObj(before) && isObj(after)) {
    const out: Obj = {};
    for (const key of Object.keys(before)) if (!(key in after)) out[key] = null;
    for (const [key, value] of Object.entries(after)) {
      if (!(key in before)) {
        out[key] = value;
        continue;
      }
      const d = diffPatch(before[key]!, value);
      if (d !== undefined) out[key] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? undefined : after;
}

function setIn(obj: Obj, path: readonly string[], value: Json): Obj {
  const [head, ...rest] = path;
  const copy = { ...obj };
  copy[head!] = rest.length ? setIn((isObj(obj[head!]) ? obj[head!] : {}) as Obj, rest, value) : value;
  return copy;
}

const idOf = (path: readonly string[]) => `set-${path.join('-')}`;

/** The field a failing path belongs to: the first part of it that is not a group of fields (undefined: none is shown). */
function ownerOf(schema: SettingSchema, field: string): string[] | undefined {
  const parts = field.split('.');
  let node: SettingSchema | undefined = schema;
  for (let i = 0; i < parts.length; i++) {
    node = node?.properties?.[parts[i]!];
    if (!node) return undefined;
    if (i > 0 && settingKind(node) !== 'group') return parts.slice(0, i + 1);
  }
  return undefined;
}

interface FieldError {
  /** The server's sentence, and the path it names. */
  message: string;
  field: string;
}

/** What a field shows under it when the last save failed on it (or below it). */
function errorFor(path: readonly string[], schema: SettingSchema, value: Json, error: FieldError | null): string | undefined {
  if (!error) return undefined;
  const dotted = path.join('.');
  if (error.field !== dotted && !error.field.startsWith(`${dotted}.`)) return undefined;
  if (settingKind(schema) === 'group') return undefined;
  const rest = error.field === dotted ? [] : error.field.slice(dotted.length + 1).split('.');
  return plainError(error.message, schema, value, rest, error.field);
}

interface FieldProps {
  path: readonly string[];
  schema: SettingSchema;
  value: Json;
  onChange: (v: Json) => void;
  error: FieldError | null;
  /** The section the field is in (model and effort follow its provider). */
  section: Obj;
}

/** The label, help and error of a field, and the ids that tie them to its control. */
function useFieldText(props: FieldProps) {
  const id = idOf(props.path);
  const error = errorFor(props.path, props.schema, props.value, props.error);
  const help = props.schema.description;
  const describedBy = [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return {
    id,
    dotted: props.path.join('.'),
    label: props.schema.title ?? props.path.at(-1)!,
    describedBy,
    invalid: error ? ('true' as const) : undefined,
    help: help ? <small id={`${id}-help`}>{help}</small> : null,
    error: error ? (
      <small id={`${id}-error`} class="field-error" role="alert">
        <Icon name="alert" size={13} /> {error}
      </small>
    ) : null,
  };
}

/** The choice that reveals the text box for a value the list does not have. */
const CUSTOM = '\u0000custom';

/** A value from a list (the registry's models or efforts), or one typed in after choosing Custom…. */
function RegistryChoice(props: FieldProps & { choices: Choice[] }) {
  const t = useFieldText(props);
  const value = typeof props.value === 'string' ? props.value : '';
  const listed = props.choices.some((c) => c.value === value);
  const [typing, setTyping] = useState(!listed);
  const custom = typing || !listed;
  return (
    <div class="setting" data-field={t.dotted}>
      <label for={t.id}>{t.label}</label>
      <div class="choice">
        <select
          id={t.id}
          class="control"
          value={custom ? CUSTOM : value}
          aria-describedby={t.describedBy}
          aria-invalid={t.invalid}
          onChange={(e) => {
            const picked = (e.target as HTMLSelectElement).value;
            setTyping(picked === CUSTOM);
            if (picked !== CUSTOM) props.onChange(picked);
          }}
        >
          {props.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
          <option value={CUSTOM}>Custom…</option>
        </select>
        {custom && (
          <input
            type="text"
            class="control"
            aria-label={`${t.label}: custom value`}
            placeholder="Name as the provider knows it"
            value={value}
            spellcheck={false}
            onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
          />
        )}
      </div>
      {t.help}
      {t.error}
    </div>
  );
}

/** The model or effort choices the registry offers for the section's provider (undefined: a text box). */
function registryChoices(dotted: string, provider: ProviderInfo | undefined): Choice[] | undefined {
  if (!provider) return undefined;
  if (dotted === 'agent.model') {
    const models = provider.models.map((m) => ({ value: m.id, label: m.label }));
    return models.some((m) => m.value === '') ? models : [{ value: '', label: 'Default' }, ...models];
  }
  if (dotted === 'agent.effort') return [{ value: '', label: 'Default' }, ...provider.efforts.map((e) => ({ value: e, label: e }))];
  return undefined;
}

/** An ordered list of choices (the fallback chain): add, remove, move up and down. */
function OrderField(props: FieldProps & { choices: Choice[]; exclude?: string }) {
  const t = useFieldText(props);
  const [pick, setPick] = useState('');
  const value = (Array.isArray(props.value) ? props.value : []).filter((v): v is string => typeof v === 'string');
  const name = (id: string) => props.choices.find((c) => c.value === id)?.label ?? id;
  const rest = props.choices.filter((c) => !value.includes(c.value) && c.value !== props.exclude);
  const move = (from: number, to: number) => {
    const next = value.slice();
    next.splice(to, 0, next.splice(from, 1)[0]!);
    props.onChange(next);
  };
  return (
    <div class="setting order" data-field={t.dotted}>
      <span class="map-label" id={`${t.id}-label`}>
        {t.label}
      </span>
      {t.help}
      {value.length === 0 ? (
        <p class="muted order-none">None: a run that fails is not handed on.</p>
      ) : (
        <ol class="order-list" aria-labelledby={`${t.id}-label`}>
          {value.map((p, i) => (
            <li key={p} data-provider={p}>
              <span class="order-name">{name(p)}</span>
              <button type="button" class="icon-btn small" aria-label={`Move ${name(p)} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                <Icon name="up" size={15} />
              </button>
              <button type="button" class="icon-btn small" aria-label={`Move ${name(p)} down`} disabled={i === value.length - 1} onClick={() => move(i, i + 1)}>
                <Icon name="down" size={15} />
              </button>
              <button type="button" class="icon-btn small" aria-label={`Remove ${name(p)}`} onClick={() => props.onChange(value.filter((x) => x !== p))}>
                <Icon name="x" size={14} />
              </button>
            </li>
          ))}
        </ol>
      )}
      {rest.length > 0 && (
        <div class="map-add">
          <select id={t.id} class="control" aria-label={props.schema['x-addLabel'] ?? `Add to ${t.label}`} aria-describedby={t.describedBy} value={pick} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
            <option value="">Add…</option>
            {rest.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn small"
            disabled={!pick}
            onClick={() => {
              props.onChange([...value, pick]);
              setPick('');
            }}
          >
            Add
          </button>
        </div>
      )}
      {t.error}
    </div>
  );
}

/** A map of names chosen by the user (environment variables, executables): add, change, remove. Secret values are write-only. */
function MapField(props: FieldProps) {
  const t = useFieldText(props);
  const map = isObj(props.value) ? (props.value as Record<string, string>) : {};
  const values = typeof props.schema.additionalProperties === 'object' ? props.schema.additionalProperties : {};
  const secret = Boolean(props.schema.writeOnly || values.writeOnly);
  const keyChoices = props.schema.propertyNames ? choicesOf({ ...props.schema.propertyNames, 'x-enumLabels': props.schema['x-enumLabels'] }) : undefined;
  // (a cast: the JSX types cannot narrow a union of input types)
  const kind = (secret ? 'password' : 'text') as 'text';
  const [newKey, setNewKey] = useState('');
  const [newValue, setNewValue] = useState('');
  const entries = Object.entries(map);
  const free = keyChoices?.filter((c) => !(c.value in map));
  const keyName = (k: string) => keyChoices?.find((c) => c.value === k)?.label ?? k;
  const add = () => {
    const key = newKey.trim();
    if (!key) return;
    props.onChange({ ...map, [key]: newValue });
    setNewKey('');
    setNewValue('');
  };
  const keyLabel = props.schema['x-keyLabel'] ?? 'Name';
  return (
    <div class="setting map" data-field={t.dotted}>
      <span class="map-label" id={`${t.id}-label`}>
        {t.label}
      </span>
      {t.help}
      {entries.length > 0 && (
        <ul class="map-list" aria-labelledby={`${t.id}-label`}>
          {entries.map(([k, v], i) => (
            <li key={k}>
              <code title={k}>{keyName(k)}</code>
              <input
                id={i === 0 ? t.id : undefined}
                type={kind}
                class="control"
                aria-label={`Value of ${k}`}
                placeholder={v === REDACTED ? 'Saved (hidden). Type to replace.' : ''}
                value={v === REDACTED ? '' : v}
                autocomplete={secret ? 'new-password' : 'off'}
                spellcheck={false}
                aria-invalid={t.invalid}
                onInput={(e) => {
                  const typed = (e.target as HTMLInputElement).value;
                  props.onChange({ ...map, [k]: secret ? typed || REDACTED : typed });
                }}
              />
              <button
                type="button"
                class="icon-btn small"
                aria-label={`Remove ${k}`}
                onClick={() => {
                  const copy = { ...map };
                  delete copy[k];
                  props.onChange(copy);
                }}
              >
                <Icon name="x" size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {(!free || free.length > 0) && (
        <div class="map-add">
          {free ? (
            <select id={entries.length ? undefined : t.id} class="control" aria-label="New name" value={newKey} onChange={(e) => setNewKey((e.target as HTMLSelectElement).value)}>
              <option value="">{keyLabel}…</option>
              {free.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={entries.length ? undefined : t.id}
              type="text"
              class="control"
              aria-label="New name"
              placeholder={keyLabel}
              value={newKey}
              onInput={(e) => setNewKey((e.target as HTMLInputElement).value)}
              spellcheck={false}
            />
          )}
          <input
            type={kind}
            class="control"
            aria-label="New value"
            placeholder={props.schema['x-valueLabel'] ?? 'value'}
            value={newValue}
            autocomplete={secret ? 'new-password' : 'off'}
            onInput={(e) => setNewValue((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
            spellcheck={false}
          />
          <button type="button" class="btn small" onClick={add} disabled={!newKey.trim()}>
            Add
          </button>
        </div>
      )}
      {t.error}
    </div>
  );
}

function Field(props: FieldProps) {
  const { schema, value, onChange, path } = props;
  const providers = useStore((s) => s.registry?.providers);
  const t = useFieldText(props);
  const kind = settingKind(schema);

  // the registry's models and efforts for the section's provider (a text box until it has loaded)
  const offered = registryChoices(t.dotted, providers?.find((p) => p.id === props.section.provider));
  if (offered && typeof value === 'string') return <RegistryChoice {...props} choices={offered} />;

  if (kind === 'group' && isObj(value)) {
    return (
      <fieldset class="setting-group" data-field={t.dotted}>
        <legend>{t.label}</legend>
        {schema.description && <p class="group-help">{schema.description}</p>}
        {Object.entries(schema.properties ?? {}).map(([k, child]) =>
          k in value ? <Field key={k} path={[...path, k]} schema={child} value={value[k]!} error={props.error} section={props.section} onChange={(nv) => onChange({ ...value, [k]: nv })} /> : null,
        )}
      </fieldset>
    );
  }
  if (kind === 'boolean') {
    return (
      <div class="setting check" data-field={t.dotted}>
        <input id={t.id} type="checkbox" checked={value === true} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} aria-describedby={t.describedBy} aria-invalid={t.invalid} />
        <label for={t.id}>{t.label}</label>
        {t.help}
        {t.error}
      </div>
    );
  }
  if (kind === 'number') {
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    const whole = schema.type === 'integer';
    return (
      <div class="setting number" data-field={t.dotted}>
        <label for={t.id}>{t.label}</label>
        <input
          id={t.id}
          type="number"
          class="control"
          inputMode={whole ? 'numeric' : 'decimal'}
          min={min}
          max={max}
          step={whole ? 1 : 'any'}
          value={typeof value === 'number' ? value : ''}
          onInput={(e) => {
            const n = (e.target as HTMLInputElement).valueAsNumber;
            if (!Number.isNaN(n)) onChange(n);
          }}
          aria-describedby={t.describedBy}
          aria-invalid={t.invalid}
        />
        {t.help}
        {t.error}
      </div>
    );
  }
  if (kind === 'choice') {
    const choices = choicesOf(schema)!;
    const text = typeof value === 'string' ? value : '';
    return (
      <div class="setting select" data-field={t.dotted}>
        <label for={t.id}>{t.label}</label>
        <select id={t.id} class="control" value={text} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} aria-describedby={t.describedBy} aria-invalid={t.invalid}>
          {!choices.some((c) => c.value === text) && <option value={text}>{text}</option>}
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        {t.help}
        {t.error}
      </div>
    );
  }
  if (kind === 'list' && schema.items && choicesOf(schema.items)) {
    return <OrderField {...props} choices={choicesOf(schema.items)!} exclude={t.dotted === 'agent.fallback' && typeof props.section.provider === 'string' ? props.section.provider : undefined} />;
  }
  if (kind === 'list') {
    const lines = Array.isArray(value) ? value.map(String) : [];
    return (
      <div class="setting" data-field={t.dotted}>
        <label for={t.id}>{t.label}</label>
        <textarea
          id={t.id}
          class="control mono"
          rows={Math.max(2, Math.min(lines.length + 1, 8))}
          value={lines.join('\n')}
          onInput={(e) =>
            onChange(
              (e.target as HTMLTextAreaElement).value
                .split('\n')
                .map((s) => s.trim())
                .filter(Boolean),
            )
          }
          aria-describedby={t.describedBy}
          aria-invalid={t.invalid}
          spellcheck={false}
        />
        {t.help}
        {t.error}
      </div>
    );
  }
  if (kind === 'map') return <MapField {...props} />;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (kind === 'secret') {
    const saved = text === REDACTED;
    return (
      <div class="setting" data-field={t.dotted}>
        <label for={t.id}>{t.label}</label>
        <input
          id={t.id}
          type="password"
          class="control"
          placeholder={saved ? 'Saved (hidden). Type to replace.' : 'Not set'}
          value={saved ? '' : text}
          autocomplete="new-password"
          onInput={(e) => onChange((e.target as HTMLInputElement).value || (saved ? REDACTED : ''))}
          aria-describedby={t.describedBy}
          aria-invalid={t.invalid}
        />
        {t.help}
        {t.error}
      </div>
    );
  }
  return (
    <div class="setting" data-field={t.dotted}>
      <label for={t.id}>{t.label}</label>
      {kind === 'multiline' ? (
        <textarea id={t.id} class="control" rows={4} value={text} onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)} aria-describedby={t.describedBy} aria-invalid={t.invalid} />
      ) : (
        <input id={t.id} type="text" class="control" value={text} onInput={(e) => onChange((e.target as HTMLInputElement).value)} aria-describedby={t.describedBy} aria-invalid={t.invalid} spellcheck={false} />
      )}
      {t.help}
      {t.error}
    </div>
  );
}

/** A new provider keeps the model and effort only when it offers them (else its defaults). */
function followProvider(draft: Obj, section: string, key: string, providers: ProviderInfo[] | undefined): Obj {
  const agent = draft[section];
  if (section !== 'agent' || key !== 'provider' || !isObj(agent)) return draft;
  const info = providers?.find((p) => p.id === agent.provider);
  if (!info) return draft;
  const next = { ...agent };
  if (typeof next.model === 'string' && !info.models.some((m) => m.id === next.model)) next.model = '';
  if (typeof next.effort === 'string' && !info.efforts.includes(next.effort)) next.effort = '';
  return { ...draft, agent: next };
}

export function Settings() {
  const providers = useStore((s) => s.registry?.providers);
  const [schema, setSchema] = useState<SettingSchema | null>(null);
  const [original, setOriginal] = useState<Obj | null>(null);
  const [draft, setDraft] = useState<Obj | null>(null);
  const [loadError, setLoadError] = useState('');
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const focusAfterError = useRef<string | null>(null);

  const load = async () => {
    try {
      const [settings, published] = await Promise.all([api.settings() as Promise<Obj>, get<SettingSchema>('/api/settings/schema')]);
      setSchema(published);
      setOriginal(settings);
      setDraft(settings);
      setLoadError('');
    } catch (err) {
      setLoadError((err as Error).message);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  // another page (or a slash command) changed settings: follow them where nothing here is unsaved
  const current = useRef({ original, draft });
  current.current = { original, draft };
  useEffect(
    () =>
      onLiveEvent((ev) => {
        const { original: before, draft: edited } = current.current;
        if (ev.event !== 'settings_changed' || !isObj(ev.values) || !before) return;
        const changed = ev.values as Obj;
        setOriginal({ ...before, ...changed });
        // a section edited here keeps the edits; the others follow
        if (!edited) return;
        const untouched = Object.keys(changed).filter((name) => !diffPatch(before[name] ?? null, edited[name] ?? null));
        if (untouched.length) setDraft({ ...edited, ...Object.fromEntries(untouched.map((name) => [name, changed[name]!])) });
      }),
    [],
  );

  const patch = useMemo(() => (original && draft ? diffPatch(original, draft) : undefined), [original, draft]);
  const owner = useMemo(() => (schema && error?.field ? ownerOf(schema, error.field) : undefined), [schema, error]);

  // the field the server refused gets the focus once its error is shown
  useEffect(() => {
    const id = focusAfterError.current;
    focusAfterError.current = null;
    if (!id) return;
    const el = document.getElementById(id);
    el?.focus();
    el?.scrollIntoView({ block: 'center' });
  }, [error]);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!patch) return;
    setSaving(true);
    setSaved(false);
    const submitted = draft;
    try {
      const next = (await api.saveSettings(patch)) as Obj;
      setOriginal(next);
      // what the user typed while it was saving stays (as a new change)
      setDraft((d) => (d === submitted ? next : d));
      setError(null);
      setSaved(true);
      void loadRegistry();
    } catch (err) {
      const field = err instanceof ApiError && typeof err.body?.field === 'string' ? err.body.field : undefined;
      const at = schema && field ? ownerOf(schema, field) : undefined;
      if (at) focusAfterError.current = idOf(at);
      setError({ message: (err as Error).message, field });
    } finally {
      setSaving(false);
    }
  };

  const close = () => {
    if (patch) setLeaving(true);
    else setState({ page: 'chat' });
  };

  const fieldError: FieldError | null = error?.field && owner ? { message: error.message, field: error.field } : null;
  const sections = schema ? Object.entries(schema.properties ?? {}).filter(([name]) => draft && isObj(draft[name])) : [];

  return (
    <main class="settings-page" aria-labelledby="settings-title">
      <header class="settings-head">
        <button type="button" class="icon-btn" aria-label="Back to the chat" onClick={close}>
          <Icon name="back" />
        </button>
        <h1 id="settings-title">Settings</h1>
      </header>
      {!draft && !loadError && <p class="muted settings-loading">Loading…</p>}
      {loadError && !draft && (
        <p class="form-error settings-loading" role="alert">
          {loadError}{' '}
          <button type="button" class="btn small" onClick={() => void load()}>
            Try again
          </button>
        </p>
      )}
      {draft && schema && (
        <>
          <nav class="settings-nav" aria-label="Settings sections">
            {sections.map(([name, section]) => (
              <button
                key={name}
                type="button"
                class="settings-nav-item"
                onClick={() => {
                  const target = document.getElementById(`section-${name}`);
                  target?.scrollIntoView({ block: 'start' });
                  target?.querySelector<HTMLElement>('input, select, textarea, button')?.focus({ preventScroll: true });
                }}
              >
                {section.title ?? name}
              </button>
            ))}
          </nav>
          <form class="settings-form" onSubmit={save} onInput={() => setSaved(false)} noValidate>
            {sections.map(([name, section]) => {
              const value = draft[name] as Obj;
              return (
                <fieldset key={name} id={`section-${name}`} class="setting-section" data-section={name}>
                  <legend>{section.title ?? name}</legend>
                  {section.description && <p class="section-help">{section.description}</p>}
                  {Object.entries(section.properties ?? {}).map(([k, field]) =>
                    k in value ? (
                      <Field
                        key={k}
                        path={[name, k]}
                        schema={field}
                        value={value[k]!}
                        section={value}
                        error={fieldError}
                        onChange={(nv) => {
                          setDraft((d) => followProvider(setIn(d!, [name, k], nv), name, k, providers));
                          setSaved(false);
                          // the refused value was changed: its error no longer applies
                          if (error?.field && (error.field === `${name}.${k}` || error.field.startsWith(`${name}.${k}.`))) setError(null);
                        }}
                      />
                    ) : null,
                  )}
                  {name === 'channels' && <ChannelStatus />}
                  {name === 'push' && <PushControl device={chatPush} toast={toast} />}
                  {name === 'traces' && <DiskUse />}
                  {name === 'agent' && <Endpoints />}
                </fieldset>
              );
            })}
            <div class="settings-actions">
              {error && !fieldError && (
                <p class="form-error" role="alert">
                  {error.message}
                </p>
              )}
              {fieldError && (
                <p class="form-error settings-error-note">
                  Not saved: <button type="button" class="link-btn" onClick={() => owner && document.getElementById(idOf(owner))?.focus()}>{schemaTitle(schema, owner!)}</button> needs a change.
                </p>
              )}
              {saved && (
                <span class="saved" role="status">
                  <Icon name="check" size={15} /> Saved
                </span>
              )}
              <button
                type="button"
                class="btn ghost"
                disabled={!patch || saving}
                onClick={() => {
                  setDraft(original);
                  setError(null);
                }}
              >
                Revert
              </button>
              <button type="submit" class="btn primary" disabled={!patch || saving}>
                {saving ? 'Saving…' : 'Save'}
              </button>
            </div>
          </form>
        </>
      )}
      <ConfirmDialog
        open={leaving}
        title="Discard the unsaved changes?"
        confirmLabel="Discard"
        cancelLabel="Keep editing"
        danger
        onCancel={() => setLeaving(false)}
        onConfirm={() => {
          setLeaving(false);
          setState({ page: 'chat' });
        }}
      >
        <p>The changes on this page have not been saved.</p>
      </ConfirmDialog>
    </main>
  );
}

/** The title of the field at `path` (section title and field title, e.g. "Orchestration › Workers at once"). */
function schemaTitle(schema: SettingSchema, path: readonly string[]): string {
  const names: string[] = [];
  let node: SettingSchema | undefined = schema;
  for (const key of path) {
    node = node?.properties?.[key];
    names.push(node?.title ?? key);
  }
  return names.join(' › ');
}
