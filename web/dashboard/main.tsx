// The manager dashboard's page: a header (the title, the connection to the manager, the theme), then
// cards: instances (with their latest message, work and lifecycle), the executive, the board, the
// schedule, a memory search, agents' notes, the live activity and the settings. It reads the manager's
// own event stream and never polls the instances.
import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Badge } from '../ui/components.tsx';
import { Icon } from '../ui/icons.tsx';
import { api, messageOf, type BoardItem, type Instance, type Latest, type ManagerEvent, type Note, type ScheduleJob, type ScheduleRun } from './api.ts';
import { Activity, Notes, type FeedEntry } from './activity.tsx';
import { Board } from './board.tsx';
import { Executive } from './executive.tsx';
import { Fleet, fleetEvents } from './fleet.tsx';
import { Work, workEvents } from './work.tsx';
import { ExecutiveSettings } from './executive-settings.tsx';
import { FeedbackHost, toast } from './feedback.tsx';
import { Instances } from './instances.tsx';
import { Memory } from './memory.tsx';
import { permissionEvents, Permissions, usePendingPermissions } from './permissions.tsx';
import { ChangesToReview, worktreeEvents } from './review.tsx';
import { Schedule } from './schedule.tsx';
import { Settings } from './settings.tsx';
import { Notifications } from './notifications.tsx';
import '../ui/ui.css';
import './styles.css';

type Connection = 'connecting' | 'live' | 'reconnecting';

/** An instance_status event in words (the instance's label goes before it). */
function statusChange(status: string, change: string): string {
  if (change === 'busy') return 'started working';
  if (change === 'idle') return 'finished its work';
  if (change === 'stopped') return 'was stopped';
  if (change === 'appeared') return `appeared (${status})`;
  return `is ${status}`;
}

function useData() {
  const [instances, setInstances] = useState<Instance[]>([]);
  const [latest, setLatest] = useState<Record<string, Latest>>({});
  const [board, setBoard] = useState<BoardItem[]>([]);
  const [jobs, setJobs] = useState<ScheduleJob[]>([]);
  const [runs, setRuns] = useState<Record<string, ScheduleRun[]>>({});
  const [notes, setNotes] = useState<Note[]>([]);
  const [feed, setFeed] = useState<FeedEntry[]>([]);
  const [connection, setConnection] = useState<Connection>('connecting');
  const feedId = useRef(0);
  /** A line of the activity; `instanceId`: the instance it is about, named by its label when shown. */
  const note = (at: number, kind: string, ok: boolean, text: string, instanceId?: string) =>
    setFeed((f) => [{ id: ++feedId.current, at, kind, ok, text, ...(instanceId ? { instanceId } : {}) }, ...f].sort((a, b) => b.at - a.at || b.id - a.id).slice(0, 60));

  const loadLatest = (id: string) =>
    api<Latest>(`/api/dashboard/instances/${encodeURIComponent(id)}/latest`).then(
      (l) => setLatest((prev) => ({ ...prev, [id]: l })),
      () => undefined, // it was removed meanwhile: its row goes with the next reload
    );
  const loadSchedule = async () => {
    const list = (await api<{ jobs: ScheduleJob[] }>('/api/dashboard/schedule/jobs')).jobs;
    setJobs(list);
    const entries = await Promise.all(list.map(async (j) => [j.id, (await api<{ runs: ScheduleRun[] }>(`/api/dashboard/schedule/jobs/${encodeURIComponent(j.id)}/runs`).catch(() => ({ runs: [] }))).runs] as const));
    setRuns(Object.fromEntries(entries));
  };
  const reload = async () => {
    try {
      const list = (await api<{ instances: Instance[] }>('/api/dashboard/instances')).instances;
      setInstances(list);
      await Promise.all([
        ...list.map((i) => loadLatest(i.id)),
        api<{ items: BoardItem[] }>('/api/dashboard/board/items').then((r) => setBoard(r.items)),
        loadSchedule(),
        api<{ notes: Note[] }>('/api/dashboard/connectors/notes?limit=50').then((r) => setNotes(r.notes)),
      ]);
    } catch (err) {
      toast(`Reading the dashboard failed: ${messageOf(err)}`, 'error');
    }
  };
  useEffect(() => {
    void reload().then(() => document.getElementById('app')!.setAttribute('data-ready', ''));
    // A cursor the stream cannot resume from (`lastEventId=0`) is answered with what it still holds, then
    // live events: the activity shows what happened before the page was opened. (A reconnect resumes
    // from the last event seen, which the browser sends as Last-Event-ID.)
    const openedAt = Date.now();
    const source = new EventSource('/api/events?lastEventId=0');
    let opened = false;
    source.onopen = () => {
      setConnection('live');
      // back after a cut: what changed meanwhile is read again
      if (opened) void reload();
      opened = true;
    };
    source.onerror = () => setConnection('reconnecting');
    source.onmessage = (m) => {
      const e = JSON.parse(m.data) as ManagerEvent;
      // an event from before the page opened (the replay) is history: the page already read its effect
      const live = e.ts >= openedAt;
      if (e.event === 'instance_event') {
        const id = String(e.instanceId);
        const data = (e.data ?? {}) as Record<string, unknown>;
        if (live && (e.name === 'message' || e.name === 'agent_status' || e.name === 'agent_done' || e.name === 'queue_update')) void loadLatest(id);
        if (live && e.name === 'queue_update') {
          const pending = Number(data.total ?? data.pending ?? 0);
          setInstances((list) => list.map((i) => (i.id === id ? { ...i, pending, busy: Boolean(data.active) } : i)));
        }
        if (e.name === 'message') note(e.ts, 'message', true, data.role === 'user' ? 'a message came in' : 'answered', id);
        if (live && (e.name === 'permission_request' || e.name === 'permission_resolved')) permissionEvents.dispatchEvent(new Event('change'));
        if (live && e.name === 'worker_run' && (data.mergeState !== undefined || data.isolation === 'worktree')) worktreeEvents.dispatchEvent(new Event('change'));
      } else if (e.event === 'instance_status') {
        note(e.ts, 'status', e.status !== 'error', statusChange(String(e.status), String(e.change)), String(e.instanceId));
        if (live) void reload();
      } else if (e.event === 'fleet_machine' || e.event === 'fleet_status') {
        if (e.event === 'fleet_machine') note(e.ts, 'fleet', e.change !== 'offline', `machine ${String(e.name)} ${String(e.change) === 'joined' ? 'joined the fleet' : `is ${String(e.change)}`}`);
        else note(e.ts, 'fleet', e.nats === 'running', `the fleet's nats-server is ${String(e.nats)}${e.reason ? `: ${String(e.reason)}` : ''}`);
        if (live) fleetEvents.dispatchEvent(new Event('change'));
      } else if (e.event === 'fleet_work') {
        if (e.status === 'succeeded' || e.status === 'failed') note(e.ts, 'work', e.status === 'succeeded', `work ${String(e.status)}${e.reason ? `: ${String(e.reason)}` : ''}`);
        if (live) workEvents.dispatchEvent(new Event('change'));
      } else if (e.event === 'dashboard_activity') {
        note(e.ts, String(e.kind), e.ok !== false, String(e.message ?? ''));
        if (live) void reload();
      }
    };
    return () => source.close();
  }, []);
  return { instances, latest, board, jobs, runs, notes, feed, connection, reload };
}

