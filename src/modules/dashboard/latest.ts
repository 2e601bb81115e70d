// The latest-message cache of one instance: what the dashboard shows of its current work, kept up
// to date from the instance's events. Pure: the bridge feeds it events and reloaded messages.
import type { Latest } from '../../protocol/dashboard.ts';

/** Longest run output kept (the tail): enough for a preview, bounded whatever the run prints. */
const OUTPUT_TAIL = 2000;

export const emptyLatest = (instanceId: string): Latest => ({
  instanceId,
  lastUser: null,
  lastAssistant: null,
  run: null,
  queue: { pending: 0, active: false },
  orchestration: null,
  workers: {},
  cursor: null,
  lastEventAt: null,
});

interface MessageLike {
  id: number;
  role: string;
  content: string;
  createdAt: number;
  sessionId: string;
}

const asMessage = (d: Record<string, unknown>): MessageLike | null =>
  typeof d.id === 'number' && typeof d.role === 'string' && typeof d.content === 'string'
    ? { id: d.id, role: d.role, content: d.content, createdAt: Number(d.createdAt ?? Date.now()), sessionId: String(d.sessionId ?? '') }
    : null;

/** Applies a saved message (from an event or a reload): the newest of each role wins. */
export function withMessage(latest: Latest, m: MessageLike): Latest {
  const message = { id: m.id, role: m.role, content: m.content, createdAt: m.createdAt, sessionId: m.sessionId };
  if (m.role === 'user' && (!latest.lastUser || latest.lastUser.id <= m.id)) return { ...latest, lastUser: message };
  if (m.role === 'assistant' && (!latest.lastAssistant || latest.lastAssistant.id <= m.id)) return { ...latest, lastAssistant: message };
  return latest;
}

/** Applies one event of the instance's stream (by name, with its fields). Unknown events change nothing but the time. */
export function applyEvent(latest: Latest, name: string, d: Record<string, unknown>, at: number): Latest {
  const next = { ...latest, lastEventAt: at };
  switch (name) {
    case 'message': {
      const m = asMessage(d);
      return m ? withMessage(next, m) : next;
    }
    case 'agent_status':
      return { ...next, run: { traceId: (d.traceId as string | undefined) ?? latest.run?.traceId ?? null, status: String(d.status), provider: (d.provider as string | undefined) ?? latest.run?.provider ?? null, output: d.status === 'running' && d.traceId !== latest.run?.traceId ? '' : (latest.run?.output ?? '') } };
    case 'agent_output': {
      const output = `${latest.run && latest.run.traceId === d.traceId ? latest.run.output : ''}${String(d.content ?? '')}`.slice(-OUTPUT_TAIL);
      return { ...next, run: { traceId: String(d.traceId), status: 'running', provider: latest.run?.provider ?? null, output } };
    }
    case 'agent_done':
      return { ...next, run: { traceId: String(d.traceId), status: String(d.status), provider: (d.provider as string | undefined) ?? latest.run?.provider ?? null, output: String(d.text ?? '').slice(-OUTPUT_TAIL) } };
    case 'queue_update':
      // the instance's whole queue, not its active chat session's (an older instance sends no total)
      return { ...next, queue: { pending: Number(d.total ?? d.pending ?? 0), active: Boolean(d.active) } };
    case 'orc_state':
      return { ...next, orchestration: { ...d } };
    default:
      // Orchestration and worker progress whose payloads the spec leaves open: kept as they came.
      if (name.startsWith('worker_') || name.startsWith('orchestrate_') || name.startsWith('agent:provider-e:')) {
        return { ...next, workers: { ...latest.workers, [name]: { ...d, at } } };
      }
      return next;
  }
}
