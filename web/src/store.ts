// The UI state and the reducer of live events. One plain object, replaced (not mutated) on each
// change; subscribers are notified at most once per animation frame, so a burst of events (an
// answer streaming in) costs one render per frame, whatever the event rate.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChatSession, CliRegistry, CliStatusAnswer, CommandInfo, Message, SearchResult } from './api.ts';
import type { EventPayload, ReplayGapEvent, StepKind, WireEvent } from '../../src/protocol/events.ts';
import type { LiveEvent, LiveStatus } from './live.ts';
import { mergeSpan } from './output.ts';
import { splitAttachments, type AttachmentRef } from './attachments.ts';
import type { ToastItem } from '../ui/components.tsx';

export type { StepKind };
export type StepStatus = 'running' | 'ok' | 'error';

export interface Step {
  stepId: string;
  name: string;
  step: StepKind;
  status: StepStatus;
  input: Record<string, unknown>;
  output?: string;
}

/** What happened to a run on the way: a retry (one per run, updated), a switch of provider, a steer. */
export type RunNotice =
  | { kind: 'retry'; provider: string; attempt: number; delayMs: number; reason: string; byCli: boolean }
  | { kind: 'fallback'; from: string; to: string; reason: string }
  | { kind: 'steer'; text: string };

export type RunStatus = 'running' | 'ok' | 'error' | 'stopped';

export interface Run {
  traceId: string;
  sessionId: string | null;
  status: RunStatus;
  evaluating: boolean;
  provider?: string;
  model?: string;
  /** The live preview: the agent_output chunks, merged by their offsets. */
  text: string;
  /** Where `text` starts in the run's whole output (above 0 only when a page missed the beginning). */
  textStart: number;
  /** The authoritative answer from agent_done. */
  final?: string;
  error?: string;
  /** The saved record of a run that left no answer (what failed and what to do, or what stopped it). */
  record?: string;
  /** The failure class and the command that fixes it (agent_done). */
  failure?: string;
  fix?: string;
  steps: Step[];
  notices: RunNotice[];
  messageId?: number;
  startedAt: number;
  durationMs?: number;
  usage?: Record<string, number>;
  finishedAt?: number;
}

export type Row =
  | { kind: 'message'; key: string; message: Message; queued?: boolean }
  | { kind: 'local'; key: string; content: string; attachments?: AttachmentRef[]; state: 'sending' | 'failed'; error?: string }
  | { kind: 'run'; key: string; traceId: string }
  | { kind: 'command'; key: string; text: string; output: string; status: 'running' | 'ok' | 'error' | 'stopped' }
  | { kind: 'notice'; key: string; text: string };

export interface ViewState {
  sessionId: string | null;
  rows: Row[];
  /** Message ids shown (as a message row, or as the run that produced them). */
  ids: Set<number>;
  hasMoreBefore: boolean;
  /** The window does not reach the latest message (opened from a search result). */
  hasMoreAfter: boolean;
  loading: boolean;
  loadingBefore: boolean;
  loadingAfter: boolean;
  before: number | null;
  after: number | null;
  /** Bumped on every full (re)load: the list forgets its measurements. */
  epoch: number;
  /** A row to bring into view (search result). */
  focus?: { key: string; seq: number };
  error?: string;
}

export type Toast = ToastItem;

export type Theme = 'system' | 'light' | 'dark';

export interface State {
  ready: boolean;
  sessions: ChatSession[];
  activeId: string | null;
  view: ViewState;
  runs: Record<string, Run>;
  activeTraceId: string | null;
  agent: { status: 'idle' | 'running' | 'evaluating' | 'done' | 'error'; provider?: string; model?: string };
  queue: { pending: number; active: boolean };
  /** Ids of user messages waiting in the queue, oldest first. */
  queuedIds: number[];
  conn: LiveStatus;
  toasts: Toast[];
  /** undefined: not loaded yet; null: the server has no such route. */
  registry?: CliRegistry | null;
  cliStatus?: CliStatusAnswer | null;
  commands?: CommandInfo[] | null;
  session?: { provider: string; model: string; effort: string };
  search: { query: string; results: SearchResult[]; loading: boolean; error?: string };
  page: 'chat' | 'settings';
  sidebarOpen: boolean;
  pickerOpen: boolean;
  theme: Theme;
  authNeeded: boolean;
}

export const emptyView = (sessionId: string | null, epoch: number): ViewState => ({
  sessionId,
  rows: [],
  ids: new Set(),
  hasMoreBefore: false,
  hasMoreAfter: false,
  loading: true,
  loadingBefore: false,
  loadingAfter: false,
  before: null,
  after: null,
  epoch,
});

