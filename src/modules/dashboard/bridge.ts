// The event bridge: one server-side subscription to each online instance's GET /api/events. It
// resumes with Last-Event-ID, reloads the cache on `replay_gap`, reconnects with backoff, and fences
// every connection with a generation number so a stale one (or a late reload) can never overwrite
// what a newer one wrote. Each event updates the instance's latest-message cache and is handed on
// (the manager relays it on its own stream).
import type { Latest } from '../../protocol/dashboard.ts';
import { callInstance, type Frame, type Reader, type ReaderHandlers, type Target } from './instance-client.ts';
import { applyEvent, emptyLatest, withMessage } from './latest.ts';
import { openReader } from './sse-reader.ts';

export interface RelayedEvent {
  instanceId: string;
  name: string;
  topic: string;
  eventId: string;
  data: Record<string, unknown>;
}

export interface BridgeHandlers {
  onEvent(event: RelayedEvent): void;
  onConnected(instanceId: string): void;
  onDisconnected(instanceId: string, reason: string): void;
}

export interface BridgeOptions {
  /** First reconnect delay; doubles up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

interface Subscription {
  target: Target;
  gen: number;
  reader: Reader | null;
  timer: NodeJS.Timeout | null;
  failures: number;
  state: 'connected' | 'connecting';
  latest: Latest;
  /** The stream and sequence of the last event taken: anything at or before it is a duplicate. */
  seen: { streamId: string; seq: number } | null;
}

const WIRE_KEYS = new Set(['eventId', 'topic', 'event', 'ts']);

const parseId = (id: string | undefined) => {
  const m = id ? /^([A-Za-z0-9]+)-(\d+)$/.exec(id) : null;
  return m ? { streamId: m[1]!, seq: Number(m[2]) } : null;
};

export class EventBridge {
  private readonly subs = new Map<string, Subscription>();
  private readonly minBackoff: number;
  private maxBackoff: number;

  constructor(private readonly handlers: BridgeHandlers, options: BridgeOptions = {}) {
    this.minBackoff = options.minBackoffMs ?? 250;
    this.maxBackoff = options.maxBackoffMs ?? 30_000;
  }

  /** A new cap applies from the next reconnect on. */
  setMaxBackoff(ms: number): void {
    this.maxBackoff = ms;
  }

  has(instanceId: string): boolean {
    return this.subs.has(instanceId);
  }

  state(instanceId: string): 'connected' | 'connecting' | 'idle' {
    return this.subs.get(instanceId)?.state ?? 'idle';
  }

  latest(instanceId: string): Latest {
    return this.subs.get(instanceId)?.latest ?? emptyLatest(instanceId);
  }

  /** Subscribes (or, with a changed target, resubscribes keeping the cursor). */
  subscribe(instanceId: string, target: Target): void {
    const sub = this.subs.get(instanceId);
    // a new pin is a restarted instance with another certificate: the old one would be refused
    if (sub && sub.target.url === target.url && sub.target.token === target.token && sub.target.pin === target.pin) return;
    const next: Subscription = sub ?? { target, gen: 0, reader: null, timer: null, failures: 0, state: 'connecting', latest: emptyLatest(instanceId), seen: null };
    next.target = target;
    this.subs.set(instanceId, next);
    this.connect(instanceId, next);
  }

  /** Connects now if waiting for a backoff (e.g. the instance was just seen online again). */
  nudge(instanceId: string): void {
    const sub = this.subs.get(instanceId);
    if (sub && sub.state === 'connecting' && sub.timer) this.connect(instanceId, sub);
  }

  unsubscribe(instanceId: string): void {
    const sub = this.subs.get(instanceId);
    if (!sub) return;
    sub.gen++;
    sub.reader?.close();
    if (sub.timer) clearTimeout(sub.timer);
    this.subs.delete(instanceId);
  }

  close(): void {
    for (const id of [...this.subs.keys()]) this.unsubscribe(id);
  }

  private connect(instanceId: string, sub: Subscription): void {
    const gen = ++sub.gen;
    sub.reader?.close();
    if (sub.timer) clearTimeout(sub.timer);
    sub.timer = null;
    sub.state = 'connecting';
    const current = () => this.subs.get(instanceId) === sub && sub.gen === gen;
    const handlers: ReaderHandlers = {
      onOpen: () => {
        if (!current()) return;
        sub.state = 'connected';
        sub.failures = 0;
        this.handlers.onConnected(instanceId);
        // A first connection (no cursor) has no history to replay: read the messages once.
        if (!sub.latest.cursor) void this.reload(instanceId, sub, gen);
      },
      onFrame: (frame) => {
        if (current()) this.take(instanceId, sub, gen, frame);
      },
      onEnd: (reason) => {
        if (!current()) return;
        sub.state = 'connecting';
        sub.reader = null;
        this.handlers.onDisconnected(instanceId, reason);
        const delay = Math.min(this.maxBackoff, this.minBackoff * 2 ** sub.failures++);
        sub.timer = setTimeout(() => {
          if (current()) this.connect(instanceId, sub);
        }, delay);
        sub.timer.unref();
      },
    };
    // (an instance whose events come another way keeps its own place in them: the cursor is for GET /api/events)
    sub.reader = sub.target.events ? sub.target.events(handlers) : openReader(sub.target, sub.latest.cursor, handlers);
  }

  private take(instanceId: string, sub: Subscription, gen: number, frame: Frame): void {
    const { data } = frame;
    const name = String(data.event ?? '');
    const id = parseId(frame.id);
    if (name === 'replay_gap' && data.topic === 'system') {
      // The instance restarted or we fell behind its buffer: what follows is everything it still
      // has; what was lost is reloaded from its messages.
      sub.latest = { ...sub.latest, cursor: frame.id ?? null };
      sub.seen = id;
      void this.reload(instanceId, sub, gen);
      return;
    }
    if (id && sub.seen && id.streamId === sub.seen.streamId && id.seq <= sub.seen.seq) return;
    if (id) sub.seen = id;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) if (!WIRE_KEYS.has(k)) fields[k] = v;
    const at = Date.now();
    sub.latest = { ...applyEvent(sub.latest, name, fields, at), cursor: frame.id ?? sub.latest.cursor };
    this.handlers.onEvent({ instanceId, name, topic: String(data.topic ?? ''), eventId: frame.id ?? '', data: fields });
  }

  /** Reads the newest messages into the cache; a reload that finishes after a newer connection is dropped. */
  private async reload(instanceId: string, sub: Subscription, gen: number): Promise<void> {
    try {
      const page = await callInstance<{ messages: { id: number; role: string; content: string; createdAt: number; sessionId: string }[] }>(sub.target, '/api/messages?limit=20');
      if (this.subs.get(instanceId) !== sub || sub.gen !== gen) return;
      let latest = sub.latest;
      for (const m of page.messages) latest = withMessage(latest, m);
      sub.latest = latest;
    } catch {
      // the stream's own events will fill the cache; the next gap or reconnect reloads again
    }
  }
}
