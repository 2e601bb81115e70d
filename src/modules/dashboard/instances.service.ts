// The manager's instances: the registry (started, scanned, added), their live state (a health loop,
// and the event bridge while they are online), and the lifecycle of the ones it owns.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, conflict, notFound } from '../../core/errors.ts';
import { homePaths } from '../../core/home.ts';
import { readServerLock } from '../../core/server-lock.ts';
import type { ServerTls } from '../../core/tls.ts';
import type { Instance, Latest } from '../../protocol/dashboard.ts';
import { EventBridge, type BridgeOptions, type RelayedEvent } from './bridge.ts';
import { callInstance, dispatchPrompt, probeHealth, readFacts, type InstanceFacts, type Target } from './instance-client.ts';
import type { InstanceRecord, InstancesRepo } from './instances.repo.ts';
import { freePort, isInstanceProcess, launchInstance, readMarker, stopMarked } from './lifecycle.ts';

export interface ScanRange {
  from: number;
  count: number;
}

/** Events the service reports (the manager publishes them on its stream). */
export interface InstanceEvents {
  status(instance: Instance, change: string): void;
  relayed(event: RelayedEvent): void;
  /** The event stream of an instance (re)connected: what it missed while down may need a look. */
  connected?(instanceId: string): void;
  activity(kind: string, ok: boolean, message: string, instanceId?: string): void;
}

/** What the manager's settings change while it runs (InstancesService.configure). */
export interface InstancesTuning {
  scan: ScanRange;
  /** Health loop period. */
  pollMs: number;
  /** A scan is reused this long, and the background scan runs this often: never a scan per request. */
  scanTtlMs: number;
  /** The longest wait between reconnects of an event stream. */
  maxBackoffMs: number;
}

export interface InstancesOptions {
  repo: InstancesRepo;
  events: InstanceEvents;
  /** Where homes of started instances go: <dir>/<id>. */
  instancesDir: string;
  /** How to run svc (`[node, bin/svc.js]`). */
  svcCommand: readonly string[];
  tuning: InstancesTuning;
  /** Per-port timeout of a scan (default 400 ms). */
  probeTimeoutMs?: number;
  bridge?: BridgeOptions;
  startTimeoutMs?: number;
  /** The manager's own certificate: the instances it starts serve HTTPS with it. */
  tls?: ServerTls;
  /** How instances on fleet machines are reached (the hub's tunnels), when the manager runs a fleet. */
  fleet?: FleetReach;
}

/** What the fleet's hub tells the manager about an instance on one of its machines. */
export interface FleetReach {
  /** How to reach it: its own URL on its machine, and a connection through the machine's tunnel. */
  target(r: InstanceRecord): Target;
  machineName(machineId: string): string | undefined;
}

interface Live {
  status: Instance['status'];
  reason?: string;
  facts: InstanceFacts | null;
  checkedAt: number | null;
  lastActivityAt: number | null;
  busy: boolean;
  pending: number;
}

/** Ports probed at once by a scan: bounded, so a scan of 50 ports is a handful of round trips. */
const SCAN_CONCURRENCY = 10;

const newId = () => `inst_${randomBytes(6).toString('hex')}`;
/** A scanned instance's id follows its home, so it keeps its id when it moves to another port. */
const idOfHome = (home: string) => `home_${createHash('sha256').update(home).digest('hex').slice(0, 12)}`;

/**
 * When, in a health period of `periodMs`, each of `count` instances is checked: evenly spread, the first at once. A
 * hub with hundreds of fleet instances checked them all in the same moment (two requests each through their
 * tunnels), which held up the events it relays by ~0.4 s every period (bench/fleet.ts).
 */
export function spreadChecks(count: number, periodMs: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.floor((i * periodMs) / count));
}

export class InstancesService {
  private readonly live = new Map<string, Live>();
  private readonly bridge: EventBridge;
  private timer: NodeJS.Timeout | null = null;
  /** The health loop's checks waiting for their moment in the period (spreadChecks). */
  private readonly spread = new Set<NodeJS.Timeout>();
  private scanning: Promise<void> | null = null;
  private lastScanAt = 0;
  private closed = false;
  private readonly checks = new Set<Promise<void>>();
  /** Instances with a lifecycle action under way: the health loop leaves them alone. */
  private readonly busyIds = new Set<string>();
  private tuning: InstancesTuning;
  private started = false;

