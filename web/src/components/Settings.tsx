// The settings page, built from whatever GET /api/settings returns (so new settings show up
// without a UI change). Saving sends only what changed, as a JSON merge patch. Secrets come back
// as "***": they are shown as "saved", never filled in, and only sent when the user types a new one.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, type ProviderInfo } from '../api.ts';
import { loadRegistry } from '../actions.ts';
import { setState, useStore } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';
import { ChannelStatus } from './Channels.tsx';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const REDACTED = '***';
/** Maps whose values are secrets (the server redacts them); other maps are plain text. */
const SECRET_MAPS = new Set(['agent.env']);
/** Settings that are maps (names chosen by the user: added and removed); any other object is a group of fields. */
const MAPS = new Set(['agent.env', 'agent.executables']);
/** Names of settings that hold a secret (shown as password fields even while empty). */
const SECRET_NAME = /(key|token|secret|password)$/i;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const INFO: Record<string, { label: string; help?: string; multiline?: boolean }> = {
  agent: { label: 'Agent' },
  network: { label: 'Network' },
  goals: { label: 'Goals' },
  channels: { label: 'Chat channels' },
  voice: { label: 'Voice input' },
  'channels.telegram': { label: 'Telegram', help: 'A bot from @BotFather. Only chats on the allowlist are answered; pair a chat below.' },
  'channels.discord': { label: 'Discord', help: 'A bot application with the Message Content intent. Only channels on the allowlist are answered.' },
  'channels.telegram.allowlist': { label: 'Allowed chats', help: 'Chat ids, one per line. Empty: nobody.' },
  'channels.discord.allowlist': { label: 'Allowed channels', help: 'Channel ids, one per line. Empty: nobody.' },
  'channels.telegram.mentionOnly': { label: 'In groups, only when mentioned' },
  'channels.discord.mentionOnly': { label: 'In servers, only when mentioned' },
  'channels.telegram.forwardReplies': { label: 'Forward answers of web and CLI runs to the last chat' },
  'channels.discord.forwardReplies': { label: 'Forward answers of web and CLI runs to the last channel' },
  'channels.telegram.toolStatus': { label: 'Show tool steps while the agent works', help: 'One message in the chat, edited at most every 2 s, deleted when the answer comes.' },
  'channels.discord.toolStatus': { label: 'Show tool steps while the agent works', help: 'One message in the channel, edited at most every 2 s, deleted when the answer comes.' },
  'channels.telegram.apiBaseUrl': { label: 'Bot API address' },
  'channels.discord.apiBaseUrl': { label: 'API address' },
  'voice.engine': { label: 'Engine', help: 'auto: the endpoint below when it is set, else offline (pocketsphinx, US English); offline; endpoint.' },
  'voice.baseUrl': { label: 'Transcription endpoint', help: 'OpenAI-compatible …/v1 (a local whisper server, or https://api.openai.com/v1). Empty: the offline engine.' },
  'channels.telegram.botToken': { label: 'Bot token', help: 'Secret: never shown again once saved.' },
  'channels.discord.botToken': { label: 'Bot token', help: 'Secret: never shown again once saved.' },
  'voice.apiKey': { label: 'API key', help: 'Secret; empty sends none.' },
  'voice.language': { label: 'Language', help: 'For the endpoint: two letters such as en; empty lets it detect the language.' },
  'agent.provider': { label: 'Provider', help: 'The command-line tool that runs the agent.' },
  'agent.model': { label: 'Model', help: "The provider's models, or Custom… to type another name." },
  'agent.effort': { label: 'Reasoning effort', help: 'Where the provider supports it; Default leaves it to the provider.' },
  'agent.fallback': { label: 'Fallback providers', help: 'Tried in this order when the active one fails.' },
  'agent.autoApprove': { label: 'Auto-approve tool use', help: 'Unattended runs cannot answer permission prompts.' },
  'agent.workingDir': { label: 'Working directory', help: 'Empty: the directory svc was started in.' },
  'agent.systemPrompt': { label: 'System prompt', help: 'Extra instructions for the provider.', multiline: true },
  'agent.idleTimeoutSec': { label: 'Idle timeout (s)', help: 'Stop a run that printed nothing for this long.' },
  'agent.maxRunSec': { label: 'Maximum run time (s)' },
  'agent.retries': { label: 'Retries', help: 'Retries of the same provider after a transient failure.' },
  'agent.customCommand': { label: 'Custom command', help: 'For the custom provider: one argument per line; {prompt} {model} {cwd} are filled in.' },
  'agent.executables': { label: 'Executables', help: 'Path of a provider tool when it is not on PATH under its usual name (provider → path).' },
  'agent.env': { label: 'Environment variables', help: 'Passed to provider tools (API keys…). Values are secret: they are never shown again.' },
  'goals.turnDelaySec': { label: 'Seconds before a goal\'s next turn' },
  'goals.staleDays': { label: 'Days before an unchanged goal stops', help: 'A goal with no checkpoint or action for this long stops continuing until it is resumed.' },
  'network.trustedLanBypass': { label: 'Trust the local network', help: 'Accept private-network requests without the access token.' },
  'network.allowedHosts': { label: 'Allowed host names', help: 'Besides IP addresses and localhost. One per line.' },
  'network.allowedOrigins': { label: 'Allowed browser origins', help: "Besides this server's own. One per line." },
  'memory.contextBudget': { label: 'Memory in each prompt (characters)', help: 'The profile and the most relevant notes added to every run; 0 adds none.' },
  'memory.embeddings': { label: 'Semantic search (optional)', help: 'An OpenAI-compatible embeddings endpoint (Ollama: http://127.0.0.1:11434/v1). Empty: search stays offline.' },
  'memory.summarize': { label: 'Summaries (optional)' },
  'memory.summarize.everyMessages': { label: 'Every this many messages', help: 'A short provider run writes 1–3 sentences into today\'s episode; 0 is off.' },
  'memory.summarize.provider': { label: 'Provider', help: "Empty: the agent's provider." },
};

