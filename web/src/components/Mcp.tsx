// The MCP panel: the MCP servers every run gets (GET/PUT /api/mcp), each with its transport, whether it
// is enabled and for which providers; add, edit, enable, limit, remove (after asking). Env and header
// values are write-only secrets: a saved one reads `***` and is sent back as `***` to keep it. A refused
// list names the entry and field (`servers[i].field`), shown under that field. Also the opt-in export
// into the CLIs' own config files (a dry run first, then apply, with the per-file report), and installs
// from npm with npm's output live (`mcp_install` events on the page's event stream).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorText } from '../api.ts';
import { onLiveEvent, useStore } from '../store.ts';
import { closeMcp, MCP_SYNC_TARGETS, mcpApi, parseServerField, useMcpOpen, type McpServer, type McpServerInput, type McpSyncReport, type McpSyncTarget } from '../mcp.ts';
import { REDACTED } from '../../../src/protocol/settings-form.ts';
import { Icon } from '../../ui/icons.tsx';
import { Badge, Button, Checkbox, ConfirmDialog, EmptyState, Field, IconButton } from '../../ui/components.tsx';
import { PanelDialog } from './PanelDialog.tsx';
import './memory.css';
import './mcp.css';

type View = { kind: 'intro' } | { kind: 'edit'; name: string | null } | { kind: 'install' } | { kind: 'sync' };

const TRANSPORTS: { value: McpServer['transport']; label: string }[] = [
  { value: 'stdio', label: 'Local command (stdio)' },
  { value: 'http', label: 'Remote, streamable HTTP' },
  { value: 'sse', label: 'Remote, HTTP + SSE (older servers)' },
];

