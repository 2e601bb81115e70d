// What the user (and the connection) can do: load and page history, switch sessions, send,
// stop, steer, search, settings. Each action calls the API and updates the store.
import { api, ApiError, errorText, getToken, type Message, onAuthRequired, postStream } from './api.ts';
import { browserEnv, LiveConnection } from './live.ts';
import { BASE } from './base.ts';
import type { AttachmentRef } from './attachments.ts';
import {
  applyEvent,
  emptyView,
  applyRunSnapshot,
  forgetSession,
  getState,
  messageRow,
  newKey,
  onReadinessStale,
  onGap,
  onSessionDeleted,
  onSessionSwitched,
  setState,
  toast,
  type Row,
  type ViewState,
} from './store.ts';

export const PAGE_SIZE = 50;

let live: LiveConnection | undefined;
let loadSeq = 0;

function setView(patch: Partial<ViewState> | ((v: ViewState) => Partial<ViewState>)): void {
  setState((s) => ({ view: { ...s.view, ...(typeof patch === 'function' ? patch(s.view) : patch) } }));
}

/** Rows of runs of this session that are not in the history (still running, or not saved). */
function liveRows(sessionId: string, ids: Set<number>): Extract<Row, { kind: 'run' }>[] {
  return Object.values(getState().runs)
    .filter((r) => r.sessionId === sessionId && (r.status === 'running' || (r.messageId !== undefined && !ids.has(r.messageId))))
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((r) => ({ kind: 'run' as const, key: `r${r.traceId}`, traceId: r.traceId }));
}

/**
 * Shows a session: its latest page, or (with `around`) the page around one message. Live rows
 * that arrived while loading are kept after the loaded page.
 */
export async function loadView(sessionId: string, options: { around?: number } = {}): Promise<void> {
  const seq = ++loadSeq;
  const epoch = getState().view.epoch + 1;
  const keep = getState().view.sessionId === sessionId ? getState().view.rows.filter((r) => r.kind === 'local' || r.kind === 'command') : [];
  setState({ view: { ...emptyView(sessionId, epoch), rows: keep } });
  try {
    let messages: Message[];
    let hasMoreBefore: boolean;
    let hasMoreAfter = false;
    if (options.around !== undefined) {
      const [older, newer] = await Promise.all([
        api.messages(sessionId, { before: options.around + 1, limit: 25 }),
        api.messages(sessionId, { after: options.around, limit: 25 }),
      ]);
      messages = [...older.messages, ...newer.messages];
      hasMoreBefore = older.hasMore;
      hasMoreAfter = newer.hasMore;
    } else {
      const page = await api.messages(sessionId, { limit: PAGE_SIZE });
      messages = page.messages;
      hasMoreBefore = page.hasMore;
    }
    if (seq !== loadSeq) return;
    const current = getState().view;
    const ids = new Set(messages.map((m) => m.id));
    const lastId = messages.at(-1)?.id ?? 0;
    // live messages that arrived during the load and are newer than the page
    const arrived = current.rows.filter((r) => !(r.kind === 'message' && (ids.has(r.message.id) || r.message.id <= lastId)) && r.kind !== 'run');
    for (const r of arrived) if (r.kind === 'message') ids.add(r.message.id);
    for (const run of Object.values(getState().runs)) if (run.messageId !== undefined && run.sessionId === sessionId && run.status === 'running') ids.add(run.messageId);
    const rows: Row[] = [...messages.map(messageRow), ...arrived];
    const runRows = hasMoreAfter ? [] : liveRows(sessionId, ids);
    for (const r of runRows) {
      const run = getState().runs[r.traceId];
      if (run?.messageId !== undefined) ids.add(run.messageId);
    }
    setView({
      rows: [...rows, ...runRows],
      ids,
      loading: false,
      hasMoreBefore,
      hasMoreAfter,
      before: messages[0]?.id ?? null,
      after: messages.at(-1)?.id ?? null,
      focus: options.around !== undefined ? { key: `m${options.around}`, seq: Date.now() } : undefined,
      error: undefined,
    });
  } catch (err) {
    if (seq !== loadSeq) return;
    setView({ loading: false, error: errorText(err) });
  }
}

