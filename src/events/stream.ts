// The public event stream: numbers every public bus event, keeps the most recent ones in a ring
// buffer for replay, and fans each event out to the attached sinks (SSE responses, WebSockets).
// Each event is serialized once, whatever the number of listeners.
import type { ReplayGapEvent } from '../protocol/events.ts';
import type { EventBus } from './bus.ts';
import { encodeFrame, eventBody, parseEventId, type WireFrame } from './wire.ts';

export interface Sink {
  /** Delivers one frame. */
  send(frame: WireFrame): void;
  /** Delivers the keep-alive ping. */
  ping(): void;
  /**
   * Tells a new client without a cursor where the stream stands (SSE: an `id:` line without data,
   * which moves EventSource's lastEventId without dispatching anything), so that a drop before the
   * first event can still be replayed.
   */
  position?(eventId: string): void;
  /**
   * Delivers what a reconnecting client missed (up to the whole buffer). A sink that paces its
   * writes takes the frames at once and sends them as its client reads; without this method each
   * frame is sent with `send`.
   */
  replay?(frames: readonly WireFrame[]): void;
}

export interface ReplayResult {
  gap: boolean;
  replayed: number;
}

export interface EventStreamOptions {
  bufferSize?: number;
  heartbeatMs?: number;
}

export const DEFAULT_BUFFER_SIZE = 1000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Twelve hex digits, another for each process. Not a secret (it is in every event id), so Math.random,
 * which V8 seeds from the system's entropy, will do: node:crypto took ~5 ms to load at start.
 */
const newStreamId = () => Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, '0');

export class EventStream {
  /** Identifies this server process: a cursor from another process cannot be replayed. */
  readonly streamId = newStreamId();
  private seq = 0;
  private readonly ring: (WireFrame | undefined)[];
  private readonly sinks = new Set<Sink>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus, options: EventStreamOptions = {}) {
    this.ring = new Array(options.bufferSize ?? DEFAULT_BUFFER_SIZE);
    this.unsubscribe = bus.subscribe((event) => {
      if (event.visibility === 'public') this.broadcast(eventBody(event));
    });
    this.heartbeat = setInterval(() => {
      for (const sink of this.sinks) sink.ping();
    }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get lastSeq(): number {
    return this.seq;
  }

  get size(): number {
    return this.sinks.size;
  }

  private get oldestSeq(): number {
    return Math.max(1, this.seq - this.ring.length + 1);
  }

  private broadcast(body: Record<string, unknown>): void {
    const frame = encodeFrame(this.streamId, ++this.seq, body);
    this.ring[frame.seq % this.ring.length] = frame;
    for (const sink of this.sinks) sink.send(frame);
  }

  /**
   * Replays what the cursor missed, then attaches the sink for live events. Both happen in one
   * synchronous step, so no event can fall between replay and live delivery.
   * - no cursor: live events only;
   * - a cursor inside the buffer: every later event, nothing lost;
   * - a cursor older than the buffer, from another process, or unreadable: a `system`/`replay_gap`
   *   event first, then everything the buffer holds.
   */
  attach(sink: Sink, cursor: string | undefined): ReplayResult {
    const result = this.replay(sink, cursor);
    this.sinks.add(sink);
    return result;
  }

  detach(sink: Sink): void {
    this.sinks.delete(sink);
  }

  private replay(sink: Sink, cursor: string | undefined): ReplayResult {
    if (cursor === undefined || cursor === '') {
      sink.position?.(`${this.streamId}-${this.seq}`);
      return { gap: false, replayed: 0 };
    }
    const parsed = parseEventId(cursor);
    const oldest = this.oldestSeq;
    const resumable =
      parsed !== null && parsed.streamId === this.streamId && parsed.seq <= this.seq && parsed.seq >= oldest - 1;
    let from = oldest;
    if (resumable) {
      from = parsed.seq + 1;
    } else {
      const gap: Omit<ReplayGapEvent, 'eventId'> = {
        topic: 'system',
        event: 'replay_gap',
        ts: Date.now(),
        lastEventId: cursor,
        reason: parsed === null ? 'invalid_cursor' : parsed.streamId !== this.streamId ? 'unknown_stream' : 'expired',
        oldestAvailableId: this.seq >= oldest ? `${this.streamId}-${oldest}` : null,
      };
      // The gap's own id sits just before the oldest buffered event: a client that reconnects
      // right after it is served the whole buffer without another gap.
      sink.send(encodeFrame(this.streamId, oldest - 1, gap));
    }
    const frames: WireFrame[] = [];
    for (let seq = from; seq <= this.seq; seq++) {
      const frame = this.ring[seq % this.ring.length];
      if (frame && frame.seq === seq) frames.push(frame);
    }
    if (sink.replay) sink.replay(frames);
    else for (const frame of frames) sink.send(frame);
    const replayed = frames.length;
    return { gap: !resumable, replayed };
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe();
    this.sinks.clear();
  }
}
