// A machine's instance's events on their way into the hub's JetStream stream (SVC_EVENTS). The outbox is a sink of the
// instance's event stream: it keeps every frame until JetStream has acknowledged it, and sends them in order, many
// at a time, again from the first one not acknowledged after a failure (a link down, the hub or its nats-server
// restarting). A frame sent twice is stored once: its message id is its event id, which JetStream deduplicates.
// Bounded: past MAX_QUEUED frames the oldest go, and a `replay_gap` in their place tells the hub to reload.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { ReplayGapEvent } from '../../protocol/events.ts';
import type { Sink } from '../../events/stream.ts';
import type { WireFrame } from '../../events/wire.ts';

/** Frames kept while the hub cannot be reached (a few MiB of events). */
export const MAX_QUEUED = 20_000;
/** Frames sent before their acknowledgements are awaited: one round trip per window, not per frame. */
const WINDOW = 256;
const ACK_TIMEOUT_MS = 5_000;
const RETRY_MS = 1_000;
/** The id of a replay_gap made here: the last lost event's id and this (so JetStream keeps each gap once). */
const GAP = '-gap';

/** What the outbox keeps of an event: its id (the message id) and its wire JSON. */
export type OutboxFrame = Pick<WireFrame, 'id' | 'json'>;

export interface EventOutboxOptions {
  js: JetStreamClient;
  subject: string;
  /** Whether the machine is connected: while it is not, nothing is sent (the client would only pile them up). */
  connected: () => boolean;
  maxQueued?: number;
  retryMs?: number;
}

export class EventOutbox implements Sink {
  private queue: OutboxFrame[] = [];
  private pumping = false;
  private closed = false;
  private wake?: () => void;

  constructor(private readonly o: EventOutboxOptions) {}

  send(frame: OutboxFrame): void {
    if (this.closed) return;
    this.queue.push(frame);
    const max = this.o.maxQueued ?? MAX_QUEUED;
    if (this.queue.length > max) this.dropOldest(max);
    void this.pump();
  }

  ping(): void {}

  /** Frames not yet acknowledged by JetStream. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once nothing waits, or after `timeoutMs` (a stopping svc serve gives its last events a moment). */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && !this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** The machine is connected again: what waits goes now. */
  resume(): void {
    this.wake?.();
    void this.pump();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** Sends what is queued, a window at a time; after a failure, waits and sends again from the first unacknowledged. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        if (!this.o.connected()) {
          await this.pause();
          continue;
        }
        const window = this.queue.slice(0, WINDOW);
        const acks = await Promise.allSettled(window.map((f) => this.o.js.publish(this.o.subject, f.json, { msgID: f.id, timeout: ACK_TIMEOUT_MS })));
        const failed = acks.findIndex((a) => a.status === 'rejected');
        const stored = new Set(failed === -1 ? window : window.slice(0, failed));
        // (the queue may have overflowed meanwhile, and lost some of the window and gained a replay_gap at its front)
        this.queue = this.queue.filter((f) => !stored.has(f));
        if (failed !== -1) await this.pause();
      }
    } finally {
      this.pumping = false;
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.o.retryMs ?? RETRY_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Too much waited: the oldest go, and one replay_gap at the front (with the id of the last one lost) stands for them. */
  private dropOldest(max: number): void {
    if (this.queue[0]?.id.endsWith(GAP)) this.queue.shift();
    const lost = this.queue.splice(0, this.queue.length - (max - 1)).at(-1);
    if (!lost) return;
    const lastEventId = lost.id.replace(new RegExp(`${GAP}$`), '');
    const gap: ReplayGapEvent = { eventId: `${lastEventId}${GAP}`, topic: 'system', event: 'replay_gap', ts: Date.now(), lastEventId, reason: 'expired', oldestAvailableId: this.queue[0]?.id ?? null };
    this.queue.unshift({ id: gap.eventId, json: JSON.stringify(gap) });
  }
}