export async function loadOlder(): Promise<void> {
  const view = getState().view;
  if (!view.sessionId || view.loading || view.loadingBefore || !view.hasMoreBefore || view.before === null) return;
  const seq = loadSeq;
  setView({ loadingBefore: true });
  try {
    const page = await api.messages(view.sessionId, { before: view.before, limit: PAGE_SIZE });
    if (seq !== loadSeq) return;
    setView((v) => {
      const fresh = page.messages.filter((m) => !v.ids.has(m.id));
      const ids = new Set(v.ids);
      for (const m of fresh) ids.add(m.id);
      return {
        rows: [...fresh.map(messageRow), ...v.rows],
        ids,
        hasMoreBefore: page.hasMore,
        before: page.messages[0]?.id ?? v.before,
        loadingBefore: false,
      };
    });
  } catch (err) {
    if (seq !== loadSeq) return;
    setView({ loadingBefore: false });
    toast(`Could not load older messages: ${errorText(err)}`);
  }
}

export async function loadNewer(): Promise<void> {
  const view = getState().view;
  if (!view.sessionId || view.loading || view.loadingAfter || !view.hasMoreAfter || view.after === null) return;
  const seq = loadSeq;
  setView({ loadingAfter: true });
  try {
    const page = await api.messages(view.sessionId, { after: view.after, limit: PAGE_SIZE });
    if (seq !== loadSeq) return;
    setView((v) => {
      const fresh = page.messages.filter((m) => !v.ids.has(m.id));
      const ids = new Set(v.ids);
      for (const m of fresh) ids.add(m.id);
      const rows = [...v.rows, ...fresh.map(messageRow)];
      return {
        rows: page.hasMore ? rows : [...rows, ...liveRows(v.sessionId!, ids)],
        ids,
        hasMoreAfter: page.hasMore,
        after: page.messages.at(-1)?.id ?? v.after,
        loadingAfter: false,
      };
    });
  } catch (err) {
    if (seq !== loadSeq) return;
    setView({ loadingAfter: false });
    toast(`Could not load newer messages: ${errorText(err)}`);
  }
}

export function jumpToLatest(): void {
  const { view } = getState();
  if (view.sessionId && view.hasMoreAfter) void loadView(view.sessionId);
}

export async function loadSessions(): Promise<void> {
  const { activeId, sessions } = await api.sessions();
  setState({ sessions, activeId });
}

export async function switchSession(id: string, options: { around?: number } = {}): Promise<void> {
  setState((s) => ({
    activeId: id,
    sessions: s.sessions.map((x) => ({ ...x, active: x.id === id })),
    sidebarOpen: false,
    page: 'chat',
  }));
  const loading = loadView(id, options);
  try {
    await api.switchSession(id);
  } catch (err) {
    toast(`Could not switch the session: ${errorText(err)}`);
  }
  await loading;
}

export async function newChat(): Promise<void> {
  try {
    const { session } = await api.createSession();
    setState((s) => ({
      sessions: [session, ...s.sessions.filter((x) => x.id !== session.id)].map((x) => ({ ...x, active: x.id === session.id })),
      activeId: session.id,
      sidebarOpen: false,
      page: 'chat',
    }));
    if (getState().view.sessionId !== session.id) await loadView(session.id);
  } catch (err) {
    toast(`Could not create a session: ${errorText(err)}`);
  }
}

export const MAX_TITLE = 200;

/**
 * Renames a session. The list shows the new title at once; when the server refuses, the old title
 * comes back and a toast says why. False when nothing was saved.
 */
export async function renameSession(id: string, title: string): Promise<boolean> {
  const next = title.trim();
  const before = getState().sessions.find((x) => x.id === id)?.title;
  // (nothing to send: empty, unchanged, or the session is gone)
  if (!next || before === undefined || next === before) return false;
  const setTitle = (from: string | undefined, to: string) =>
    setState((s) => ({ sessions: s.sessions.map((x) => (x.id === id && (from === undefined || x.title === from) ? { ...x, title: to } : x)) }));
  setTitle(undefined, next);
  try {
    const { session } = await api.renameSession(id, next);
    setTitle(undefined, session.title);
    return true;
  } catch (err) {
    // (only if nothing else renamed it meanwhile)
    setTitle(next, before);
    toast(`Could not rename the chat: ${errorText(err)}`);
    return false;
  }
}