type Theme = 'system' | 'light' | 'dark';

function storedTheme(): Theme {
  try {
    const t = localStorage.getItem('svc.theme');
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
}

/** System, light or dark: the same choice as the chat's (one origin, one stored theme). */
function ThemeButton() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useLayoutEffect(() => {
    const root = document.documentElement;
    if (theme === 'system') delete root.dataset.theme;
    else root.dataset.theme = theme;
    try {
      localStorage.setItem('svc.theme', theme);
    } catch {
      // storage unavailable: the choice lasts for this page
    }
  }, [theme]);
  const next: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };
  const label = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' }[theme];
  return (
    <button type="button" class="icon-btn" aria-label={`${label}. Switch`} title={label} onClick={() => setTheme(next[theme])}>
      <Icon name={theme === 'system' ? 'monitor' : theme === 'light' ? 'sun' : 'moon'} />
    </button>
  );
}

const CONNECTION: Record<Connection, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

const SECTIONS = [
  ['instances-title', 'Instances'],
  ['fleet-title', 'Fleet'],
  ['permissions-title', 'Permissions'],
  ['executive-title', 'Executive'],
  ['board-title', 'Board'],
  ['schedule-title', 'Schedule'],
  ['memory-title', 'Memory'],
  ['activity-title', 'Activity'],
  ['manager-settings-title', 'Settings'],
] as const;

function App() {
  const { instances, latest, board, jobs, runs, notes, feed, connection, reload } = useData();
  const online = instances.filter((i) => i.status === 'online').length;
  const permissions = usePendingPermissions();
  const waiting = permissions.pending?.requests.length ?? 0;
  return (
    <>
      <a class="skip" href="#main">
        Skip to the dashboard
      </a>
      <header class="dash-header">
        <div class="dash-brand">
          <span class="dash-logo" aria-hidden="true">
            svc
          </span>
          <h1>Dashboard</h1>
        </div>
        <nav class="dash-nav" aria-label="Sections">
          {SECTIONS.map(([id, name]) => (
            <a key={id} href={`#${id}`}>
              {name}
              {id === 'permissions-title' && waiting > 0 && (
                <>
                  {' '}
                  <Badge tone="warn">
                    {waiting}
                    <span class="sr-only"> waiting</span>
                  </Badge>
                </>
              )}
            </a>
          ))}
        </nav>
        <div class="dash-status">
          <span class={`conn-pill ${connection}`} role="status" aria-live="polite" data-state={connection} title="The dashboard's live connection to the manager">
            <span class="dot" aria-hidden="true" />
            {CONNECTION[connection]}
          </span>
          <span class="dash-count muted">
            {online}/{instances.length} online
          </span>
          <ThemeButton />
        </div>
      </header>
      <main id="main" class="dash-main" tabIndex={-1}>
        <Instances instances={instances} latest={latest} jobs={jobs} reload={reload} />
        <Fleet />
        <Work />
        <Permissions {...permissions} />
        <ChangesToReview />
        <Executive instances={instances} />
        <Board items={board} instances={instances} reload={reload} />
        <div class="dash-pair">
          <Schedule jobs={jobs} runs={runs} instances={instances} reload={reload} />
          <Memory instances={instances} />
        </div>
        <div class="dash-pair">
          <Activity feed={feed} instances={instances} />
          <Notes notes={notes} instances={instances} board={board} />
        </div>
        <div class="dash-pair">
          <Settings />
          <ExecutiveSettings />
        </div>
        <Notifications />
      </main>
      <FeedbackHost />
    </>
  );
}

render(<App />, document.getElementById('app')!);
