// The live-connection state machine of the web UI (web/src/live.ts), with a fake clock and fake
// transports: SSE first, WebSocket only when SSE never opens, reconnect with the cursor, and the
// "disconnected" notice only after more than 8 s.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { LiveConnection, type ChannelHandlers, type LiveEnv, type LiveEvent, type LiveStatus } from '../../../web/src/live.ts';

interface FakeChannel {
  kind: 'sse' | 'ws';
  url: string;
  handlers: ChannelHandlers;
  closed: boolean;
  close(): void;
}

class FakeEnv implements LiveEnv {
  time = 0;
  reachable = true;
  auth = false;
  probes = 0;
  probedUrls: string[] = [];
  channels: FakeChannel[] = [];
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;

  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.timers.delete(id as number);
  };
  openSse = (url: string, handlers: ChannelHandlers) => this.open('sse', url, handlers);
  openWs = (url: string, handlers: ChannelHandlers) => this.open('ws', url, handlers);
  probe = async (url: string) => {
    this.probes++;
    this.probedUrls.push(url);
    if (!this.reachable) return 'down' as const;
    return this.auth ? ('auth' as const) : ('up' as const);
  };

  private open(kind: 'sse' | 'ws', url: string, handlers: ChannelHandlers): FakeChannel {
    const channel: FakeChannel = { kind, url, handlers, closed: false, close: () => (channel.closed = true) };
    this.channels.push(channel);
    return channel;
  }

  get last(): FakeChannel {
    return this.channels.at(-1)!;
  }

  /** Moves the clock, firing due timers in order (and letting promises settle between them). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
    }
    this.time = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

function setup(options: { token?: string } = {}) {
  const env = new FakeEnv();
  const events: LiveEvent[] = [];
  const statuses: LiveStatus[] = [];
  const auth = { required: 0 };
  const live = new LiveConnection({
    base: 'http://127.0.0.1:3457',
    env,
    token: () => options.token,
    onEvent: (e) => events.push(e),
    onStatus: (s) => statuses.push(s),
    onAuthRequired: () => auth.required++,
  });
  const frame = (seq: number, event = 'queue_update') => JSON.stringify({ eventId: `abc-${seq}`, topic: 'queue', event, pending: seq, active: false });
  return { env, live, events, statuses, frame, auth };
}

describe('live connection (web/src/live.ts)', () => {
  test('opens SSE first, without a cursor, and passes events on with their id', async () => {
    const { env, live, events, frame } = setup();
    live.start();
    assert.equal(env.channels.length, 1);
    assert.equal(env.last.kind, 'sse');
    assert.equal(env.last.url, 'http://127.0.0.1:3457/api/events');
    env.last.handlers.open();
    env.last.handlers.message(frame(1));
    env.last.handlers.message('not json');
    env.last.handlers.message(frame(2));
    assert.deepEqual(events.map((e) => e.eventId), ['abc-1', 'abc-2']);
    assert.equal(live.status.phase, 'open');
    assert.equal(live.status.lastEventId, 'abc-2');
    assert.equal(env.probes, 0);
  });

  test('a quick drop is silent: EventSource reconnects by itself and nothing is shown', async () => {
    const { env, live, statuses, frame } = setup();
    live.start();
    env.last.handlers.open();
    env.last.handlers.message(frame(7));
    env.last.handlers.error(true); // EventSource: CONNECTING again, it will resend Last-Event-ID
    assert.equal(live.status.phase, 'reconnecting');
    await env.advance(3000);
    assert.equal(env.channels.length, 1, 'no second channel: the EventSource retries itself');
    assert.equal(live.status.disconnected, false);
    env.last.handlers.open();
    await env.advance(20_000);
    assert.equal(live.status.phase, 'open');
    assert.ok(statuses.every((s) => !s.disconnected), 'the notice never showed');
  });

  test('a drop of more than 8 s shows the notice (not before), and reopening clears it', async () => {
    const { env, live } = setup();
    live.start();
    env.last.handlers.open();
    env.last.handlers.error(true);
    // the spec's figure, as a literal: the constant in web/src/live.ts is what is under test
    await env.advance(8000);
    assert.equal(live.status.disconnected, false, 'exactly 8 s is not "more than 8 s"');
    await env.advance(5);
    assert.equal(live.status.disconnected, true);
    env.last.handlers.open();
    assert.equal(live.status.disconnected, false);
    assert.equal(live.status.phase, 'open');
  });

  test('a dead SSE (closed after it worked) is reopened as SSE with ?lastEventId=', async () => {
    const { env, live, frame } = setup({ token: 's3cret' });
    live.start();
    const first = env.last;
    first.handlers.open();
    first.handlers.message(frame(41));
    first.handlers.error(false); // e.g. a 503 while the server shuts down: EventSource gives up
    assert.equal(first.closed, true);
    await env.advance(5000);
    const second = env.channels[1]!;
    assert.equal(second.kind, 'sse', 'SSE worked before: never the WebSocket');
    assert.equal(second.url, 'http://127.0.0.1:3457/api/events?lastEventId=abc-41&token=s3cret');
    assert.equal(env.probes, 0);
    // it keeps failing while the server is down: more SSE attempts, backing off
    second.handlers.error(false);
    await env.advance(10_000);
    assert.ok(env.channels.length >= 3);
    assert.ok(env.channels.every((c) => c.kind === 'sse'));
    assert.equal(live.status.disconnected, true);
    env.last.handlers.open();
    assert.equal(live.status.disconnected, false);
  });

  test('SSE that never opens on a server that answers: the WebSocket, with the cursor and token', async () => {
    const { env, live, events, frame } = setup({ token: 'tok' });
    live.start();
    env.last.handlers.error(false);
    await env.advance(0);
    assert.equal(env.probes, 1);
    assert.equal(env.last.kind, 'ws');
    assert.equal(env.last.url, 'ws://127.0.0.1:3457/ws?token=tok');
    env.last.handlers.open();
    assert.equal(live.status.transport, 'ws');
    env.last.handlers.message(frame(3));
    assert.equal(events.length, 1);
    // a WebSocket that drops is reopened as a WebSocket, from where it stopped
    env.last.handlers.error(false);
    await env.advance(3000);
    assert.equal(env.last.kind, 'ws');
    assert.equal(env.last.url, 'ws://127.0.0.1:3457/ws?lastEventId=abc-3&token=tok');
  });

  test('SSE refused for want of the token: ask for it, never fall back to the WebSocket', async () => {
    const { env, live, auth } = setup();
    env.auth = true;
    live.start();
    env.last.handlers.error(false);
    await env.advance(0);
    assert.equal(auth.required, 1);
    assert.equal(env.probedUrls[0], 'http://127.0.0.1:3457/api/events');
    await env.advance(30_000);
    assert.ok(env.channels.every((c) => c.kind === 'sse'));
  });

  test('SSE that never opens because the server is down: keeps trying SSE, notice after 8 s', async () => {
    const { env, live } = setup();
    env.reachable = false;
    live.start();
    // every attempt fails while the server is away
    for (let t = 0; t < 12; t++) {
      if (!env.last.closed) env.last.handlers.error(true);
      await env.advance(700);
    }
    assert.ok(env.channels.length > 3, 'it keeps trying');
    assert.ok(env.channels.every((c) => c.kind === 'sse'), 'no WebSocket while the server is simply down');
    assert.equal(live.status.disconnected, true, 'down since start for more than 8 s');
    env.reachable = true;
    await env.advance(2000);
    const open = env.channels.filter((c) => !c.closed);
    assert.equal(open.length, 1, 'one attempt at a time');
    open[0]!.handlers.open();
    assert.equal(live.status.disconnected, false);
    assert.equal(live.status.transport, 'sse');
  });

  test('reopening without a cursor (nothing had arrived) asks for a reload, like a replay gap', async () => {
    const { env, live, events, frame } = setup();
    live.start();
    env.last.handlers.open();
    assert.equal(events.length, 0, 'the first open is not a gap');
    env.last.handlers.error(true);
    env.last.handlers.open();
    assert.deepEqual(events.map((e) => [e.event, e.reason]), [['replay_gap', 'no_cursor']]);
    env.last.handlers.message(frame(1));
    env.last.handlers.error(true);
    env.last.handlers.open();
    assert.equal(events.length, 2, 'with a cursor the server replays: no reload');
  });

  test('events of a replaced channel are ignored; stop() ends everything', async () => {
    const { env, live, events, frame } = setup();
    live.start();
    const old = env.last;
    old.handlers.open();
    live.restart();
    assert.equal(old.closed, true);
    old.handlers.message(frame(99));
    assert.equal(events.length, 0);
    env.last.handlers.open();
    live.stop();
    assert.equal(env.last.closed, true);
    env.last.handlers.error(false);
    await env.advance(30_000);
    assert.equal(env.channels.length, 2);
    assert.equal(live.status.disconnected, false);
  });
});