/**
 * Deletes a session and its messages. The server makes another session active when it was the
 * active one; a page that shows the deleted session shows the active one instead. The events
 * (session_deleted, session_switched, session_list) tell every page; this page does not wait for them.
 */
export async function deleteSession(id: string): Promise<boolean> {
  try {
    const { activeId } = await api.deleteSession(id);
    forgetSession(id);
    setState((s) => ({ activeId, sessions: s.sessions.map((x) => ({ ...x, active: x.id === activeId })) }));
    if (getState().view.sessionId === id) await loadView(activeId);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      // already gone (deleted elsewhere): the same outcome
      forgetSession(id);
      if (getState().view.sessionId === id) await showActive();
      return true;
    }
    toast(`Could not delete the chat: ${errorText(err)}`);
    return false;
  }
}

/** Shows the server's active session (the one shown was deleted). */
async function showActive(): Promise<void> {
  const gone = getState().view.sessionId;
  let { activeId } = getState();
  if (!activeId || activeId === gone) {
    try {
      await loadSessions();
    } catch (err) {
      toast(`Could not load sessions: ${errorText(err)}`);
      return;
    }
    activeId = getState().activeId;
  }
  // a session_switched event may have shown it meanwhile
  if (activeId && getState().view.sessionId === gone) await loadView(activeId);
}

// ── sending ─────────────────────────────────────────────────────────────────────────────

const unavailable = (err: unknown) =>
  err instanceof ApiError && err.status === 404 ? 'This server has no agent API (POST /api/message).' : errorText(err);

/** Sends a message, with files already uploaded (POST /api/upload) attached. */
export async function sendMessage(text: string, attachments: AttachmentRef[] = []): Promise<void> {
  const prompt = text.trim();
  if (!prompt && !attachments.length) return;
  if (prompt.startsWith('/') && !attachments.length) return runCommand(prompt);
  const sessionId = getState().view.sessionId ?? getState().activeId ?? undefined;
  const key = newKey('l');
  setView((v) => ({ rows: [...v.rows, { kind: 'local', key, content: prompt, attachments, state: 'sending' }] }));
  const fail = (error: string) =>
    setView((v) => ({ rows: v.rows.map((r) => (r.key === key && r.kind === 'local' ? { ...r, state: 'failed', error } : r)) }));
  try {
    // The answer is rendered from the SSE events (every tab sees every run); the POST only sends.
    const body = { prompt, ...(attachments.length ? { attachments: attachments.map((f) => f.filename) } : {}), ...(sessionId ? { sessionId } : {}) };
    const done = await postStream('/api/message', body, () => {});
    const stillLocal = getState().view.rows.some((r) => r.key === key && r.kind === 'local');
    if (stillLocal && done?.type === 'done' && done.status === 'error') fail(done.reason ?? 'The message failed.');
  } catch (err) {
    fail(unavailable(err));
  }
}

export function retryLocal(key: string): void {
  const row = getState().view.rows.find((r) => r.key === key);
  if (!row || row.kind !== 'local') return;
  setView((v) => ({ rows: v.rows.filter((r) => r.key !== key) }));
  void sendMessage(row.content, row.attachments);
}

export function dismissRow(key: string): void {
  setView((v) => ({ rows: v.rows.filter((r) => r.key !== key) }));
}

export async function runCommand(text: string): Promise<void> {
  const key = newKey('c');
  setView((v) => ({ rows: [...v.rows, { kind: 'command', key, text, output: '', status: 'running' }] }));
  const patch = (f: (r: Extract<Row, { kind: 'command' }>) => Partial<Extract<Row, { kind: 'command' }>>) =>
    setView((v) => ({ rows: v.rows.map((r) => (r.key === key && r.kind === 'command' ? { ...r, ...f(r) } : r)) }));
  try {
    const done = await postStream('/api/command', { text }, (line) => {
      if (line.type === 'text') patch((r) => ({ output: r.output + line.content }));
    });
    patch((r) => ({
      status: done?.type === 'done' ? done.status : 'ok',
      output: r.output || (done?.type === 'done' ? done.text || done.reason || '' : ''),
    }));
  } catch (err) {
    patch(() => ({ status: 'error', output: unavailable(err) }));
  }
}

