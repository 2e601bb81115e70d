// The manager dashboard's page: instances (with their latest message and lifecycle buttons), the
// board, the schedule, a memory search and the live activity feed. It reads the manager's own
// event stream and never polls the instances.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type BoardItem, type Instance, type Latest, type ManagerEvent, type MemoryHit, type Note, type ScheduleJob } from './api.ts';
import { Executive } from './executive.tsx';
import { Settings } from './settings.tsx';
import './styles.css';

const LANES = ['backlog', 'ready', 'active', 'review', 'done'] as const;

function useData() {
  const [instances, setInstances] = useState<Instance[]>([]);
  const [latest, setLatest] = useState<Record<string, Latest>>({});
  const [board, setBoard] = useState<BoardItem[]>([]);
  const [jobs, setJobs] = useState<ScheduleJob[]>([]);
  const [notes, setNotes] = useState<Note[]>([]);
  const [feed, setFeed] = useState<string[]>([]);
  const reload = async () => {
    const list = (await api<{ instances: Instance[] }>('/api/dashboard/instances')).instances;
    setInstances(list);
    const entries = await Promise.all(list.map(async (i) => [i.id, await api<Latest>(`/api/dashboard/instances/${i.id}/latest`)] as const));
    setLatest(Object.fromEntries(entries));
    setBoard((await api<{ items: BoardItem[] }>('/api/dashboard/board/items')).items);
    setJobs((await api<{ jobs: ScheduleJob[] }>('/api/dashboard/schedule/jobs')).jobs);
    setNotes((await api<{ notes: Note[] }>('/api/dashboard/connectors/notes?limit=50')).notes);
  };
  useEffect(() => {
    void reload().then(() => document.getElementById('app')!.setAttribute('data-ready', ''));
    const source = new EventSource('/api/events');
    source.onmessage = (m) => {
      const e = JSON.parse(m.data) as ManagerEvent;
      if (e.event === 'instance_event') {
        const id = String(e.instanceId);
        if (e.name === 'message' || e.name === 'agent_status' || e.name === 'agent_done') {
          void api<Latest>(`/api/dashboard/instances/${id}/latest`).then((l) => setLatest((prev) => ({ ...prev, [id]: l })));
        }
        if (e.name === 'message') setFeed((f) => [`${id}: ${String((e.data as { role: string }).role)} message`, ...f].slice(0, 50));
      } else if (e.event === 'instance_status' || e.event === 'dashboard_activity') {
        setFeed((f) => [`${String(e.kind ?? e.change ?? '')} ${String(e.message ?? e.status ?? '')} ${String(e.instanceId ?? '')}`.trim(), ...f].slice(0, 50));
        void reload();
      }
    };
    return () => source.close();
  }, []);
  return { instances, latest, board, jobs, notes, feed, reload };
}

function Instances({ instances, latest, reload }: { instances: Instance[]; latest: Record<string, Latest>; reload: () => Promise<void> }) {
  const act = (id: string, action: string) => void api(`/api/dashboard/instances/${id}/${action}`, { method: 'POST', body: {} }).then(reload, (e: Error) => alert(e.message));
  return (
    <section aria-label="Instances">
      <h2>Instances</h2>
      <button onClick={() => void api('/api/dashboard/instances/start', { method: 'POST', body: {} }).then(reload, (e: Error) => alert(e.message))}>Start a new instance</button>
      <ul class="instances">
        {instances.map((i) => (
          <li key={i.id} class={`instance ${i.status}`} data-id={i.id}>
            <div class="row">
              <strong>{i.label}</strong> <span class="status">{i.status}</span> {i.busy && <span class="busy">busy</span>}
              <span class="meta">{i.provider ?? '?'} · {i.model || 'default model'} · {i.owner}</span>
              {/* through the manager's proxy: one origin, and the instance's token stays here */}
              <a href={`/i/${encodeURIComponent(i.id)}/`} target="_blank" rel="noreferrer">open</a>
            </div>
            <p class="latest">{latest[i.id]?.lastAssistant?.content.slice(0, 300) ?? ''}</p>
            {i.owner === 'manager' && (
              <div class="actions">
                {i.status === 'online' ? <button onClick={() => act(i.id, 'stop')}>Stop</button> : <button onClick={() => act(i.id, 'start')}>Start</button>}
                <button onClick={() => act(i.id, 'restart')}>Restart</button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Board({ items, reload }: { items: BoardItem[]; reload: () => Promise<void> }) {
  const [title, setTitle] = useState('');
  return (
    <section aria-label="Board">
      <h2>Board</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void api('/api/dashboard/board/items', { method: 'POST', body: { title } }).then(() => (setTitle(''), reload()));
        }}
      >
        <input aria-label="New item" value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} placeholder="New item" />
      </form>
      <div class="lanes">
        {LANES.map((lane) => (
          <div class="lane" data-lane={lane} key={lane}>
            <h3>{lane}</h3>
            {items.filter((i) => i.lane === lane).map((i) => (
              <div class="card" key={i.id}>
                {i.title}
                {lane !== 'done' && <button aria-label={`Move ${i.title} on`} onClick={() => void api(`/api/dashboard/board/items/${i.id}`, { method: 'PATCH', body: { lane: LANES[LANES.indexOf(lane) + 1] } }).then(reload)}>→</button>}
              </div>
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}

function Memory() {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<MemoryHit[] | null>(null);
  return (
    <section aria-label="Memory">
      <h2>Memory</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void api<{ hits: MemoryHit[] }>(`/api/dashboard/memory/search?q=${encodeURIComponent(q)}`).then((r) => setHits(r.hits));
        }}
      >
        <input aria-label="Search memory" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} placeholder="Search all instances' memory" />
      </form>
      {hits && <ul class="hits">{hits.map((h) => <li key={`${h.instanceId}${h.path}${h.heading}`}><b>{h.instanceLabel}</b> {h.path}: {h.snippet}</li>)}</ul>}
    </section>
  );
}

/** What instances' agents noted through their connectors: each says whose agent wrote it. */
function Notes({ notes, instances, board }: { notes: Note[]; instances: Instance[]; board: BoardItem[] }) {
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  return (
    <section aria-label="Notes" class="notes">
      <h2>Notes from agents</h2>
      <ul>
        {notes.map((n) => (
          <li key={n.id} data-instance={n.instanceId}>
            <b>{n.title}</b> <span class="meta">by the agent of {label(n.instanceId)} · {new Date(n.createdAt).toLocaleString()}</span>
            {n.boardItemId && <span class="meta"> · about “{board.find((i) => i.id === n.boardItemId)?.title ?? n.boardItemId}”</span>}
            <p class="note-body">{n.body}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

function App() {
  const { instances, latest, board, jobs, notes, feed, reload } = useData();
  return (
    <main>
      <h1>svc dashboard</h1>
      <Instances instances={instances} latest={latest} reload={reload} />
      <Executive instances={instances} />
      <Board items={board} reload={reload} />
      <Notes notes={notes} instances={instances} board={board} />
      <section aria-label="Schedule">
        <h2>Schedule</h2>
        <ul>{jobs.map((j) => <li key={j.id}>{j.title} → {j.instanceId} · {j.cron ?? new Date(j.runAt ?? 0).toLocaleString()} · next {j.nextRunAt ? new Date(j.nextRunAt).toLocaleString() : '—'}</li>)}</ul>
      </section>
      <Memory />
      <section aria-label="Activity">
        <h2>Activity</h2>
        <ol class="feed">{feed.map((line, n) => <li key={n}>{line}</li>)}</ol>
      </section>
      <Settings />
    </main>
  );
}

render(<App />, document.getElementById('app')!);