  constructor(private readonly o: InstancesOptions) {
    this.tuning = { ...o.tuning, scan: { ...o.tuning.scan } };
    this.bridge = new EventBridge(
      {
        onEvent: (event) => this.onRelayed(event),
        onConnected: (id) => {
          void this.refresh(id);
          o.events.connected?.(id);
        },
        onDisconnected: (id) => void this.refresh(id),
      },
      { ...o.bridge, maxBackoffMs: o.tuning.maxBackoffMs },
    );
  }

  /** Re-adopts what it started, checks every instance once, scans, then keeps checking. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all(this.o.repo.list().map((r) => this.refresh(r.id)));
    void this.scan().catch(() => undefined);
    this.loop();
  }

  private loop(): void {
    if (this.timer) clearInterval(this.timer);
    this.clearSpread();
    this.timer = setInterval(() => {
      const records = this.o.repo.list();
      const offsets = spreadChecks(records.length, this.tuning.pollMs);
      records.forEach((r, i) => {
        if (!offsets[i]) return void this.refresh(r.id);
        const timer = setTimeout(() => {
          this.spread.delete(timer);
          void this.refresh(r.id);
        }, offsets[i]);
        timer.unref();
        this.spread.add(timer);
      });
      if (Date.now() - this.lastScanAt > this.tuning.scanTtlMs) void this.scan().catch(() => undefined);
    }, this.tuning.pollMs);
    this.timer.unref();
  }

  private clearSpread(): void {
    for (const timer of this.spread) clearTimeout(timer);
    this.spread.clear();
  }

  get scanRange(): ScanRange {
    return { ...this.tuning.scan };
  }

  /** Applies new settings at once: a new scan range is scanned now (instances found before stay registered). */
  configure(next: InstancesTuning): void {
    const previous = this.tuning;
    this.tuning = { ...next, scan: { ...next.scan } };
    this.bridge.setMaxBackoff(next.maxBackoffMs);
    if (!this.started || this.closed) return;
    if (next.pollMs !== previous.pollMs) this.loop();
    if (next.scan.from !== previous.scan.from || next.scan.count !== previous.scan.count) void this.rescan().catch(() => undefined);
  }

  /** A scan of the current range: after the one under way, which may have had the old range. */
  private rescan(): Promise<void> {
    const running = this.scanning;
    return running ? running.then(() => this.scan()) : this.scan();
  }

  /** Stops checking and subscribing; waits for checks under way (they read the database). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.clearSpread();
    this.bridge.close();
    await Promise.allSettled([...this.checks, this.scanning]);
  }

  list(): Instance[] {
    return this.o.repo.list().map((r) => this.view(r));
  }

  get(id: string): Instance {
    return this.view(this.record(id));
  }

  latest(id: string): Latest {
    this.record(id);
    return this.bridge.latest(id);
  }

  /** The URL and token the manager uses for an instance (the proxy, chat, memory). */
  target(id: string): Target & { id: string } {
    return this.targetOf(this.record(id));
  }

  /**
   * An instance the manager started on HTTPS is reached with its certificate pinned: the fingerprint its
   * lock file records (in the home the manager made), so one restarted with another certificate is still
   * recognised. Any other https instance is verified by its CA (NODE_EXTRA_CA_CERTS for a private one).
   */
  private targetOf(r: InstanceRecord): Target & { id: string } {
    if (r.origin === 'fleet') {
      if (!this.o.fleet) throw new AppError(502, 'INSTANCE_UNREACHABLE', `${r.label} runs on a fleet machine, and this dashboard runs without the fleet (start it with --fleet).`);
      return { id: r.id, ...this.o.fleet.target(r) };
    }
    const lock = r.origin === 'started' && r.home && r.url.startsWith('https:') ? readServerLock(homePaths(r.home).lock) : undefined;
    const pin = lock?.url === r.url ? lock.certFingerprint : undefined;
    return { id: r.id, url: r.url, token: r.token, ...(pin ? { pin } : {}) };
  }

  /** GET JSON from an instance's API, with its token. */
  read<T>(id: string, path: string): Promise<T> {
    return callInstance<T>(this.target(id), path);
  }

  /** Hands a prompt to an instance; resolves with its request id once the instance took it. */
  dispatch(id: string, prompt: string): Promise<{ requestId: string }> {
    return dispatchPrompt(this.target(id), prompt);
  }

  private record(id: string): InstanceRecord {
    const r = this.o.repo.get(id);
    if (!r) throw notFound('Instance', id);
    return r;
  }

