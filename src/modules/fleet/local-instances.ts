// The instances of a joined machine, as its member (member.ts) offers them to the hub: the svc serve that holds the
// membership, and every other svc serve of this machine on loopback, found the way the dashboard finds local ones (a
// scan of a port range, the setting `fleet.scan`; each one's token asked of it from loopback, as `svc token` does).
// A sibling that holds a membership of its own is a machine of its own and is left out; so is one served over HTTPS
// (its tunnel would need a TLS client to loopback), which the docs say. The hub reaches a sibling through the
// member's tunnels, piped to its loopback port, and its events through the member's outboxes, read from its
// GET /api/events here and resumed with Last-Event-ID after any break.
import { connect as tcpConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { MachineInstance } from '../../protocol/fleet.ts';
import type { Sink } from '../../events/stream.ts';
import { callInstance, openReader, probeHealth, type Reader, type Target } from '../dashboard/index.ts';
import type { EventOutbox } from './event-outbox.ts';
import { instanceKey } from './member.ts';

/** How often the port range is scanned again. */
export const SIBLING_SCAN_MS = 10_000;
/**
 * Scans in a row a sibling may miss before it leaves the list: one slow answer (a busy machine, a laptop waking up,
 * a process paused in a debugger) must not take it off the dashboard and end its event stream.
 */
export const MISSED_SCANS_TO_LEAVE = 3;
/** Ports probed at once, each given this long. */
const SCAN_CONCURRENCY = 8;
const PROBE_TIMEOUT_MS = 400;
/** A sibling's events: the reader's reconnect delay, doubling up to the cap. */
const EVENTS_BACKOFF_MS = 250;
const EVENTS_BACKOFF_MAX_MS = 10_000;

export interface OwnInstance {
  home: string;
  url: () => string;
  token: string;
  version: string;
  provider: () => string | null;
  busy: () => boolean;
  /** Hands a tunnel to its own HTTP server. */
  accept: (connection: Duplex) => void;
  /** Attaches a sink to its event stream from its oldest event; returns how to detach it. */
  events: (sink: Sink) => () => void;
}

interface Sibling extends MachineInstance {
  token: string;
  port: number;
}

/** A sibling as the list keeps it: with the scans it has missed in a row since it last answered. */
export interface ListedSibling extends Sibling {
  missed: number;
}

/**
 * The list after a scan: what answered, and what answered before and missed fewer than MISSED_SCANS_TO_LEAVE scans
 * in a row, unless another instance answers on its port now (it is gone for sure).
 */
export function afterScan(before: ReadonlyMap<string, ListedSibling>, found: ReadonlyMap<string, Sibling>): Map<string, ListedSibling> {
  const next = new Map<string, ListedSibling>();
  for (const [key, sibling] of found) next.set(key, { ...sibling, missed: 0 });
  const takenPorts = new Set([...found.values()].map((s) => s.port));
  for (const [key, sibling] of before) {
    if (next.has(key) || takenPorts.has(sibling.port) || sibling.missed + 1 >= MISSED_SCANS_TO_LEAVE) continue;
    next.set(key, { ...sibling, missed: sibling.missed + 1 });
  }
  return next;
}

export interface LocalInstancesOptions {
  own: OwnInstance;
  /** The loopback ports its siblings are looked for on (`fleet.scan`). */
  scan: () => { from: number; count: number };
  scanMs?: number;
}

export class LocalInstances {
  readonly ownKey: string;
  private siblings = new Map<string, ListedSibling>();
  private timer?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  private closed = false;

  constructor(private readonly o: LocalInstancesOptions) {
    this.ownKey = instanceKey(o.own.home);
  }

  start(): Promise<void> {
    this.timer = setInterval(() => void this.scan(), this.o.scanMs ?? SIBLING_SCAN_MS);
    this.timer.unref();
    return this.scan();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  list(): MachineInstance[] {
    const { own } = this.o;
    const mine = { key: this.ownKey, url: own.url(), version: own.version, provider: own.provider(), busy: own.busy() };
    return [mine, ...[...this.siblings.values()].map(({ key, url, version, provider, busy }) => ({ key, url, version, provider, busy }))];
  }

  token(key: string): string | undefined {
    return key === this.ownKey ? this.o.own.token : this.siblings.get(key)?.token;
  }

  /** A tunnel to one of them: its own server takes it, a sibling's loopback port is piped to it. */
  accept(key: string, connection: Duplex): void {
    if (key === this.ownKey) return this.o.own.accept(connection);
    const sibling = this.siblings.get(key);
    if (!sibling) return void connection.destroy(new Error(`no instance ${key} on this machine`));
    const socket = tcpConnect(sibling.port, '127.0.0.1');
    const end = () => {
      socket.destroy();
      connection.destroy();
    };
    socket.on('error', end).on('close', end);
    connection.on('error', end).on('close', end);
    connection.pipe(socket).pipe(connection);
  }

  /** One instance's events into `outbox`, from the oldest it still has; returns how to stop. */
  events(key: string, outbox: EventOutbox): () => void {
    if (key === this.ownKey) return this.o.own.events(outbox);
    return this.followSibling(key, outbox);
  }

  /** Reads a sibling's GET /api/events into `sink`, again from the last event taken after any break. */
  private followSibling(key: string, outbox: EventOutbox): () => void {
    let reader: Reader | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let failures = 0;
    // an id of no stream of its: the instance answers with a replay_gap, then everything its ring holds
    let cursor = '0-0';
    const open = () => {
      const sibling = this.siblings.get(key);
      if (stopped) return;
      if (!sibling) return retry();
      const target: Target = { url: sibling.url, token: sibling.token };
      reader = openReader(target, cursor, {
        onOpen: () => void (failures = 0),
        onFrame: (frame) => {
          if (!frame.id) return;
          cursor = frame.id;
          outbox.send({ id: frame.id, json: JSON.stringify(frame.data) });
        },
        onEnd: () => retry(),
      });
    };
    const retry = () => {
      if (stopped) return;
      timer = setTimeout(open, Math.min(EVENTS_BACKOFF_MAX_MS, EVENTS_BACKOFF_MS * 2 ** failures++));
      timer.unref();
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      reader?.close();
    };
  }

  /** Scans the range once (joining a scan under way): what answers as a plain svc serve is a sibling. */
  private scan(): Promise<void> {
    this.scanning ??= this.runScan().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async runScan(): Promise<void> {
    const { from, count } = this.o.scan();
    const ports = Array.from({ length: count }, (_, i) => from + i);
    const found = new Map<string, Sibling>();
    const worker = async () => {
      for (let port = ports.shift(); port !== undefined && !this.closed; port = ports.shift()) {
        const sibling = await this.probe(port);
        if (sibling) found.set(sibling.key, sibling);
      }
    };
    await Promise.all(Array.from({ length: SCAN_CONCURRENCY }, worker));
    if (!this.closed) this.siblings = afterScan(this.siblings, found);
  }

  private async probe(port: number): Promise<Sibling | undefined> {
    const url = `http://127.0.0.1:${port}`;
    if (!(await probeHealth(url, PROBE_TIMEOUT_MS))) return undefined;
    try {
      // the token it gave before (a new instance on the port refuses it, and is asked again at the next scan)
      const known = [...this.siblings.values()].find((s) => s.port === port);
      const token = known?.token ?? (await callInstance<{ token: string }>({ url, token: null }, '/api/auth/token', { timeoutMs: 2_000 })).token;
      const target = { url, token };
      const [runtime, session] = await Promise.all([
        callInstance<{ version: string; home: string; fleet: unknown; agent: { busy: boolean } }>(target, '/api/runtime', { timeoutMs: 2_000 }),
        callInstance<{ provider: string }>(target, '/api/session', { timeoutMs: 2_000 }),
      ]);
      const key = instanceKey(runtime.home);
      // itself, or a machine of its own
      if (key === this.ownKey || runtime.fleet) return undefined;
      return { key, url, port, token, version: runtime.version, provider: session.provider || null, busy: runtime.agent.busy };
    } catch {
      return undefined;
    }
  }
}
