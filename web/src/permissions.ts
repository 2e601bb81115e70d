// The chat's tool permission requests: those of the session this page shows, kept from the
// `permission_request` / `permission_resolved` events and read again from GET /api/permissions when
// they may have been missed (the page opened, the session changed, the event channel came back, a
// replay gap). A request answered while the page was open stays, decided, in its run; the run's row
// shows them (useRunPermissions).
import { useEffect, useState } from 'preact/hooks';
import type { DecisionBody, PermissionRequest } from '../../src/protocol/permissions.ts';
import type { EventPayload } from '../../src/protocol/events.ts';
import { get, post } from './api.ts';
import { getState, onLiveEvent, subscribe } from './store.ts';

let requests: PermissionRequest[] = [];
const listeners = new Set<() => void>();
const changed = (next: PermissionRequest[]) => {
  requests = next;
  for (const listener of listeners) listener();
};

function upsert(request: PermissionRequest): void {
  const index = requests.findIndex((r) => r.id === request.id);
  if (index === -1) return changed([...requests, request]);
  // a late copy of a request that is decided already does not bring its buttons back
  if (requests[index]!.status !== 'pending' && request.status === 'pending') return;
  changed(requests.map((r, i) => (i === index ? request : r)));
}

function resolved(ev: EventPayload<'permission_resolved'>): void {
  const known = requests.find((r) => r.id === ev.id);
  if (!known) return;
  upsert({ ...known, status: ev.decision === 'allow' ? 'allowed' : 'denied', decidedBy: ev.by, ...(ev.reason ? { reason: ev.reason } : {}) });
}

let loadedFor: string | null = null;
/** The pending requests of the session shown, from the server; what was decided meanwhile is marked so. */
async function load(sessionId: string): Promise<void> {
  let pending: PermissionRequest[];
  try {
    pending = (await get<{ requests: PermissionRequest[] }>(`/api/permissions?sessionId=${encodeURIComponent(sessionId)}`)).requests;
  } catch {
    return; // an older server, or offline: the next reconnect reads again
  }
  if (getState().view.sessionId !== sessionId) return;
  // the decided ones this page saw stay in their runs; one it showed pending that the server no longer
  // holds was decided while the page was not listening, and goes
  const kept = loadedFor === sessionId ? requests.filter((r) => r.status !== 'pending') : [];
  loadedFor = sessionId;
  changed(kept.concat(pending));
}

let started = false;
/** Follows the events and the moments a reload is due; once per page. */
function start(): void {
  if (started) return;
  started = true;
  let sessionId: string | null = null;
  let phase = getState().conn.phase;
  const check = () => {
    const s = getState();
    const reopened = s.conn.phase === 'open' && phase !== 'open';
    phase = s.conn.phase;
    if (s.view.sessionId && (s.view.sessionId !== sessionId || reopened)) {
      sessionId = s.view.sessionId;
      void load(sessionId);
    }
  };
  subscribe(check);
  check();
  onLiveEvent((ev) => {
    if (ev.event === 'permission_request') {
      // the request is the event's fields, less the stream's framing
      const { eventId: _id, topic: _topic, event: _name, ts: _ts, ...request } = ev as unknown as PermissionRequest & { eventId?: string; topic: string; event: string; ts?: number };
      if (request.sessionId === getState().view.sessionId) upsert(request);
    } else if (ev.event === 'permission_resolved') {
      resolved(ev as unknown as EventPayload<'permission_resolved'>);
    } else if (ev.event === 'replay_gap' && sessionId) {
      void load(sessionId);
    }
  });
}

/** The permission requests of one run (pending and decided), oldest first. */
export function useRunPermissions(runId: string): PermissionRequest[] {
  const pick = () => requests.filter((r) => r.runId === runId);
  const [list, setList] = useState(pick);
  useEffect(() => {
    start();
    const update = () => setList((old) => {
      const next = pick();
      return next.length === old.length && next.every((r, i) => r === old[i]) ? old : next;
    });
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, [runId]);
  return list;
}

/** A person's answer; the server's answer (the decided request) shows at once, before its event. */
export async function answerPermission(id: string, body: DecisionBody): Promise<void> {
  const { request } = await post<{ request: PermissionRequest }>(`/api/permissions/${encodeURIComponent(id)}`, body);
  upsert(request);
}