/** A server's error, in plain words: without the entry's path in front and the advice to send the list again. */
function plainMessage(message: string): string {
  const text = message
    .replace(/^servers\[\d+\](?:\.[\w.-]+)?(?: \('[^']*'\))?: /, '')
    .replace(/\s*Fix this entry and send the list again\.?$/, '')
    .trim()
    .replace(/\.$/, '');
  if (/^Too small: expected string to have >=1 characters?/.test(text)) return 'Required.';
  if (/^Invalid URL$/i.test(text)) return 'Not a valid address: write a full URL such as https://example.com/mcp.';
  if (/^Invalid input: expected "(stdio|http|sse)"|^Invalid input$/.test(text)) return 'Choose a transport.';
  const sentence = text.replace(/^./, (c) => c.toUpperCase());
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** What the list sends for a server: as it is (secrets stay ***, which keeps them). */
const toInput = (s: McpServer): McpServerInput => ({ ...s });

export function McpPanel() {
  return (
    <PanelDialog open={useMcpOpen()} onClose={closeMcp} class="memory-panel mcp-panel" labelledBy="mcp-title">
      {() => <McpBody />}
    </PanelDialog>
  );
}

function McpBody() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState('');
  const [view, setView] = useState<View>({ kind: 'intro' });
  const [removing, setRemoving] = useState<McpServer | null>(null);
  const [notice, setNotice] = useState('');
  /** Where the focus goes once the view has changed (a selector inside the panel). */
  const refocus = useRef<string | null>(null);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    mcpApi.list().then(
      (r) => setServers(r.servers),
      (err) => setError(errorText(err)),
    );
    return onLiveEvent((ev) => {
      if (ev.event === 'mcp_changed' && Array.isArray(ev.servers)) setServers(ev.servers as McpServer[]);
    });
  }, []);

  useLayoutEffect(() => {
    const selector = refocus.current;
    refocus.current = null;
    if (selector) root.current?.querySelector<HTMLElement>(selector)?.focus();
  });

  /** Shows `next`, then focuses `focus`; the last notice goes unless one is given. */
  const go = (next: View, focus: string | null, note = '') => {
    refocus.current = focus;
    setView(next);
    setNotice(note);
  };
  const backToList = (focus = '.mcp-actions button', note = '') => go({ kind: 'intro' }, focus, note);

  /** PUT the whole list; answers the error (with the field it names) instead of throwing. */
  const saveList = async (next: McpServerInput[]): Promise<{ message: string; field?: string } | null> => {
    try {
      const answer = await mcpApi.save(next);
      setServers(answer.servers);
      setError('');
      return null;
    } catch (err) {
      return { message: errorText(err), field: err instanceof ApiError && typeof err.body?.field === 'string' ? err.body.field : undefined };
    }
  };

  const toggle = async (server: McpServer, enabled: boolean) => {
    const list = servers ?? [];
    const failed = await saveList(list.map((s) => toInput(s.name === server.name ? { ...s, enabled } : s)));
    if (failed) setError(plainMessage(failed.message));
  };

  const remove = async (server: McpServer) => {
    setRemoving(null);
    const failed = await saveList((servers ?? []).filter((s) => s.name !== server.name).map(toInput));
    if (failed) setError(plainMessage(failed.message));
    else if (view.kind === 'edit' && view.name === server.name) backToList(undefined, `Removed ${server.name}.`);
    else {
      setNotice(`Removed ${server.name}.`);
      refocus.current = '.mcp-actions button';
    }
  };

  const enabled = servers?.filter((s) => s.enabled).length ?? 0;
  const editing = view.kind === 'edit' ? view.name : undefined;

  return (
    <div class="memory mcp" ref={root}>
      <header class="memory-head">
        <h2 id="mcp-title">MCP servers</h2>
        {servers && (
          <span class="memory-status">
            {servers.length === 0 ? 'none yet' : `${enabled} of ${servers.length} enabled`}
          </span>
        )}
        <div class="memory-head-actions">
          <IconButton icon="x" label="Close MCP servers" onClick={closeMcp} />
        </div>
      </header>
      {error && (
        <p class="memory-error mcp-error" role="alert">
          <Icon name="alert" size={14} /> {error}
        </p>
      )}
      <div class={`mcp-body view-${view.kind}`}>
        <section class="mcp-list-pane" aria-labelledby="mcp-list-title">
          <h3 id="mcp-list-title" class="sr-only">
            Servers
          </h3>
          <div class="mcp-actions">
            <Button small variant="primary" aria-pressed={editing === null} onClick={() => go({ kind: 'edit', name: null }, '#mcp-name')}>
              <Icon name="plus" size={15} /> Add server
            </Button>
            <Button small aria-pressed={view.kind === 'install'} onClick={() => go({ kind: 'install' }, '#mcp-package')}>
              <Icon name="down" size={15} /> Install from npm
            </Button>
            <Button small aria-pressed={view.kind === 'sync'} onClick={() => go({ kind: 'sync' }, '.mcp-sync input')}>
              <Icon name="retry" size={15} /> Sync to CLIs
            </Button>
          </div>
          {notice && (
            <p class="mcp-notice" role="status">
              {notice}
            </p>
          )}
          {servers === null && !error && <p class="muted pad">Loading…</p>}
          {servers?.length === 0 && (
            <EmptyState title="No MCP servers yet">
              <p>Add one that runs a local command or lives at a URL, or install one from npm. Every run gets the enabled ones.</p>
            </EmptyState>
          )}
          {servers && servers.length > 0 && (
            <ul class="mcp-list" aria-label="MCP servers">
              {servers.map((s) => (
                <ServerRow
                  key={s.name}
                  server={s}
                  active={editing === s.name}
                  onToggle={(on) => void toggle(s, on)}
                  onEdit={() => go({ kind: 'edit', name: s.name }, '#mcp-name')}
                  onRemove={() => setRemoving(s)}
                />
              ))}
            </ul>
          )}
        </section>
        <section class="mcp-pane" aria-label={view.kind === 'edit' ? (view.name ? `Edit ${view.name}` : 'Add an MCP server') : view.kind === 'install' ? 'Install from npm' : view.kind === 'sync' ? 'Sync to the CLIs' : 'About MCP servers'}>
          {view.kind === 'intro' && <Intro />}
          {view.kind === 'edit' && (
            <ServerForm
              key={view.name ?? '\u0000new'}
              servers={servers ?? []}
              name={view.name}
              save={saveList}
              onDone={(saved) => backToList(saved ? `.mcp-row[data-name="${CSS.escape(saved)}"] .mcp-edit` : '.mcp-actions button', saved ? `Saved ${saved}.` : '')}
            />
          )}
          {view.kind === 'install' && (
            <Install
              onDone={(name) => backToList(`.mcp-row[data-name="${CSS.escape(name)}"] .mcp-edit`, `Installed and registered ${name}.`)}
              onBack={() => backToList()}
            />
          )}
          {view.kind === 'sync' && <Sync servers={servers ?? []} onBack={() => backToList()} />}
        </section>
      </div>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel="Remove"
        cancelLabel="Keep it"
        danger
        onCancel={() => {
          const name = removing?.name;
          setRemoving(null);
          if (name) root.current?.querySelector<HTMLElement>(`.mcp-row[data-name="${CSS.escape(name)}"] .mcp-remove`)?.focus();
        }}
        onConfirm={() => removing && void remove(removing)}
      >
        <p>Runs stop getting this server, and its saved env or header values are deleted. Config files written by a sync keep it until the next sync.</p>
      </ConfirmDialog>
    </div>
  );
}