export async function steer(text: string): Promise<boolean> {
  const prompt = text.trim();
  if (!prompt) return false;
  try {
    let failure: string | undefined;
    await postStream('/api/command', { text: `/steer ${prompt}` }, (line) => {
      if (line.type === 'done' && line.status === 'error') failure = line.reason || line.text;
    });
    if (failure) toast(`Steer failed: ${failure}`);
    return !failure;
  } catch (err) {
    toast(`Steer failed: ${unavailable(err)}`);
    return false;
  }
}

export async function stop(): Promise<void> {
  try {
    await api.stop();
  } catch (err) {
    toast(`Could not stop: ${errorText(err)}`);
  }
}

// ── search ──────────────────────────────────────────────────────────────────────────────

let searchAbort: AbortController | undefined;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

export function search(query: string): void {
  clearTimeout(searchTimer);
  searchAbort?.abort();
  const q = query.trim();
  setState((s) => ({ search: { ...s.search, query, loading: Boolean(q), error: undefined, results: q ? s.search.results : [] } }));
  if (!q) return;
  searchTimer = setTimeout(async () => {
    const controller = new AbortController();
    searchAbort = controller;
    try {
      const { results } = await api.search(q, controller.signal);
      if (controller.signal.aborted) return;
      setState((s) => ({ search: { ...s.search, results, loading: false } }));
    } catch (err) {
      if (controller.signal.aborted) return;
      setState((s) => ({ search: { ...s.search, results: [], loading: false, error: errorText(err) } }));
    }
  }, 180);
}

export async function openSearchResult(sessionId: string, messageId: number): Promise<void> {
  if (sessionId !== getState().activeId) await switchSession(sessionId, { around: messageId });
  else {
    setState({ sidebarOpen: false, page: 'chat' });
    await loadView(sessionId, { around: messageId });
  }
}

// ── providers, commands, settings ───────────────────────────────────────────────────────

const missing = (err: unknown) => err instanceof ApiError && (err.status === 404 || err.status === 405);

export async function loadRegistry(): Promise<void> {
  const [registry, session] = await Promise.allSettled([api.registry(), api.session()]);
  if (session.status === 'fulfilled') setState({ session: { provider: session.value.provider, model: session.value.model, effort: session.value.effort } });
  if (registry.status === 'fulfilled') setState({ registry: registry.value });
  else setState({ registry: missing(registry.reason) ? null : getState().registry ?? null });
  void pollCliStatus();
}

let statusPolls = 0;
let statusTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * Reads which CLIs are installed and logged in, again every second while the server is still
 * detecting. `refresh`: ask the server to detect again (the user has just installed or logged in).
 */
export async function pollCliStatus(refresh = false): Promise<void> {
  clearTimeout(statusTimer);
  try {
    const status = await api.cliStatus(refresh);
    setState({ cliStatus: status });
    const detecting = status.refreshing || Object.values(status.providers).some((p) => p?.state === 'detecting');
    if (detecting && ++statusPolls < 60) statusTimer = setTimeout(() => void pollCliStatus(), 1000);
    else statusPolls = 0;
  } catch (err) {
    setState({ cliStatus: missing(err) ? null : getState().cliStatus ?? null });
  }
}

export async function loadCommands(): Promise<void> {
  try {
    const { commands } = await api.commands();
    setState({ commands });
  } catch (err) {
    setState({ commands: missing(err) ? null : [] });
  }
}

/** Applies an agent settings change (provider, model, effort) and refreshes what shows it. */
export async function chooseAgent(patch: { provider?: string; model?: string; effort?: string }): Promise<void> {
  try {
    await api.saveSettings({ agent: patch });
    setState((s) => ({
      session: { provider: s.session?.provider ?? '', model: s.session?.model ?? '', effort: s.session?.effort ?? '', ...patch },
      registry: s.registry ? { ...s.registry, active: { ...s.registry.active, ...patch } } : s.registry,
    }));
  } catch (err) {
    toast(`Could not change the agent: ${errorText(err)}`);
  }
}

