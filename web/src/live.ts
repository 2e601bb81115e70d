// The live connection to the server's public event channel (spec §6):
// - SSE first (`GET /api/events`); the WebSocket `/ws` only when SSE never opens although the
//   server answers HTTP (an older server without SSE, or SSE refused on the way);
// - after a drop, reconnect with the cursor so nothing is missed: EventSource resends
//   `Last-Event-ID` itself; a connection we open again ourselves carries `?lastEventId=`;
// - a quick reconnect is silent: only a disconnect lasting more than 8 seconds sets
//   `disconnected`, and reopening clears it.
//
// The logic is a small state machine with its clock, timers and transports injected, so it is
// unit-tested without a browser or a server (test/ui/live.test.ts); `browserEnv()` is the real one.

export type TransportKind = 'sse' | 'ws';

export interface LiveStatus {
  /** `connecting`: never opened yet; `open`; `reconnecting`: dropped after having been open. */
  phase: 'connecting' | 'open' | 'reconnecting';
  transport: TransportKind;
  /** The connection has been down for more than DISCONNECT_NOTICE_MS: show the user. */
  disconnected: boolean;
  /** When the connection went down (or the first attempt started), while it is not open. */
  downSince?: number;
  lastEventId?: string;
}

/** A public event as the server frames it: `{eventId, topic, event, ts, ...fields}`. */
export interface LiveEvent {
  eventId?: string;
  topic: string;
  event: string;
  ts?: number;
  [field: string]: unknown;
}

export type ProbeResult = 'up' | 'down' | 'auth';

export const DISCONNECT_NOTICE_MS = 8000;
/** How long to wait before trying again when the server asks for a token. */
export const AUTH_RETRY_MS = 10_000;
/** Delays between attempts we make ourselves (EventSource has its own `retry: 1000`). */
export const RETRY_DELAYS_MS = [250, 500, 1000, 2000] as const;

export interface Channel {
  close(): void;
}

export interface ChannelHandlers {
  open(): void;
  message(data: string): void;
  /**
   * The channel failed or dropped. `retrying`: it reconnects on its own (an EventSource in
   * CONNECTING state, which will resend Last-Event-ID); otherwise it is dead.
   */
  error(retrying: boolean): void;
}

export interface LiveEnv {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  openSse(url: string, handlers: ChannelHandlers): Channel;
  openWs(url: string, handlers: ChannelHandlers): Channel;
  /**
   * Why SSE did not open, asked of the server: `down` (no answer at all: keep trying SSE), `auth`
   * (the event channel wants the access token: a WebSocket would be refused too), `up` (the server
   * answers but SSE does not work here: use the WebSocket).
   */
  probe(sseUrl: string): Promise<ProbeResult>;
}

export interface LiveOptions {
  /** Where the server's paths start: its origin, e.g. `http://127.0.0.1:3457`, or the proxy's `…/i/<id>`. */
  base: string;
  env: LiveEnv;
  /** The bearer token for remote use (EventSource and WebSocket carry it as `?token=`). */
  token?: () => string | undefined;
  onEvent(event: LiveEvent): void;
  onStatus?(status: LiveStatus): void;
  /** The event channel answered 401/403: the user has to give the access token. */
  onAuthRequired?(): void;
}

export class LiveConnection {
  private channel?: Channel;
  private generation = 0;
  private transport: TransportKind = 'sse';
  private sseOpened = false;
  private wsOpened = false;
  private failures = 0;
  private lastEventId?: string;
  private noticeTimer?: unknown;
  private retryTimer?: unknown;
  private running = false;
  private state: LiveStatus = { phase: 'connecting', transport: 'sse', disconnected: false };

  constructor(private readonly options: LiveOptions) {}

  get status(): LiveStatus {
    return this.state;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.update({ downSince: this.options.env.now() });
    this.armNotice();
    this.connect();
  }

  stop(): void {
    this.running = false;
    this.generation++;
    this.channel?.close();
    this.channel = undefined;
    this.clear('noticeTimer');
    this.clear('retryTimer');
  }

  /** Drops the current channel and connects again at once (e.g. after the user entered a token). */
  restart(): void {
    if (!this.running) return this.start();
    this.generation++;
    this.channel?.close();
    this.clear('retryTimer');
    this.connect();
  }

  urlFor(kind: TransportKind, withCursor: boolean): string {
    const params = new URLSearchParams();
    if (withCursor && this.lastEventId) params.set('lastEventId', this.lastEventId);
    const token = this.options.token?.();
    if (token) params.set('token', token);
    const query = params.toString() ? `?${params}` : '';
    if (kind === 'sse') return `${this.options.base}/api/events${query}`;
    return `${this.options.base.replace(/^http/, 'ws')}/ws${query}`;
  }

  private connect(): void {
    if (!this.running) return;
    const generation = ++this.generation;
    const kind = this.transport;
    const current = () => generation === this.generation && this.running;
    const handlers: ChannelHandlers = {
      open: () => current() && this.onOpen(kind),
      message: (data) => current() && this.onMessage(data),
      error: (retrying) => current() && this.onError(kind, retrying),
    };
    this.update({ transport: kind });
    const url = this.urlFor(kind, true);
    this.channel = kind === 'sse' ? this.options.env.openSse(url, handlers) : this.options.env.openWs(url, handlers);
  }