  private view(r: InstanceRecord): Instance {
    const live = this.live.get(r.id);
    const facts = live?.facts ?? null;
    return {
      id: r.id,
      url: r.url,
      label: r.label,
      status: live?.status ?? 'offline',
      ...(live?.reason ? { reason: live.reason } : {}),
      version: facts?.version ?? null,
      uptimeMs: facts?.uptimeMs ?? null,
      provider: facts?.provider ?? null,
      model: facts?.model ?? null,
      workingDir: facts?.workingDir ?? null,
      busy: live?.busy ?? false,
      pending: live?.pending ?? 0,
      lastActivityAt: live?.lastActivityAt ?? null,
      owner: r.origin === 'started' ? 'manager' : 'external',
      origin: r.origin,
      home: r.home ?? facts?.home ?? null,
      pid: r.origin === 'started' ? r.pid : null,
      machine: r.machineId ? { id: r.machineId, name: this.o.fleet?.machineName(r.machineId) ?? r.machineId } : null,
      stream: this.bridge.state(r.id),
      checkedAt: live?.checkedAt ?? null,
    };
  }

  /** Checks one instance (runtime and session, with its token) and (un)subscribes its events. */
  refresh(id: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const check = this.check(id).finally(() => this.checks.delete(check));
    this.checks.add(check);
    return check;
  }

  private async check(id: string): Promise<void> {
    const r = this.o.repo.get(id);
    if (!r || this.busyIds.has(id)) return;
    const before = this.live.get(id);
    let next: Live;
    if (r.origin === 'started' && !this.ownsProcess(r)) {
      next = { ...this.blank(before), status: 'offline', reason: 'not running (start it again)' };
    } else {
      try {
        const facts = await readFacts(this.targetOf(r));
        next = { status: 'online', facts, checkedAt: Date.now(), lastActivityAt: before?.lastActivityAt ?? null, busy: facts.busy, pending: facts.pending };
      } catch (err) {
        next = { ...this.blank(before), status: (err as AppError).details?.upstreamStatus === 401 ? 'error' : 'offline', reason: (err as Error).message };
      }
    }
    // the manager may have closed, or the row gone (removed, stopped), while the check ran
    if (this.closed || !this.o.repo.get(id) || this.busyIds.has(id)) return;
    this.live.set(id, next);
    if (next.status === 'online') {
      if (r.origin === 'started' && next.facts && r.pid !== next.facts.pid) {
        // another process answers where ours should be: not ours, never treat it as ours
        this.live.set(id, { ...next, status: 'error', reason: `port taken by another process (pid ${next.facts.pid})` });
        this.bridge.unsubscribe(id);
      } else {
        const { id: _, ...target } = this.targetOf(r);
        this.bridge.subscribe(id, target);
        this.bridge.nudge(id);
      }
    } else if (next.status === 'error') {
      this.bridge.unsubscribe(id);
    }
    // a new reason is news too: offline because it stopped answering, then offline because its process is gone
    const now = this.live.get(id)!;
    if (before?.status !== now.status || before?.reason !== now.reason || before?.busy !== now.busy) this.o.events.status(this.view(r), before ? 'status' : 'appeared');
  }

  private blank(before: Live | undefined): Live {
    return { status: 'offline', facts: before?.facts ?? null, checkedAt: Date.now(), lastActivityAt: before?.lastActivityAt ?? null, busy: false, pending: 0 };
  }

  /**
   * Whether the process the manager started for this row still runs: the one its marker names, alive,
   * and still that instance (not another process that got its pid after it died).
   */
  private ownsProcess(r: InstanceRecord): boolean {
    if (!r.home || !r.pid) return false;
    const marker = readMarker(r.home);
    return !!marker && marker.instanceId === r.id && marker.pid === r.pid && isInstanceProcess(r.pid, r.home);
  }

  private onRelayed(event: RelayedEvent): void {
    const live = this.live.get(event.instanceId);
    if (live) {
      live.lastActivityAt = Date.now();
      const wasBusy = live.busy;
      if (event.name === 'agent_status') live.busy = event.data.status === 'running';
      if (event.name === 'queue_update') {
        // the instance's whole queue, not its active chat session's (`pending`; an older instance sends no total)
        live.pending = Number(event.data.total ?? event.data.pending ?? 0);
        live.busy = Boolean(event.data.active);
      }
      if (live.busy !== wasBusy) {
        const r = this.o.repo.get(event.instanceId);
        if (r) this.o.events.status(this.view(r), live.busy ? 'busy' : 'idle');
      }
    }
    this.o.events.relayed(event);
  }