function Intro() {
  return (
    <div class="mcp-intro">
      <h3>Tools for every run</h3>
      <p>
        An MCP server gives the agent tools. svc keeps one list and hands the enabled servers to each run through the provider CLI's own per-run
        mechanism: your projects and your CLI config files are left alone.
      </p>
      <p>
        Limit a server to some providers when only they should have it. Env and header values are secrets: they are never shown again once saved.
      </p>
      <p class="muted">Sync to CLIs writes the list into the CLIs' own config files as well, for using them outside svc. It shows what would change first.</p>
    </div>
  );
}

function useProviderName() {
  const providers = useStore((s) => s.registry?.providers);
  return (id: string) => providers?.find((p) => p.id === id)?.displayName ?? id;
}

function ServerRow(props: { server: McpServer; active: boolean; onToggle: (enabled: boolean) => void; onEdit: () => void; onRemove: () => void }) {
  const { server: s } = props;
  const name = useProviderName();
  const secrets = Object.keys(s.transport === 'stdio' ? s.env : s.headers);
  const detail = s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : s.url;
  return (
    <li class={`mcp-row${props.active ? ' active' : ''}${s.enabled ? '' : ' off'}`} data-name={s.name}>
      <input type="checkbox" class="mcp-toggle" checked={s.enabled} onChange={(e) => props.onToggle((e.target as HTMLInputElement).checked)} aria-label={`Enable ${s.name}`} />
      <div class="mcp-row-main">
        <div class="mcp-row-title">
          <span class="mcp-name">{s.name}</span>
          <Badge tone={s.transport === 'stdio' ? 'neutral' : 'accent'}>{s.transport}</Badge>
          {!s.enabled && <Badge tone="warn">off</Badge>}
        </div>
        <code class="mcp-detail" title={detail}>
          {detail}
        </code>
        <div class="mcp-row-meta">
          <span class="mcp-providers">{s.providers?.length ? `Only ${s.providers.map(name).join(', ')}` : 'All providers'}</span>
          {secrets.length > 0 && (
            <span class="mcp-secrets" title="Saved values are never shown">
              {s.transport === 'stdio' ? 'env' : 'headers'}: {secrets.join(', ')}
            </span>
          )}
        </div>
      </div>
      <div class="mcp-row-actions">
        <IconButton icon="pencil" label={`Edit ${s.name}`} small class="mcp-edit" onClick={props.onEdit} />
        <IconButton icon="trash" label={`Remove ${s.name}`} small class="mcp-remove" onClick={props.onRemove} />
      </div>
    </li>
  );
}