const humanize = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
const infoOf = (path: string) => INFO[path] ?? { label: humanize(path.split('.').at(-1)!) };

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

function setIn(obj: Obj, path: string[], value: Json): Obj {
  const [head, ...rest] = path;
  const copy = { ...obj };
  copy[head!] = rest.length ? setIn((isObj(obj[head!]) ? obj[head!] : {}) as Obj, rest, value) : value;
  return copy;
}

/** The choice that reveals the text box for a value the list does not have. */
const CUSTOM = '\u0000custom';

interface Choice {
  id: string;
  label: string;
}

/** A value from a list (the registry's models or efforts), or one typed in after choosing Custom…. */
function ChoiceField(props: {
  id: string;
  dotted: string;
  label: string;
  help: preact.ComponentChild;
  described?: string;
  value: string;
  choices: Choice[];
  onChange: (v: Json) => void;
  error: preact.ComponentChild;
}) {
  const listed = props.choices.some((c) => c.id === props.value);
  const [typing, setTyping] = useState(!listed);
  const custom = typing || !listed;
  return (
    <div class="setting" data-field={props.dotted}>
      <label for={props.id}>{props.label}</label>
      <div class="choice">
        <select
          id={props.id}
          value={custom ? CUSTOM : props.value}
          aria-describedby={props.described}
          onChange={(e) => {
            const picked = (e.target as HTMLSelectElement).value;
            setTyping(picked === CUSTOM);
            if (picked !== CUSTOM) props.onChange(picked);
          }}
        >
          {props.choices.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
          <option value={CUSTOM}>Custom…</option>
        </select>
        {custom && (
          <input
            type="text"
            aria-label={`${props.label}: custom value`}
            placeholder="Name as the provider knows it"
            value={props.value}
            spellcheck={false}
            onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
          />
        )}
      </div>
      {props.help}
      {props.error}
    </div>
  );
}

/** An ordered choice of providers (the fallback chain): add, remove, move up and down. */
function OrderField(props: {
  id: string;
  dotted: string;
  label: string;
  help: preact.ComponentChild;
  value: string[];
  providers: ProviderInfo[];
  /** Not offered (the active provider). */
  exclude: string;
  onChange: (v: Json) => void;
  error: preact.ComponentChild;
}) {
  const [pick, setPick] = useState('');
  const { value } = props;
  const name = (id: string) => props.providers.find((p) => p.id === id)?.displayName ?? id;
  const rest = props.providers.filter((p) => !value.includes(p.id) && p.id !== props.exclude);
  const move = (from: number, to: number) => {
    const next = value.slice();
    next.splice(to, 0, next.splice(from, 1)[0]!);
    props.onChange(next);
  };
  return (
    <div class="setting order" data-field={props.dotted}>
      <span class="map-label" id={`${props.id}-label`}>
        {props.label}
      </span>
      {props.help}
      {value.length === 0 ? (
        <p class="muted order-none">None: a run that fails is not handed on.</p>
      ) : (
        <ol class="order-list" aria-labelledby={`${props.id}-label`}>
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
          <select id={props.id} aria-label="Fallback provider to add" value={pick} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
            <option value="">Add a provider…</option>
            {rest.map((p) => (
              <option key={p.id} value={p.id}>
                {p.displayName}
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
      {props.error}
    </div>
  );
}

/** The choices the registry offers for a field of the agent section, or undefined (a text box). */
function choicesOf(dotted: string, provider: ProviderInfo | undefined): Choice[] | undefined {
  if (!provider) return undefined;
  if (dotted === 'agent.model') {
    const models = provider.models.map((m) => ({ id: m.id, label: m.label }));
    return models.some((m) => m.id === '') ? models : [{ id: '', label: 'Default' }, ...models];
  }
  if (dotted === 'agent.effort') return [{ id: '', label: 'Default' }, ...provider.efforts.map((e) => ({ id: e, label: e }))];
  return undefined;
}

function Field({ path, value, onChange, error, section }: { path: string[]; value: Json; onChange: (v: Json) => void; error?: string; section?: Obj }) {
  const id = `set-${path.join('-')}`;
  const dotted = path.join('.');
  const info = infoOf(dotted);
  const providers = useStore((s) => s.registry?.providers);
  const help = info.help && <small id={`${id}-help`}>{info.help}</small>;
  const described = info.help ? `${id}-help` : undefined;
  const err = error && (
    <small class="field-error" role="alert">
      {error}
    </small>
  );

  if (typeof value === 'boolean') {
    return (
      <div class="setting check" data-field={dotted}>
        <input id={id} type="checkbox" checked={value} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} aria-describedby={described} />
        <label for={id}>{info.label}</label>
        {help}
        {err}
      </div>
    );
  }
  if (typeof value === 'number') {
    return (
      <div class="setting" data-field={dotted}>
        <label for={id}>{info.label}</label>
        <input
          id={id}
          type="number"
          step="any"
          value={value}
          onInput={(e) => {
            const n = (e.target as HTMLInputElement).valueAsNumber;
            if (!Number.isNaN(n)) onChange(n);
          }}
          aria-describedby={described}
          aria-invalid={Boolean(error)}
        />
        {help}
        {err}
      </div>
    );
  }
  if (dotted === 'agent.fallback' && providers?.length && Array.isArray(value)) {
    const exclude = typeof section?.provider === 'string' ? section.provider : '';
    return <OrderField id={id} dotted={dotted} label={info.label} help={help} value={value as string[]} providers={providers} exclude={exclude} onChange={onChange} error={err} />;
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return (
      <div class="setting" data-field={dotted}>
        <label for={id}>{info.label}</label>
        <textarea
          id={id}
          rows={Math.max(2, value.length + 1)}
          value={(value as string[]).join('\n')}
          onInput={(e) =>
            onChange(
              (e.target as HTMLTextAreaElement).value
                .split('\n')
                .map((s) => s.trim())
                .filter(Boolean),
            )
          }
          aria-describedby={described}
          aria-invalid={Boolean(error)}
        />
        {help}
        {err}
      </div>
    );
  }
  if (isObj(value) && MAPS.has(dotted) && Object.values(value).every((v) => typeof v === 'string')) {
    const secret = SECRET_MAPS.has(dotted) || Object.values(value).some((v) => v === REDACTED);
    return <MapField id={id} dotted={dotted} label={info.label} help={help} value={value as Record<string, string>} onChange={onChange} error={err} secret={secret} />;
  }
  if (isObj(value)) {
    return (
      <fieldset class="setting-group" data-field={dotted}>
        <legend>{info.label}</legend>
        {help}
        {Object.entries(value).map(([k, v]) => (
          <Field key={k} path={[...path, k]} value={v} onChange={(nv) => onChange({ ...value, [k]: nv })} />
        ))}
      </fieldset>
    );
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (dotted === 'agent.provider' && providers?.length) {
    return (
      <div class="setting" data-field={dotted}>
        <label for={id}>{info.label}</label>
        <select id={id} value={text} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} aria-describedby={described}>
          {providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.displayName}
            </option>
          ))}
        </select>
        {help}
        {err}
      </div>
    );
  }
  const choices = choicesOf(dotted, providers?.find((p) => p.id === section?.provider));
  if (choices && typeof value === 'string') {
    return <ChoiceField id={id} dotted={dotted} label={info.label} help={help} described={described} value={value} choices={choices} onChange={onChange} error={err} />;
  }
  if (text === REDACTED || (typeof value === 'string' && SECRET_NAME.test(path.at(-1)!))) {
    const saved = text === REDACTED;
    return (
      <div class="setting" data-field={dotted}>
        <label for={id}>{info.label}</label>
        <input
          id={id}
          type="password"
          placeholder={saved ? 'Saved (hidden). Type to replace.' : 'Not set'}
          value={saved ? undefined : text}
          autocomplete="new-password"
          onInput={(e) => onChange((e.target as HTMLInputElement).value || (saved ? REDACTED : ''))}
          aria-describedby={described}
        />
        {help}
        {err}
      </div>
    );
  }
  return (
    <div class="setting" data-field={dotted}>
      <label for={id}>{info.label}</label>
      {info.multiline ? (
        <textarea id={id} rows={4} value={text} onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)} aria-describedby={described} aria-invalid={Boolean(error)} />
      ) : (
        <input id={id} type="text" value={text} onInput={(e) => onChange((e.target as HTMLInputElement).value)} aria-describedby={described} aria-invalid={Boolean(error)} spellcheck={false} />
      )}
      {help}
      {err}
    </div>
  );
}