  // ── discovery ───────────────────────────────────────────────────────────────────────────────

  /**
   * Scans the port range (bounded concurrency, one probe each); joins a scan already running. A range of
   * no ports (count 0, "no scan") is no scan: nothing probed, no activity, and `scannedAt` stays as it was.
   */
  scan(): Promise<void> {
    if (this.tuning.scan.count === 0) return this.scanning ?? Promise.resolve();
    this.scanning ??= this.runScan().finally(() => {
      this.scanning = null;
      this.lastScanAt = Date.now();
    });
    return this.scanning;
  }

  get scannedAt(): number | null {
    return this.lastScanAt || null;
  }

  private async runScan(): Promise<void> {
    const { from, count } = this.tuning.scan;
    const ports = Array.from({ length: count }, (_, i) => from + i);
    const known = new Set(this.o.repo.list().map((r) => r.url));
    let found = 0;
    const worker = async () => {
      for (let port = ports.shift(); port !== undefined && !this.closed; port = ports.shift()) {
        const url = `http://127.0.0.1:${port}`;
        if (known.has(url)) continue;
        if (!(await probeHealth(url, this.o.probeTimeoutMs ?? 400))) continue;
        if (await this.adoptScanned(url)) found++;
      }
    };
    await Promise.all(Array.from({ length: SCAN_CONCURRENCY }, worker));
    if (this.closed) return;
    this.o.events.activity('scan', true, `scanned ports ${from}-${from + count - 1}: ${found} new instance(s)`);
  }

  /** A local instance found by the scan: its token is asked of it the way `svc token` does (loopback only). */
  private async adoptScanned(url: string): Promise<boolean> {
    try {
      const { token } = await callInstance<{ token: string }>({ url, token: null }, '/api/auth/token', { timeoutMs: 2000 });
      const facts = await readFacts({ url, token });
      if (this.closed) return false;
      const id = idOfHome(facts.home);
      const existing = this.o.repo.get(id);
      if (existing?.origin === 'started') return false;
      this.o.repo.save({ id, url, label: existing?.label ?? `:${new URL(url).port}`, origin: 'scanned', token, home: facts.home, pid: null, createdAt: existing?.createdAt ?? Date.now(), machineId: null });
      await this.refresh(id);
      return !existing;
    } catch {
      return false;
    }
  }

  /** Adds an instance by URL and token (a remote one, or a local one outside the scan range). */
  async add(input: { url: string; token?: string; label?: string }): Promise<Instance> {
    const url = new URL(input.url).origin;
    if (this.o.repo.byUrl(url)) throw conflict('INSTANCE_EXISTS', `${url} is already registered; remove it first to add it again.`);
    const token = input.token ?? null;
    // the token is checked now: a wrong one is a 4xx here, not an error row later
    await readFacts({ url, token }).catch((err: Error) => {
      throw new AppError(400, 'INSTANCE_UNREACHABLE', `Could not read ${url} with this token: ${err.message}`);
    });
    const id = newId();
    this.o.repo.save({ id, url, label: input.label ?? new URL(url).host, origin: 'added', token, home: null, pid: null, createdAt: Date.now(), machineId: null });
    await this.refresh(id);
    return this.get(id);
  }

  /** Forgets an instance (it keeps running); one the manager runs must be stopped first. */
  remove(id: string): void {
    const r = this.record(id);
    if (r.origin === 'started' && this.ownsProcess(r)) throw conflict('INSTANCE_BUSY', `Instance ${id} is running; stop it before removing it.`);
    if (r.origin === 'fleet') throw conflict('INSTANCE_NOT_OWNED', `${r.label} runs on fleet machine ${r.machineId}: it is listed while that machine is; revoke the machine to remove it.`);
    this.forget(r);
    this.o.events.activity('remove', true, `removed ${r.label}`, id);
  }

  private forget(r: InstanceRecord): void {
    this.bridge.unsubscribe(r.id);
    this.live.delete(r.id);
    this.o.repo.remove(r.id);
  }

  // ── instances on fleet machines ─────────────────────────────────────────────────────────────

