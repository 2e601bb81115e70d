// What agents noted through their connectors, and the live activity of the manager and its instances.
import { Badge, Card, EmptyState } from '../ui/components.tsx';
import type { BoardItem, Instance, Note } from './api.ts';
import { Time } from './parts.tsx';

export interface FeedEntry {
  id: number;
  at: number;
  kind: string;
  ok: boolean;
  text: string;
  /** The instance it is about: the line starts with its label. */
  instanceId?: string;
}

/** What instances' agents noted through their connectors: each says whose agent wrote it. */
export function Notes({ notes, instances, board }: { notes: Note[]; instances: Instance[]; board: BoardItem[] }) {
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  return (
    <Card title="Notes from agents" titleId="notes-title" class="notes">
      {notes.length === 0 ? (
        <EmptyState title="No notes yet">An instance's agent leaves notes here through its connector.</EmptyState>
      ) : (
        <ul class="note-list">
          {notes.map((n) => (
            <li key={n.id} data-instance={n.instanceId}>
              <p class="note-head">
                <b>{n.title}</b>
              </p>
              <p class="meta muted">
                by the agent of {label(n.instanceId)} · <Time at={n.createdAt} />
                {n.boardItemId && <> · about “{board.find((i) => i.id === n.boardItemId)?.title ?? n.boardItemId}”</>}
              </p>
              <p class="note-body">{n.body}</p>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function Activity({ feed, instances }: { feed: FeedEntry[]; instances: Instance[] }) {
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  return (
    <Card title="Activity" titleId="activity-title" class="activity">
      {feed.length === 0 ? (
        <EmptyState title="Nothing yet">Starts, stops, scans, board changes, scheduled runs and messages show here as they happen.</EmptyState>
      ) : (
        // focusable: the list scrolls, and a keyboard scrolls it too
        <ol class="feed" tabIndex={0} aria-label="Latest activity, newest first">
          {feed.map((e) => (
            <li key={e.id} data-ok={String(e.ok)}>
              <Badge tone={e.ok ? 'neutral' : 'danger'}>{e.kind}</Badge>
              <span class="feed-text">
                {e.instanceId && <b>{label(e.instanceId)}</b>} {e.text}
              </span>
              <span class="feed-time muted">
                <Time at={e.at} clock />
              </span>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