/** Names and write-only values (env or headers): a saved value reads "saved" and is kept unless replaced. */
function SecretMap(props: {
  id: string;
  label: string;
  help: string;
  value: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
  error?: string;
  keyPlaceholder: string;
}) {
  const [key, setKey] = useState('');
  const [val, setVal] = useState('');
  const add = () => {
    const k = key.trim();
    if (!k) return;
    props.onChange({ ...props.value, [k]: val });
    setKey('');
    setVal('');
  };
  const entries = Object.entries(props.value);
  return (
    <fieldset class="mcp-map" id={props.id}>
      <legend>{props.label}</legend>
      <small class="mcp-help">{props.help}</small>
      {entries.length > 0 && (
        <ul class="mcp-map-list">
          {entries.map(([k, v]) => (
            <li key={k}>
              <code title={k}>{k}</code>
              <input
                type="password"
                class="control"
                aria-label={`Value of ${k}`}
                placeholder={v === REDACTED ? 'Saved (hidden). Type to replace.' : ''}
                value={v === REDACTED ? '' : v}
                autocomplete="new-password"
                onInput={(e) => props.onChange({ ...props.value, [k]: (e.target as HTMLInputElement).value || (v === REDACTED ? REDACTED : '') })}
              />
              <IconButton
                icon="x"
                small
                label={`Remove ${k}`}
                onClick={() => {
                  const copy = { ...props.value };
                  delete copy[k];
                  props.onChange(copy);
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <div class="mcp-map-add">
        <input type="text" class="control" aria-label={`New ${props.label.toLowerCase()} name`} placeholder={props.keyPlaceholder} value={key} spellcheck={false} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
        <input
          type="password"
          class="control"
          aria-label={`New ${props.label.toLowerCase()} value`}
          placeholder="value"
          value={val}
          autocomplete="new-password"
          onInput={(e) => setVal((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <Button small disabled={!key.trim()} onClick={add}>
          Add
        </Button>
      </div>
      {props.error && (
        <small class="field-error" role="alert">
          <Icon name="alert" size={13} /> {props.error}
        </small>
      )}
    </fieldset>
  );
}

interface Draft {
  name: string;
  transport: McpServer['transport'];
  enabled: boolean;
  providers: string[];
  command: string;
  args: string;
  env: Record<string, string>;
  url: string;
  headers: Record<string, string>;
}

const draftOf = (s: McpServer | undefined): Draft => ({
  name: s?.name ?? '',
  transport: s?.transport ?? 'stdio',
  enabled: s?.enabled ?? true,
  providers: s?.providers ?? [],
  command: s?.transport === 'stdio' ? s.command : '',
  args: s?.transport === 'stdio' ? s.args.join('\n') : '',
  env: s?.transport === 'stdio' ? { ...s.env } : {},
  url: s && s.transport !== 'stdio' ? s.url : '',
  headers: s && s.transport !== 'stdio' ? { ...s.headers } : {},
});

function inputOf(d: Draft): McpServerInput {
  const common = { name: d.name.trim(), enabled: d.enabled, ...(d.providers.length ? { providers: d.providers } : {}) };
  if (d.transport === 'stdio') {
    const args = d.args.split('\n').map((a) => a.trim()).filter(Boolean);
    return { ...common, transport: 'stdio', command: d.command.trim(), args, env: d.env };
  }
  return { ...common, transport: d.transport, url: d.url.trim(), headers: d.headers };
}

function ServerForm(props: { servers: McpServer[]; name: string | null; save: (list: McpServerInput[]) => Promise<{ message: string; field?: string } | null>; onDone: (saved: string | null) => void }) {
  const existing = props.servers.find((s) => s.name === props.name);
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const [errors, setErrors] = useState<{ field: string; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const providerName = useProviderName();
  const set = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors(null);
  };
  const renamed = existing && draft.name.trim() !== existing.name;
  const keptSecrets = Object.values(draft.transport === 'stdio' ? draft.env : draft.headers).some((v) => v === REDACTED);
  const providers = [...new Set([...MCP_SYNC_TARGETS, ...draft.providers])];

  const errorOf = (field: string) => (errors && (errors.field === field || errors.field.startsWith(`${field}.`)) ? errors.text : undefined);
  // an error of a field the form does not show goes on top
  const shown = ['name', 'transport', 'command', 'args', 'env', 'url', 'headers', 'providers', 'enabled'];
  const topError = errors && !shown.some((f) => errors.field === f || errors.field.startsWith(`${f}.`)) ? errors.text : undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const mine = inputOf(draft);
    const list = props.servers.map(toInput);
    const at = existing ? props.servers.indexOf(existing) : list.length;
    list.splice(at, existing ? 1 : 0, mine);
    const failed = await props.save(list);
    setBusy(false);
    if (!failed) return props.onDone(mine.name);
    const where = parseServerField(failed.field);
    const mineFailed = where && where.index === at;
    const field = mineFailed ? where.path.join('.') || 'name' : '';
    let text = plainMessage(failed.message);
    if (mineFailed && (where.path[0] === 'env' || where.path[0] === 'headers') && where.path[1]) text = `${where.path[1]}: ${text}`;
    if (where && !mineFailed) text = `${props.servers[where.index]?.name ?? `Entry ${where.index + 1}`}: ${text}`;
    // a duplicate name is reported on the second of the two
    if (!where && /named/.test(failed.message)) return setErrors({ field: 'name', text });
    setErrors({ field: field || '(list)', text });
    // the field named gets the focus (a group of fields: its first box)
    const focusId = { name: 'mcp-name', transport: 'mcp-transport', command: 'mcp-command', args: 'mcp-args', url: 'mcp-url', env: 'mcp-env', headers: 'mcp-headers', providers: 'mcp-providers' }[field.split('.')[0]!];
    requestAnimationFrame(() => {
      const el = focusId ? document.getElementById(focusId) : null;
      (el?.matches('input, select, textarea') ? el : el?.querySelector<HTMLElement>('input'))?.focus();
    });
  };

  return (
    <form class="mcp-form" onSubmit={submit} noValidate>
      <div class="mcp-pane-head">
        <IconButton icon="back" label="Back to the list" class="mcp-back" onClick={() => props.onDone(null)} />
        <h3>{existing ? `Edit ${existing.name}` : 'Add an MCP server'}</h3>
      </div>
      {topError && (
        <p class="form-error" role="alert">
          <Icon name="alert" size={14} /> {topError}
        </p>
      )}
      <Field id="mcp-name" label="Name" help={'Letters, digits, "_" and "-". Tools appear to the agent as mcp__<name>__<tool>.'} error={errorOf('name')}>
        {(c) => <input {...c} type="text" value={draft.name} spellcheck={false} autocomplete="off" onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />}
      </Field>
      <Field id="mcp-transport" label="Transport" error={errorOf('transport')}>
        {(c) => (
          <select {...c} value={draft.transport} onChange={(e) => set({ transport: (e.target as HTMLSelectElement).value as Draft['transport'] })}>
            {TRANSPORTS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {draft.transport === 'stdio' ? (
        <>
          <Field id="mcp-command" label="Command" help="The program that serves MCP on its stdin and stdout, e.g. npx or an absolute path." error={errorOf('command')}>
            {(c) => <input {...c} type="text" class="control mono" value={draft.command} spellcheck={false} autocomplete="off" onInput={(e) => set({ command: (e.target as HTMLInputElement).value })} />}
          </Field>
          <Field id="mcp-args" label="Arguments" help="One per line." error={errorOf('args')}>
            {(c) => <textarea {...c} class="control mono" rows={Math.max(2, Math.min(8, draft.args.split('\n').length + 1))} value={draft.args} spellcheck={false} onInput={(e) => set({ args: (e.target as HTMLTextAreaElement).value })} />}
          </Field>
          <SecretMap
            id="mcp-env"
            label="Environment"
            help={`Variables for the command (API keys…). Values are secret: never shown again once saved.${renamed && keptSecrets ? ' A renamed server keeps no saved values: type them again.' : ''}`}
            value={draft.env}
            keyPlaceholder="NAME"
            error={errorOf('env')}
            onChange={(env) => set({ env })}
          />
        </>
      ) : (
        <>
          <Field id="mcp-url" label="URL" help="The server's address, e.g. https://mcp.example.com/mcp." error={errorOf('url')}>
            {(c) => <input {...c} type="url" class="control mono" value={draft.url} spellcheck={false} autocomplete="off" onInput={(e) => set({ url: (e.target as HTMLInputElement).value })} />}
          </Field>
          <SecretMap
            id="mcp-headers"
            label="Headers"
            help={`Sent with every request (Authorization…). Values are secret: never shown again once saved.${renamed && keptSecrets ? ' A renamed server keeps no saved values: type them again.' : ''}`}
            value={draft.headers}
            keyPlaceholder="Header-Name"
            error={errorOf('headers')}
            onChange={(headers) => set({ headers })}
          />
        </>
      )}
      <fieldset class="mcp-providers-field" id="mcp-providers">
        <legend>Providers</legend>
        <small class="mcp-help">Only the providers checked get this server; none checked: every provider.</small>
        <div class="mcp-provider-list">
          {providers.map((id) => (
            <label key={id} class="mcp-provider">
              <input
                type="checkbox"
                checked={draft.providers.includes(id)}
                onChange={(e) => {
                  const on = (e.target as HTMLInputElement).checked;
                  set({ providers: on ? [...draft.providers, id] : draft.providers.filter((p) => p !== id) });
                }}
              />
              {providerName(id)}
            </label>
          ))}
        </div>
        {errorOf('providers') && (
          <small class="field-error" role="alert">
            <Icon name="alert" size={13} /> {errorOf('providers')}
          </small>
        )}
      </fieldset>
      <Checkbox id="mcp-enabled" label="Enabled" help="Off: kept in the list, given to no run." checked={draft.enabled} onChange={(enabled) => set({ enabled })} />
      <div class="mcp-form-actions">
        <Button onClick={() => props.onDone(null)}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save' : 'Add server'}
        </Button>
      </div>
    </form>
  );
}

interface InstallEvent {
  installId: string;
  package: string;
  status: 'running' | 'ok' | 'error';
  line?: string;
  message?: string;
}

function Install(props: { onDone: (name: string) => void; onBack: () => void }) {
  const [pkg, setPkg] = useState('');
  const [name, setName] = useState('');
  const [args, setArgs] = useState('');
  const [env, setEnv] = useState<Record<string, string>>({});
  const [lines, setLines] = useState<string[]>([]);
  /** `at`: the field a refusal is about (the package spec, the name), else the status line. */
  const [state, setState] = useState<{ status: 'idle' | 'running' | 'ok' | 'error'; message?: string; at?: 'package' | 'name' }>({ status: 'idle' });
  const [registered, setRegistered] = useState<string | null>(null);
  const follow = useRef<{ package: string; installId?: string } | null>(null);
  const log = useRef<HTMLDivElement>(null);

  // npm's output as it comes: the events of the install this form started
  useEffect(
    () =>
      onLiveEvent((ev) => {
        if (ev.event !== 'mcp_install' || !follow.current) return;
        const e = ev as unknown as InstallEvent;
        const mine = follow.current;
        if (mine.installId ? e.installId !== mine.installId : e.package !== mine.package) return;
        mine.installId = e.installId;
        const text = e.line ?? e.message;
        if (text) setLines((l) => [...l, text].slice(-300));
      }),
    [],
  );
  useLayoutEffect(() => {
    const el = log.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);

  const install = async (e: Event) => {
    e.preventDefault();
    const spec = pkg.trim();
    setLines([]);
    setRegistered(null);
    setState({ status: 'running' });
    follow.current = { package: spec };
    try {
      const answer = await mcpApi.install({
        package: spec,
        ...(name.trim() ? { name: name.trim() } : {}),
        args: args.split('\n').map((a) => a.trim()).filter(Boolean),
        env,
      });
      setState({ status: 'ok', message: `Installed. Registered as ${answer.server.name} (enabled): ${answer.server.transport === 'stdio' ? answer.server.command : ''}` });
      setRegistered(answer.server.name);
      requestAnimationFrame(() => document.querySelector<HTMLElement>('.mcp-install .mcp-done')?.focus());
    } catch (err) {
      // a 400 is about what was typed: the name when it says so, else the package
      const refused = err instanceof ApiError && err.status === 400;
      const at = refused ? (/^name\b/.test(errorText(err)) ? 'name' : 'package') : undefined;
      setState({ status: 'error', message: errorText(err), at });
      if (at) requestAnimationFrame(() => document.getElementById(at === 'name' ? 'mcp-install-name' : 'mcp-package')?.focus());
    }
    // `follow` stays on this install until the next one starts: its npm lines come on the event stream, which may
    // deliver them after this answer (a loaded machine did: the log then never showed)
  };

  const running = state.status === 'running';
  return (
    <form class="mcp-form mcp-install" onSubmit={install} noValidate>
      <div class="mcp-pane-head">
        <IconButton icon="back" label="Back to the list" class="mcp-back" onClick={props.onBack} />
        <h3>Install from npm</h3>
      </div>
      <p class="mcp-help">
        Runs <code>npm install</code> into svc's own folder (never global) and registers the package's program as an enabled stdio server.
      </p>
      <Field id="mcp-package" label="Package" help="An npm package, name or name@version, e.g. @modelcontextprotocol/server-everything." error={state.at === 'package' ? state.message : undefined}>
        {(c) => (
          <input
            {...c}
            type="text"
            class="control mono"
            value={pkg}
            disabled={running}
            spellcheck={false}
            autocomplete="off"
            onInput={(e) => {
              setPkg((e.target as HTMLInputElement).value);
              if (state.at) setState({ status: 'idle' });
            }}
          />
        )}
      </Field>
      <Field id="mcp-install-name" label="Server name (optional)" help="Default: the name of the package's program." error={state.at === 'name' ? state.message : undefined}>
        {(c) => (
          <input
            {...c}
            type="text"
            value={name}
            disabled={running}
            spellcheck={false}
            autocomplete="off"
            onInput={(e) => {
              setName((e.target as HTMLInputElement).value);
              if (state.at) setState({ status: 'idle' });
            }}
          />
        )}
      </Field>
      <Field id="mcp-install-args" label="Arguments (optional)" help="One per line.">
        {(c) => <textarea {...c} class="control mono" rows={2} value={args} disabled={running} spellcheck={false} onInput={(e) => setArgs((e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <SecretMap id="mcp-install-env" label="Environment" help="Variables for the server (API keys…). Secret once saved." value={env} keyPlaceholder="NAME" onChange={setEnv} />
      <div class="mcp-form-actions">
        <Button type="submit" variant="primary" disabled={running || !pkg.trim()}>
          {running ? 'Installing…' : 'Install'}
        </Button>
      </div>
      {state.status !== 'idle' && !state.at && (
        <div class={`mcp-install-state ${state.status}`} role="status">
          {running && <span class="mcp-spinner" aria-hidden="true" />}
          {state.status === 'running' && <span>npm is installing {pkg.trim()}…</span>}
          {state.status === 'ok' && (
            <span>
              <Icon name="check" size={15} /> {state.message}
            </span>
          )}
          {state.status === 'error' && !state.at && (
            <span class="form-error">
              <Icon name="alert" size={15} /> {state.message}
            </span>
          )}
        </div>
      )}
      {lines.length > 0 && (
        <div class="mcp-log" ref={log} role="log" aria-label="npm output" tabIndex={0}>
          {lines.map((l, i) => (
            <div key={i}>{l}</div>
          ))}
        </div>
      )}
      {registered && (
        <div class="mcp-form-actions">
          <Button variant="primary" class="mcp-done" onClick={() => props.onDone(registered)}>
            Done
          </Button>
        </div>
      )}
    </form>
  );
}

const STATUS: Record<McpSyncReport['status'], { label: string; tone: 'ok' | 'warn' | 'danger' | 'neutral' | 'accent' }> = {
  'would-write': { label: 'would change', tone: 'accent' },
  written: { label: 'written', tone: 'ok' },
  unchanged: { label: 'no change', tone: 'neutral' },
  error: { label: 'error', tone: 'danger' },
};

function Names(props: { label: string; names: string[] }) {
  if (!props.names.length) return null;
  return (
    <li>
      <span class="mcp-report-key">{props.label}</span> {props.names.join(', ')}
    </li>
  );
}

function Sync(props: { servers: McpServer[]; onBack: () => void }) {
  const providerName = useProviderName();
  const [targets, setTargets] = useState<McpSyncTarget[]>([...MCP_SYNC_TARGETS]);
  const [report, setReport] = useState<{ dryRun: boolean; results: McpSyncReport[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const list = useRef(JSON.stringify(props.servers));

  // a preview is of the list as it was: a change of the list asks for a new one
  useEffect(() => {
    const now = JSON.stringify(props.servers);
    if (now !== list.current && report?.dryRun) setReport(null);
    list.current = now;
  }, [props.servers]);

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setError('');
    try {
      const { results } = await mcpApi.sync(targets, dryRun);
      setReport({ dryRun, results });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const changes = report?.dryRun ? report.results.filter((r) => r.status === 'would-write') : [];

  return (
    <div class="mcp-form mcp-sync">
      <div class="mcp-pane-head">
        <IconButton icon="back" label="Back to the list" class="mcp-back" onClick={props.onBack} />
        <h3>Sync to the CLIs' config files</h3>
      </div>
      <p class="mcp-help">
        Writes the enabled servers meant for each CLI into its own user config file, for using the CLIs outside svc. Runs in svc do not need this. Entries you wrote
        yourself are kept; each file is backed up before it is written.
      </p>
      <fieldset class="mcp-providers-field">
        <legend>CLIs</legend>
        <div class="mcp-provider-list">
          {MCP_SYNC_TARGETS.map((id) => (
            <label key={id} class="mcp-provider">
              <input
                type="checkbox"
                checked={targets.includes(id)}
                onChange={(e) => {
                  const on = (e.target as HTMLInputElement).checked;
                  setTargets((t) => (on ? MCP_SYNC_TARGETS.filter((x) => x === id || t.includes(x)) : t.filter((x) => x !== id)));
                  setReport(null);
                }}
              />
              {providerName(id)}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="mcp-form-actions">
        <Button disabled={busy || targets.length === 0} onClick={() => void run(true)}>
          Preview changes
        </Button>
        <Button variant="primary" disabled={busy || !report?.dryRun || changes.length === 0} onClick={() => void run(false)}>
          {changes.length ? `Apply to ${changes.length} ${changes.length === 1 ? 'file' : 'files'}` : 'Apply'}
        </Button>
      </div>
      {error && (
        <p class="form-error" role="alert">
          <Icon name="alert" size={14} /> {error}
        </p>
      )}
      {report && (
        <section class="mcp-report" aria-label={report.dryRun ? 'What would change' : 'What was written'} role="status">
          <p class="mcp-report-head">
            {report.dryRun
              ? changes.length
                ? `A dry run: ${changes.length} of ${report.results.length} files would change. Nothing was written yet.`
                : 'A dry run: every file is up to date. Nothing to write.'
              : `Done: ${report.results.filter((r) => r.status === 'written').length} written.`}
          </p>
          <ul class="mcp-report-list">
            {report.results.map((r) => (
              <li key={r.file} class="mcp-report-file" data-target={r.target}>
                <div class="mcp-report-title">
                  <strong>{providerName(r.target)}</strong>
                  <Badge tone={STATUS[r.status].tone}>{STATUS[r.status].label}</Badge>
                </div>
                <code class="mcp-detail" title={r.file}>
                  {r.file}
                </code>
                <ul class="mcp-report-names">
                  <Names label={report.dryRun ? 'adds' : 'added'} names={r.added} />
                  <Names label={report.dryRun ? 'updates' : 'updated'} names={r.updated} />
                  <Names label={report.dryRun ? 'removes' : 'removed'} names={r.removed} />
                  <Names label="keeps yours" names={r.kept} />
                  {r.skipped.map((s) => (
                    <li key={s.name}>
                      <span class="mcp-report-key">skips</span> {s.name}: {s.reason}
                    </li>
                  ))}
                  {r.backup && (
                    <li>
                      <span class="mcp-report-key">backup</span> <code>{r.backup}</code>
                    </li>
                  )}
                  {r.message && <li class="form-error">{r.message}</li>}
                </ul>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