// ── start-up and the live connection ───────────────────────────────────────────────────

/**
 * What the agent is doing now (a page opened, or reloaded after a gap, while a run goes on): the
 * queue state, and the active run with its output so far (later chunks merge by their offsets).
 */
async function loadRuntime(): Promise<void> {
  try {
    const { agent } = await api.runtime();
    if (!agent) return;
    setState({ queue: { pending: agent.pending, active: agent.busy } });
    if (agent.active) applyRunSnapshot(agent.active);
  } catch {
    // an older server without the field: the next events tell
  }
}

/**
 * Messages saved between the first history request and the event channel opening (only when
 * the channel opened after that request: otherwise the events cover everything).
 */
let caughtUp = false;
let historyRequestedAt = Infinity;
let liveSince = Infinity;
async function catchUp(): Promise<void> {
  const { view } = getState();
  if (caughtUp || liveSince === Infinity || !view.sessionId || view.loading || view.hasMoreAfter || view.after === null) return;
  caughtUp = true;
  if (liveSince < historyRequestedAt) return;
  try {
    const page = await api.messages(view.sessionId, { after: view.after, limit: PAGE_SIZE });
    for (const message of page.messages) applyEvent({ topic: 'chat', event: 'message', ...message });
  } catch {
    // the next reload covers it
  }
}

async function reloadAll(): Promise<void> {
  try {
    await loadSessions();
  } catch (err) {
    toast(`Could not load sessions: ${errorText(err)}`);
  }
  const { activeId, view } = getState();
  const id = view.sessionId && view.hasMoreAfter ? view.sessionId : activeId;
  await Promise.all([id ? loadView(id) : undefined, loadRuntime()]);
}

export function reconnect(): void {
  live?.restart();
}

export async function init(): Promise<void> {
  onGap((reason) => {
    if (reason === 'unknown_stream') {
      // The server restarted: runs it was doing are gone.
      setState((s) => {
        const runs = { ...s.runs };
        for (const run of Object.values(runs)) {
          if (run.status === 'running') runs[run.traceId] = { ...run, status: 'stopped', error: 'The server restarted during this run.' };
        }
        return { runs, activeTraceId: null, queue: { pending: 0, active: false }, queuedIds: [], agent: { status: 'idle' } };
      });
    }
    void reloadAll();
  });
  onSessionSwitched((id) => void loadView(id));
  // (the server detects again when the agent settings change: follow it until it is done; after a
  // failed run, ask it to)
  onReadinessStale((refresh) => {
    statusPolls = 0;
    void pollCliStatus(refresh);
  });
  onSessionDeleted(() => void showActive());
  onAuthRequired(() => setState({ authNeeded: true }));

  const base = BASE;
  live = new LiveConnection({
    base,
    env: browserEnv(base),
    token: getToken,
    onEvent: applyEvent,
    onAuthRequired: () => setState({ authNeeded: true }),
    onStatus: (conn) => {
      if (conn.phase === 'open' && liveSince === Infinity) {
        liveSince = performance.now();
        // The first snapshot may have been taken before the channel was listening: chunks of the
        // run in between would be missing. A snapshot taken now covers them (merged by offsets).
        void loadRuntime();
      }
      setState({ conn });
      if (conn.phase === 'open' && getState().ready) void catchUp();
    },
  });
  live.start();

  try {
    const runtime = loadRuntime();
    await loadSessions();
    const id = getState().activeId;
    historyRequestedAt = performance.now();
    if (id) await loadView(id);
    await runtime;
  } catch (err) {
    setView({ loading: false, error: errorText(err) });
  }
  setState({ ready: true });
  if (getState().conn.phase === 'open') void catchUp();
  // Not needed to be interactive: fetched once the history shows.
  setTimeout(() => {
    void loadRegistry();
    void loadCommands();
  }, 0);
}