  private onOpen(kind: TransportKind): void {
    const reopened = this.sseOpened || this.wsOpened;
    if (kind === 'sse') this.sseOpened = true;
    else this.wsOpened = true;
    this.failures = 0;
    this.clear('noticeTimer');
    this.update({ phase: 'open', disconnected: false, downSince: undefined });
    // Back without a cursor (no event had arrived before the drop): the server cannot replay what
    // was missed, so the owner reloads, as for a replay gap.
    if (reopened && this.lastEventId === undefined) {
      this.options.onEvent({ topic: 'system', event: 'replay_gap', reason: 'no_cursor' });
    }
  }

  private onMessage(data: string): void {
    let event: LiveEvent;
    try {
      event = JSON.parse(data) as LiveEvent;
    } catch {
      return; // not ours: ignore
    }
    if (!event || typeof event !== 'object' || typeof event.event !== 'string') return;
    if (typeof event.eventId === 'string') {
      this.lastEventId = event.eventId;
      this.state = { ...this.state, lastEventId: event.eventId };
    }
    this.options.onEvent(event);
  }

  private onError(kind: TransportKind, retrying: boolean): void {
    if (this.state.phase === 'open') {
      this.update({ phase: 'reconnecting', downSince: this.options.env.now() });
      this.armNotice();
    }
    // An EventSource that has worked before reconnects by itself, with Last-Event-ID.
    if (kind === 'sse' && retrying && this.sseOpened) return;
    this.generation++;
    this.channel?.close();
    this.channel = undefined;
    const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)]!;
    this.failures++;
    if (!this.sseOpened && !this.wsOpened) {
      if (kind === 'sse') {
        // SSE has never opened. If the server answers HTTP, SSE is what fails: use the WebSocket.
        const generation = this.generation;
        void this.options.env.probe(this.urlFor('sse', false)).then(
          (result) => {
            if (generation !== this.generation || !this.running) return;
            if (result === 'auth') {
              this.options.onAuthRequired?.();
              return this.schedule(AUTH_RETRY_MS);
            }
            if (result === 'up') this.transport = 'ws';
            this.schedule(result === 'up' ? 0 : delay);
          },
          () => generation === this.generation && this.schedule(delay),
        );
        return;
      }
      // The WebSocket never opened either: the server is probably down; try SSE first again.
      this.transport = 'sse';
    }
    this.schedule(delay);
  }

  private schedule(ms: number): void {
    this.clear('retryTimer');
    this.retryTimer = this.options.env.setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, ms);
  }

  private armNotice(): void {
    if (this.noticeTimer !== undefined || this.state.disconnected) return;
    // "more than 8 seconds": the notice shows once 8 s have fully elapsed.
    this.noticeTimer = this.options.env.setTimeout(() => {
      this.noticeTimer = undefined;
      if (this.running && this.state.phase !== 'open') this.update({ disconnected: true });
    }, DISCONNECT_NOTICE_MS + 1);
  }

  private clear(which: 'noticeTimer' | 'retryTimer'): void {
    const handle = this[which];
    if (handle !== undefined) this.options.env.clearTimeout(handle);
    this[which] = undefined;
  }

  private update(patch: Partial<LiveStatus>): void {
    const next = { ...this.state, ...patch, lastEventId: this.lastEventId };
    const changed =
      next.phase !== this.state.phase || next.transport !== this.state.transport || next.disconnected !== this.state.disconnected;
    this.state = next;
    if (changed) this.options.onStatus?.(next);
  }
}

/** The real environment: EventSource, WebSocket, timers, and a health probe. */
export function browserEnv(base: string): LiveEnv {
  return {
    now: () => Date.now(),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    openSse(url, handlers) {
      const source = new EventSource(url);
      source.onopen = () => handlers.open();
      source.onmessage = (event: MessageEvent<string>) => handlers.message(event.data);
      source.onerror = () => handlers.error(source.readyState === EventSource.CONNECTING);
      return { close: () => source.close() };
    },
    openWs(url, handlers) {
      const socket = new WebSocket(url);
      socket.onopen = () => handlers.open();
      socket.onmessage = (event: MessageEvent) => handlers.message(String(event.data));
      socket.onclose = () => handlers.error(false);
      return {
        close() {
          socket.onclose = null;
          socket.onmessage = null;
          socket.close();
        },
      };
    },
    async probe(sseUrl) {
      try {
        await fetch(`${base}/api/health`, { cache: 'no-store' });
      } catch {
        return 'down';
      }
      // The status of the event channel itself (the answer's headers only; then it is closed).
      const controller = new AbortController();
      try {
        const response = await fetch(sseUrl, { headers: { accept: 'text/event-stream' }, cache: 'no-store', signal: controller.signal });
        controller.abort();
        if (response.status === 401 || response.status === 403) return 'auth';
      } catch {
        // refused on the way (a proxy, a filter): the WebSocket may still work
      }
      return 'up';
    },
  };
}