  /**
   * A fleet machine's instances, as its heartbeat lists them: new ones are registered (with the token the machine
   * gave the hub), changed ones updated, and the ones it no longer runs forgotten. Each is checked at once.
   */
  async adoptFleetInstances(machineId: string, records: readonly Omit<InstanceRecord, 'origin' | 'home' | 'pid' | 'machineId'>[]): Promise<void> {
    if (this.closed) return;
    const kept = new Set(records.map((r) => r.id));
    for (const old of this.o.repo.ofMachine(machineId)) if (!kept.has(old.id)) this.forget(old);
    for (const r of records) {
      const existing = this.o.repo.get(r.id);
      const next: InstanceRecord = { ...r, origin: 'fleet', home: null, pid: null, machineId, createdAt: existing?.createdAt ?? r.createdAt };
      if (!existing || existing.url !== next.url || existing.label !== next.label || existing.token !== next.token) this.o.repo.save(next);
    }
    await Promise.all(records.map((r) => this.refresh(r.id)));
  }

  /** The registry's rows of a fleet machine's instances. */
  fleetRecords(machineId: string): InstanceRecord[] {
    return this.o.repo.ofMachine(machineId);
  }

  /** A fleet machine's instances, checked again now (its machine came or went). */
  refreshMachine(machineId: string): Promise<void> {
    return Promise.all(this.o.repo.ofMachine(machineId).map((r) => this.refresh(r.id))).then(() => undefined);
  }

  /** Forgets a revoked machine's instances. */
  forgetMachine(machineId: string): void {
    for (const r of this.o.repo.ofMachine(machineId)) {
      this.forget(r);
      this.o.events.activity('remove', true, `removed ${r.label} (its machine was revoked)`, r.id);
    }
  }

  // ── lifecycle of owned instances ────────────────────────────────────────────────────────────

  /** Starts a new instance in its own home (default <manager home>/instances/<id>) on a free port. */
  async create(input: { label?: string; home?: string }): Promise<Instance> {
    const id = newId();
    const home = input.home ?? join(this.o.instancesDir, id);
    return this.launch({ id, url: '', label: input.label ?? id, origin: 'started', token: null, home, pid: null, createdAt: Date.now(), machineId: null }, 'start');
  }

  async startAgain(id: string): Promise<Instance> {
    const r = this.owned(id);
    if (this.ownsProcess(r)) return this.get(id);
    return this.launch(r, 'start');
  }

  async stop(id: string): Promise<Instance> {
    const r = this.owned(id);
    return this.withLock(id, async () => {
      this.bridge.unsubscribe(id);
      if (this.ownsProcess(r)) await stopMarked(r.home!);
      this.o.repo.save({ ...r, pid: null });
      this.live.set(id, { ...this.blank(this.live.get(id)), reason: 'stopped' });
      this.o.events.activity('stop', true, `stopped ${r.label}`, id);
      this.o.events.status(this.get(id), 'stopped');
      return this.get(id);
    });
  }

  async restart(id: string): Promise<Instance> {
    await this.stop(id);
    return this.launch(this.owned(id), 'restart');
  }

  private owned(id: string): InstanceRecord {
    const r = this.record(id);
    if (r.origin !== 'started') throw conflict('INSTANCE_NOT_OWNED', `Instance ${id} was not started by this manager; it only stops instances it started.`);
    return r;
  }

  private async withLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    if (this.busyIds.has(id)) throw conflict('INSTANCE_BUSY', `A start or stop of instance ${id} is under way; try again when it ends.`);
    this.busyIds.add(id);
    try {
      return await fn();
    } finally {
      this.busyIds.delete(id);
    }
  }

  private async launch(r: InstanceRecord, action: 'start' | 'restart'): Promise<Instance> {
    await this.withLock(r.id, async () => {
      // the same port again when it is free: its URL (and bookmarks of it) stay valid
      const previous = r.url ? Number(new URL(r.url).port) : 0;
      const port = previous && !(await probeHealth(r.url, 300)) ? previous : await freePort();
      try {
        const launched = await launchInstance({ instanceId: r.id, home: r.home!, port, command: this.o.svcCommand, timeoutMs: this.o.startTimeoutMs, tls: this.o.tls });
        this.o.repo.save({ ...r, url: launched.url, token: launched.token, pid: launched.pid });
      } catch (err) {
        this.o.events.activity(action, false, (err as Error).message, r.id);
        throw err;
      }
    });
    await this.refresh(r.id);
    this.o.events.activity(action, true, `${action === 'start' ? 'started' : 'restarted'} ${r.label}`, r.id);
    return this.get(r.id);
  }
}