const storedTheme = (): Theme => {
  try {
    const t = localStorage.getItem('svc.theme');
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
};

let state: State = {
  ready: false,
  sessions: [],
  activeId: null,
  view: emptyView(null, 0),
  runs: {},
  activeTraceId: null,
  agent: { status: 'idle' },
  queue: { pending: 0, active: false },
  queuedIds: [],
  conn: { phase: 'connecting', transport: 'sse', disconnected: false },
  toasts: [],
  search: { query: '', results: [], loading: false },
  page: location.hash === '#settings' ? 'settings' : 'chat',
  sidebarOpen: false,
  pickerOpen: false,
  theme: storedTheme(),
  authNeeded: false,
};

const listeners = new Set<() => void>();
let scheduled = false;

function flush(): void {
  scheduled = false;
  for (const listener of [...listeners]) listener();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  if (typeof document !== 'undefined' && document.hidden) setTimeout(flush, 50);
  else requestAnimationFrame(flush);
}

export const getState = (): State => state;

export function setState(patch: Partial<State> | ((s: State) => Partial<State>)): void {
  const next = typeof patch === 'function' ? patch(state) : patch;
  state = { ...state, ...next };
  schedule();
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Re-renders the component when the selected value changes (Object.is). */
export function useStore<T>(select: (s: State) => T): T {
  const [, force] = useState(0);
  const selectRef = useRef(select);
  selectRef.current = select;
  const valueRef = useRef<T>(select(state));
  valueRef.current = select(state);
  useEffect(
    () =>
      subscribe(() => {
        const next = selectRef.current(state);
        if (!Object.is(next, valueRef.current)) force((n) => n + 1);
      }),
    [],
  );
  return valueRef.current;
}

// ── helpers on the view ─────────────────────────────────────────────────────────────────

let toastSeq = 0;
export function toast(text: string, tone: Toast['tone'] = 'error'): void {
  const id = ++toastSeq;
  setState((s) => ({ toasts: [...s.toasts.slice(-3), { id, text, tone }] }));
  setTimeout(() => setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), tone === 'error' ? 8000 : 4000);
}

let keySeq = 0;
export const newKey = (prefix: string) => `${prefix}${++keySeq}`;

export const messageRow = (message: Message): Row => ({ kind: 'message', key: `m${message.id}`, message });

function updateView(patch: Partial<ViewState> | ((v: ViewState) => Partial<ViewState>)): void {
  setState((s) => ({ view: { ...s.view, ...(typeof patch === 'function' ? patch(s.view) : patch) } }));
}

function updateRun(traceId: string, patch: (run: Run) => Partial<Run>): void {
  setState((s) => {
    const run = s.runs[traceId];
    if (!run) return {};
    return { runs: { ...s.runs, [traceId]: { ...run, ...patch(run) } } };
  });
}

/** Keeps at most this many finished runs in memory (their rows then show the saved message). */
const MAX_RUNS = 40;

/** Creates the run (and its row) the first time an event names it. */
function ensureRun(traceId: string, fields: Partial<Run> = {}): void {
  if (state.runs[traceId]) return;
  const s = state;
  const sessionId = fields.sessionId !== undefined ? fields.sessionId : (s.activeId ?? s.view.sessionId);
  const run: Run = {
    traceId,
    status: 'running',
    evaluating: false,
    text: '',
    textStart: 0,
    steps: [],
    notices: [],
    startedAt: Date.now(),
    ...fields,
    sessionId,
  };
  let runs = { ...s.runs, [traceId]: run };
  const all = Object.values(runs);
  if (all.length > MAX_RUNS) {
    const old = all.filter((r) => r.status !== 'running').sort((a, b) => a.startedAt - b.startedAt);
    runs = { ...runs };
    for (const r of old.slice(0, all.length - MAX_RUNS)) delete runs[r.traceId];
  }
  const patch: Partial<State> = { runs };
  if (sessionId && sessionId === s.view.sessionId && !s.view.hasMoreAfter) {
    // Place the run after the queued message it answers (the oldest queued), else before the
    // still-queued messages, else at the end.
    let rows = s.view.rows;
    let queuedIds = s.queuedIds;
    let at = rows.length;
    const dequeued = queuedIds[0];
    if (dequeued !== undefined) {
      queuedIds = queuedIds.slice(1);
      const index = rows.findIndex((r) => r.kind === 'message' && r.message.id === dequeued);
      if (index !== -1) {
        rows = rows.slice();
        rows[index] = { ...(rows[index] as Extract<Row, { kind: 'message' }>), queued: false };
        at = index + 1;
      }
    } else {
      const firstQueued = rows.findIndex((r) => r.kind === 'message' && r.queued);
      if (firstQueued !== -1) at = firstQueued;
    }
    rows = [...rows.slice(0, at), { kind: 'run', key: `r${traceId}`, traceId }, ...rows.slice(at)];
    patch.view = { ...s.view, rows };
    patch.queuedIds = queuedIds;
  }
  setState(patch);
}

/** The active run as GET /api/runtime reports it: what it did before this page was listening. */
export interface RunSnapshot {
  traceId: string;
  provider: string;
  sessionId: string;
  startedAt: number;
  output?: string;
  steps?: Array<Omit<Step, 'input'> & { input?: Record<string, unknown> }>;
}

/** Shows a run that started before the page opened (or reconnected) with its output so far. */
export function applyRunSnapshot(snapshot: RunSnapshot): void {
  ensureRun(snapshot.traceId, { provider: snapshot.provider, sessionId: snapshot.sessionId, startedAt: snapshot.startedAt });
  updateRun(snapshot.traceId, (r) => {
    const merged = mergeSpan({ start: r.textStart, text: r.text }, { start: 0, text: snapshot.output ?? '' });
    const known = new Set(r.steps.map((step) => step.stepId));
    const missed = (snapshot.steps ?? []).filter((step) => !known.has(step.stepId)).map((step) => ({ ...step, input: step.input ?? {} }));
    return { text: merged.text, textStart: merged.start, steps: missed.length ? [...missed, ...r.steps] : r.steps };
  });
  if (state.runs[snapshot.traceId]?.status === 'running') {
    setState({ activeTraceId: snapshot.traceId, agent: { status: 'running', provider: snapshot.provider } });
  }
}

function upsertStep(steps: Step[], ev: EventPayload<'agent_tool'>): Step[] {
  const { stepId, input } = ev;
  const index = steps.findIndex((st) => st.stepId === stepId);
  const base: Step = index === -1 ? { stepId, name: ev.name || 'tool', step: ev.step, status: 'running', input: {} } : steps[index]!;
  const next: Step = {
    ...base,
    name: ev.name || base.name,
    step: ev.step,
    status: ev.status,
    // the end of a step repeats it with an empty input: keep what the start said
    input: Object.keys(input).length ? input : base.input,
    ...(ev.output !== undefined ? { output: ev.output } : {}),
  };
  if (index === -1) return [...steps, next];
  const copy = steps.slice();
  copy[index] = next;
  return copy;
}

/** Called for a replay gap: the owner reloads what it shows from the API. */
let gapHandler: (reason: string) => void = () => {};
let sessionHandler: (sessionId: string) => void = () => {};
export function onGap(handler: (reason: string) => void): void {
  gapHandler = handler;
}
export function onSessionSwitched(handler: (sessionId: string) => void): void {
  sessionHandler = handler;
}
/**
 * Called when what the page knows of the providers' readiness may be stale (the agent settings
 * changed, or a run failed for want of a CLI or a login): the owner reads it again.
 */
let readinessHandler: (refresh: boolean) => void = () => {};
export function onReadinessStale(handler: (refresh: boolean) => void): void {
  readinessHandler = handler;
}
/** Called when the session this page shows was deleted: the owner shows the active one. */
let deletedHandler: (sessionId: string) => void = () => {};
export function onSessionDeleted(handler: (sessionId: string) => void): void {
  deletedHandler = handler;
}

/** Drops a deleted session from the list and from the search results. */
export function forgetSession(sessionId: string): void {
  setState((s) => ({
    sessions: s.sessions.filter((x) => x.id !== sessionId),
    activeId: s.activeId === sessionId ? null : s.activeId,
    search: s.search.results.some((r) => r.sessionId === sessionId)
      ? { ...s.search, results: s.search.results.filter((r) => r.sessionId !== sessionId) }
      : s.search,
  }));
}

// ── the reducer of live events ──────────────────────────────────────────────────────────

/** Parts of the UI that keep their own state (the memory panel) follow live events through this. */
const eventListeners = new Set<(event: LiveEvent) => void>();
export function onLiveEvent(listener: (event: LiveEvent) => void): () => void {
  eventListeners.add(listener);
  return () => void eventListeners.delete(listener);
}

/** Applies one live event (SSE or WebSocket); events this UI does not show are ignored. */
export function applyEvent(live: LiveEvent): void {
  for (const listener of eventListeners) listener(live);
  const ev = live as WireEvent | ReplayGapEvent;
  switch (ev.event) {
    case 'message':
      return onMessage(ev);
    case 'new_message':
      return onNewMessage(ev);
    case 'agent_status': {
      const { status, traceId, provider, model } = ev;
      if (status === 'running' && traceId) {
        ensureRun(traceId, { provider, model });
        updateRun(traceId, (r) => ({ provider: provider ?? r.provider, model: model ?? r.model, evaluating: false }));
        setState({ activeTraceId: traceId, agent: { status: 'running', provider, model } });
      } else if (status === 'evaluating') {
        if (traceId) updateRun(traceId, () => ({ evaluating: true }));
        setState((s) => ({ agent: { ...s.agent, status: 'evaluating' } }));
      } else {
        if (traceId) updateRun(traceId, (r) => ({ evaluating: false, status: r.status === 'running' ? (status === 'error' ? 'error' : 'ok') : r.status }));
        setState((s) => ({
          agent: { status: status === 'error' ? 'error' : 'done', provider: provider ?? s.agent.provider, model: s.agent.model },
          activeTraceId: !traceId || s.activeTraceId === traceId ? null : s.activeTraceId,
        }));
      }
      return;
    }
    case 'agent_output': {
      const { traceId, content, offset } = ev;
      ensureRun(traceId);
      updateRun(traceId, (r) => {
        const merged = mergeSpan({ start: r.textStart, text: r.text }, { start: offset, text: content });
        return { text: merged.text, textStart: merged.start };
      });
      return;
    }
    case 'agent_tool': {
      ensureRun(ev.traceId);
      updateRun(ev.traceId, (r) => ({ steps: upsertStep(r.steps, ev) }));
      return;
    }
    case 'agent_done':
      return onDone(ev);
    case 'agent_retry': {
      ensureRun(ev.traceId);
      // one notice per run, updated in place: a CLI waiting for the network retries many times
      // (no failure class: the CLI retries on its own and says so in `reason`)
      const notice: RunNotice = { kind: 'retry', provider: ev.provider, attempt: ev.attempt, delayMs: ev.delayMs, reason: ev.reason, byCli: ev.failure === undefined };
      updateRun(ev.traceId, (r) => {
        const index = r.notices.findIndex((n) => n.kind === 'retry');
        if (index === -1) return { notices: [...r.notices, notice] };
        const notices = r.notices.slice();
        notices[index] = notice;
        return { notices };
      });
      return;
    }
    case 'agent_fallback': {
      ensureRun(ev.traceId);
      const notice: RunNotice = { kind: 'fallback', from: ev.from, to: ev.to, reason: ev.reason };
      // the next provider runs with its default model; its retries start over
      updateRun(ev.traceId, (r) => ({ provider: ev.to, model: undefined, notices: [...r.notices.filter((n) => n.kind !== 'retry'), notice] }));
      return;
    }
    case 'steer_started':
      return onSteer(ev);
    case 'queue_update': {
      const pending = Math.max(0, ev.pending);
      const active = ev.active;
      setState((s) => {
        if (pending > 0 || active) return { queue: { pending, active } };
        // Nothing runs or waits (stop empties the queue): no message is queued any more.
        const queued = new Set(s.queuedIds);
        const rows = queued.size
          ? s.view.rows.map((r) => (r.kind === 'message' && r.queued ? { ...r, queued: false } : r))
          : s.view.rows;
        return { queue: { pending, active }, queuedIds: [], view: { ...s.view, rows } };
      });
      return;
    }
    case 'session_switched': {
      const { sessionId } = ev;
      setState((s) => ({
        activeId: sessionId,
        sessions: s.sessions.map((x) => ({ ...x, active: x.id === sessionId })),
      }));
      if (state.view.sessionId !== sessionId) sessionHandler(sessionId);
      return;
    }
    case 'session_created': {
      const { sessionId, title } = ev;
      setState((s) =>
        s.sessions.some((x) => x.id === sessionId)
          ? {}
          : { sessions: [{ id: sessionId, title, active: false, createdAt: ev.ts, updatedAt: ev.ts }, ...s.sessions] },
      );
      return;
    }
    case 'session_deleted': {
      forgetSession(ev.sessionId);
      if (state.view.sessionId === ev.sessionId) deletedHandler(ev.sessionId);
      return;
    }
    case 'session_list': {
      const list = ev.sessions;
      setState((s) => {
        // the event carries the most recent sessions; keep older ones we already know below them
        const known = new Set(list.map((x) => x.id));
        const rest = s.sessions.filter((x) => !known.has(x.id));
        const active = list.find((x) => x.active)?.id ?? s.activeId;
        return { sessions: [...list, ...rest.map((x) => ({ ...x, active: x.id === active }))], activeId: active };
      });
      return;
    }
    case 'chat_cleared': {
      if (state.view.sessionId === ev.sessionId) {
        updateView((v) => ({
          rows: [{ kind: 'notice', key: newKey('n'), text: 'The conversation was cleared.' }],
          ids: new Set(),
          hasMoreBefore: false,
          hasMoreAfter: false,
          before: null,
          after: null,
          epoch: v.epoch + 1,
        }));
      }
      return;
    }
    case 'session_reset': {
      if (state.view.sessionId === ev.sessionId) {
        updateView((v) => ({ rows: [...v.rows, { kind: 'notice', key: newKey('n'), text: 'The next message starts a fresh provider session. The history stays.' }] }));
      }
      return;
    }
    case 'settings_changed':
      return onSettingsChanged(ev);
    case 'replay_gap':
      gapHandler(ev.reason);
      return;
    default:
      return;
  }
}

/** Another tab, a slash command or the CLI changed the agent's provider or model: follow it. */
function onSettingsChanged(ev: EventPayload<'settings_changed'>): void {
  // a path, the custom command or a key may have changed what is installed or logged in
  if (ev.sections.includes('agent')) readinessHandler(false);
  const agent = ev.values.agent as { provider?: string; model?: string; effort?: string } | undefined;
  if (!agent) return;
  const patch = { provider: agent.provider ?? '', model: agent.model ?? '', effort: agent.effort ?? '' };
  setState((s) => ({
    session: s.session ? { ...s.session, ...patch } : s.session,
    registry: s.registry ? { ...s.registry, active: patch } : s.registry,
  }));
}

/**
 * The texts of the latest system messages by id: a run that leaves no answer saves a record of why
 * (a system message) just before its agent_done names it, and the run's row shows that record.
 */
const records = new Map<number, string>();
const MAX_RECORDS = 20;

function onMessage(m: EventPayload<'message'> & { meta?: Message['meta'] }): void {
  // (the event has no meta; a page of history replayed as events after a reconnect has)
  const message: Message = { id: m.id, sessionId: m.sessionId, role: m.role, content: m.content, createdAt: m.createdAt, ...(m.meta ? { meta: m.meta } : {}) };
  if (message.role === 'system') {
    records.set(message.id, message.content);
    if (records.size > MAX_RECORDS) records.delete(records.keys().next().value!);
  }
  if (typeof m.replaces === 'number' && replaceMessage(m.replaces, message)) return;
  setState((s) => ({
    sessions: s.sessions.map((x) => (x.id === message.sessionId ? { ...x, updatedAt: message.createdAt } : x)),
  }));
  const view = state.view;
  if (message.sessionId !== view.sessionId || view.ids.has(message.id) || view.hasMoreAfter) return;
  if (message.role === 'assistant') {
    // The reply of a run in this session: the run's row shows it (no second row, no re-render).
    const run = Object.values(state.runs).find(
      (r) => r.sessionId === view.sessionId && (r.messageId === message.id || (r.messageId === undefined && r.status === 'running')),
    );
    if (run && view.rows.some((r) => r.kind === 'run' && r.traceId === run.traceId)) {
      updateRun(run.traceId, () => ({ messageId: message.id }));
      updateView((v) => ({ ids: new Set(v.ids).add(message.id), after: Math.max(v.after ?? 0, message.id) }));
      return;
    }
  }
  updateView((v) => {
    const ids = new Set(v.ids).add(message.id);
    let rows = v.rows;
    const local = message.role === 'user' ? rows.findIndex((r) => r.kind === 'local' && isSavedAs(r, message.content)) : -1;
    if (local !== -1) {
      rows = rows.slice();
      // same key: the bubble the user saw while sending becomes the saved message in place
      rows[local] = { kind: 'message', key: rows[local]!.key, message };
    } else {
      rows = [...rows, messageRow(message)];
    }
    return { rows, ids, after: Math.max(v.after ?? 0, message.id), before: v.before ?? message.id };
  });
}

/**
 * A queued message moved behind the answers saved while it waited (it got a new id): the row it
 * has keeps its place on screen and takes the new id. False when this page does not show it.
 */
function replaceMessage(oldId: number, message: Message): boolean {
  const index = state.view.rows.findIndex((r) => r.kind === 'message' && r.message.id === oldId);
  if (index === -1 || message.sessionId !== state.view.sessionId) return false;
  setState((s) => {
    const rows = s.view.rows.slice();
    rows[index] = { ...(rows[index] as Extract<Row, { kind: 'message' }>), key: `m${message.id}`, message };
    const ids = new Set(s.view.ids);
    ids.delete(oldId);
    ids.add(message.id);
    return {
      view: { ...s.view, rows, ids, after: Math.max(s.view.after ?? 0, message.id) },
      queuedIds: s.queuedIds.map((id) => (id === oldId ? message.id : id)),
    };
  });
  return true;
}

/** Whether a message being sent is the one just saved: the same text and the same attached files. */
function isSavedAs(row: Extract<Row, { kind: 'local' }>, content: string): boolean {
  if (!row.attachments?.length) return row.content === content;
  const saved = splitAttachments(content);
  const names = (files: AttachmentRef[]) => files.map((f) => f.filename).join('\n');
  return saved.text === row.content && names(saved.files) === names(row.attachments);
}

function onNewMessage(ev: EventPayload<'new_message'>): void {
  if (ev.sessionId !== state.view.sessionId || !ev.queued) return;
  const { content } = ev;
  const rows = state.view.rows;
  for (let i = rows.length - 1; i >= Math.max(0, rows.length - 50); i--) {
    const row = rows[i]!;
    if (row.kind === 'message' && row.message.role === 'user' && row.message.content === content && !row.queued) {
      if (state.queuedIds.includes(row.message.id)) return;
      const id = row.message.id;
      setState((s) => {
        const copy = s.view.rows.slice();
        const index = copy.indexOf(row);
        if (index === -1) return {};
        copy[index] = { ...row, queued: true };
        return { view: { ...s.view, rows: copy }, queuedIds: [...s.queuedIds, id] };
      });
      return;
    }
  }
}

function onDone(ev: EventPayload<'agent_done'>): void {
  const { traceId, status, messageId } = ev;
  // the CLI turned out missing or logged out: detect again, so the page says so (and later, fixed)
  if (ev.failure === 'auth' || ev.failure === 'cli_missing') readinessHandler(true);
  ensureRun(traceId);
  const record = messageId !== undefined ? records.get(messageId) : undefined;
  updateRun(traceId, (r) => ({
    status,
    evaluating: false,
    final: ev.text,
    error: ev.error,
    record: status === 'ok' ? undefined : (record ?? ev.error),
    failure: ev.failure,
    fix: ev.fix,
    messageId: messageId ?? r.messageId,
    durationMs: ev.durationMs,
    usage: ev.usage,
    finishedAt: Date.now(),
    provider: ev.provider ?? r.provider,
    // the bounded tool log is authoritative for steps we never saw (a tab opened mid-run)
    steps: r.steps.length ? r.steps : ev.toolLog.map((t) => ({ ...t, input: t.input ?? {} })),
  }));
  setState((s) => ({ activeTraceId: s.activeTraceId === traceId ? null : s.activeTraceId }));
  if (messageId !== undefined) {
    updateView((v) => {
      if (!v.rows.some((r) => r.kind === 'run' && r.traceId === traceId)) return {};
      // if the saved reply also got a row of its own, keep only the run's
      const rows = v.rows.filter((r) => !(r.kind === 'message' && r.message.id === messageId));
      return { rows, ids: new Set(v.ids).add(messageId), after: Math.max(v.after ?? 0, messageId) };
    });
  }
}

function onSteer(ev: EventPayload<'steer_started'>): void {
  const { prompt } = ev;
  const traceId = ev.traceId ?? state.activeTraceId;
  if (!traceId || !state.runs[traceId]) return;
  updateRun(traceId, (r) => ({ notices: [...r.notices, { kind: 'steer', text: prompt }] }));
  // The steer prompt is saved as a user message: inside the run it reads as a note, not a new turn.
  updateView((v) => {
    const runIndex = v.rows.findIndex((r) => r.kind === 'run' && r.traceId === traceId);
    if (runIndex === -1) return {};
    const index = v.rows.findIndex(
      (r, i) => i > runIndex && r.kind === 'message' && r.message.role === 'user' && r.message.content === prompt,
    );
    if (index === -1) return {};
    return { rows: v.rows.filter((_, i) => i !== index) };
  });
}