function MapField(props: {
  id: string;
  dotted: string;
  label: string;
  help: preact.ComponentChild;
  value: Record<string, string>;
  onChange: (v: Json) => void;
  error: preact.ComponentChild;
  secret: boolean;
}) {
  // (a cast: the JSX types cannot narrow a union of input types)
  const kind = (props.secret ? 'password' : 'text') as 'text';
  const [newKey, setNewKey] = useState('');
  const [newValue, setNewValue] = useState('');
  const entries = Object.entries(props.value);
  const add = () => {
    const key = newKey.trim();
    if (!key) return;
    props.onChange({ ...props.value, [key]: newValue });
    setNewKey('');
    setNewValue('');
  };
  return (
    <div class="setting map" data-field={props.dotted}>
      <span class="map-label" id={`${props.id}-label`}>
        {props.label}
      </span>
      {props.help}
      <ul class="map-list" aria-labelledby={`${props.id}-label`}>
        {entries.map(([k, v]) => (
          <li key={k}>
            <code>{k}</code>
            <input
              type={kind}
              aria-label={`Value of ${k}`}
              placeholder={v === REDACTED ? 'Saved (hidden). Type to replace.' : ''}
              value={v === REDACTED ? '' : v}
              autocomplete={props.secret ? 'new-password' : 'off'}
              spellcheck={false}
              onInput={(e) => {
                const typed = (e.target as HTMLInputElement).value;
                props.onChange({ ...props.value, [k]: props.secret ? typed || REDACTED : typed });
              }}
            />
            <button
              type="button"
              class="icon-btn small"
              aria-label={`Remove ${k}`}
              onClick={() => {
                const copy = { ...props.value };
                delete copy[k];
                props.onChange(copy);
              }}
            >
              <Icon name="x" size={14} />
            </button>
          </li>
        ))}
      </ul>
      <div class="map-add">
        <input type="text" aria-label="New name" placeholder={props.dotted === 'agent.env' ? 'NAME' : 'name'} value={newKey} onInput={(e) => setNewKey((e.target as HTMLInputElement).value)} spellcheck={false} />
        <input type={kind} aria-label="New value" placeholder="value" value={newValue} autocomplete={props.secret ? 'new-password' : 'off'} onInput={(e) => setNewValue((e.target as HTMLInputElement).value)} spellcheck={false} />
        <button type="button" class="btn small" onClick={add} disabled={!newKey.trim()}>
          Add
        </button>
      </div>
      {props.error}
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
  const [original, setOriginal] = useState<Obj | null>(null);
  const [draft, setDraft] = useState<Obj | null>(null);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  const load = async () => {
    try {
      const settings = (await api.settings()) as Obj;
      setOriginal(settings);
      setDraft(settings);
      setError(null);
    } catch (err) {
      setError({ message: (err as Error).message });
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const patch = useMemo(() => (original && draft ? diffPatch(original, draft) : undefined), [original, draft]);

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
      setError({ message: (err as Error).message, field });
      if (field) document.getElementById(`set-${field.replace(/\./g, '-')}`)?.focus();
    } finally {
      setSaving(false);
    }
  };

  const close = () => {
    if (patch && !confirm('Discard the unsaved changes?')) return;
    setState({ page: 'chat' });
  };

  return (
    <main class="settings-page" aria-labelledby="settings-title">
      <header class="settings-head">
        <button type="button" class="icon-btn" aria-label="Back to the chat" onClick={close}>
          <Icon name="back" />
        </button>
        <h1 id="settings-title">Settings</h1>
      </header>
      {!draft && !error && <p class="muted">Loading…</p>}
      {error && !draft && (
        <p class="form-error" role="alert">
          {error.message}
        </p>
      )}
      {draft && (
        <form class="settings-form" onSubmit={save} onInput={() => setSaved(false)} noValidate>
          {Object.entries(draft).map(([section, value]) =>
            isObj(value) ? (
              <fieldset key={section} class="setting-section">
                <legend>{infoOf(section).label}</legend>
                {Object.entries(value).map(([k, v]) => (
                  <Field
                    key={k}
                    path={[section, k]}
                    value={v}
                    section={value}
                    error={error?.field === `${section}.${k}` || error?.field?.startsWith(`${section}.${k}.`) ? error.message : undefined}
                    onChange={(nv) => {
                      setDraft((d) => followProvider(setIn(d!, [section, k], nv), section, k, providers));
                      setSaved(false);
                    }}
                  />
                ))}
                {section === 'channels' && <ChannelStatus />}
              </fieldset>
            ) : null,
          )}
          <div class="settings-actions">
            {error && draft && !error.field && (
              <p class="form-error" role="alert">
                {error.message}
              </p>
            )}
            {saved && (
              <span class="saved" role="status">
                <Icon name="check" size={15} /> Saved
              </span>
            )}
            <button type="button" class="btn ghost" disabled={!patch || saving} onClick={() => setDraft(original)}>
              Revert
            </button>
            <button type="submit" class="btn primary" disabled={!patch || saving}>
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
        </form>
      )}
    </main>
  );
}
