// Trace retention: the traces directory stays under `traces.maxBytes` and `traces.maxAgeDays`, the
// oldest traces going first. A trace still being written (its run in progress) and a pinned trace are
// never removed. A removed trace's run keeps its row: the routes tell "removed by retention" from
// "unknown" by that row outliving its file.
//
// What it keeps does not grow with the number of traces (a server runs for months; at the default 1 GiB
// the directory can hold hundreds of thousands): the count and bytes of all closed traces, updated as
// each one closes (one stat of that file), and a queue of the oldest removable traces a scan of the
// directory found, at most QUEUE of them: the next to go. Every trace outside the queue is at least as new
// as the queue's newest (`outsideFrom`): those the scan left out are newer, those closed since are newer
// still, so taking the queue's front is taking the oldest of all. A scan runs once the server listens,
// and again only when a pass has used the queue up and a bound still does not hold: about once per
// QUEUE traces removed, and never awaited by a run's end (it goes on after it).
import { readdir, rm, stat } from 'node:fs/promises';
import { traceFile, TRACE_ID_PATTERN } from '../../agent/traces.ts';
import type { TraceSettings } from './settings.ts';
import type { TracePinRepo } from './pins.repo.ts';

const DAY_MS = 86_400_000;
/** How often the age bound is checked when no trace is written (a server left idle for days). */
const AGE_CHECK_MS = 3_600_000;
/** Files stat'ed at once by a scan. */
const SCAN_BATCH = 64;
/** The oldest removable traces a scan remembers. */
const QUEUE = 1000;

export interface RetentionDeps {
  dir: string;
  settings: () => TraceSettings;
  pins: TracePinRepo;
  /** Whether the trace's run is still writing it. */
  inFlight: (traceId: string) => boolean;
  now?: () => number;
  /** How many of the oldest traces a scan remembers (QUEUE; tests make it small). */
  queueSize?: number;
}

/** What one pass removed. */
export interface PruneRecord {
  at: number;
  count: number;
  bytes: number;
}

export interface RetentionStats {
  /** Traces and their bytes, closed ones only (a trace being written is counted once its run ends). */
  count: number;
  bytes: number;
  pinned: number;
  /** False until the start-up scan has finished (the figures are then partial). */
  scanned: boolean;
  lastPrune: PruneRecord | null;
}

export interface TraceRecord {
  id: string;
  bytes: number;
  mtimeMs: number;
}

/** The pure choice: which traces (oldest first in `entries`) go so that both bounds hold. */
export function tracesToRemove(
  entries: Iterable<TraceRecord>,
  total: number,
  bounds: TraceSettings,
  now: number,
  keep: (traceId: string) => boolean,
): string[] {
  const cutoff = ageCutoff(bounds, now);
  const out: string[] = [];
  for (const entry of entries) {
    const over = bounds.maxBytes > 0 && total > bounds.maxBytes;
    if (!over && entry.mtimeMs >= cutoff) break;
    if (keep(entry.id)) continue;
    out.push(entry.id);
    total -= entry.bytes;
  }
  return out;
}

const ageCutoff = (bounds: TraceSettings, now: number) => (bounds.maxAgeDays > 0 ? now - bounds.maxAgeDays * DAY_MS : -Infinity);

export class TraceRetention {
  private count = 0;
  private total = 0;
  /** The oldest removable traces the last scan found (and traces unpinned since), oldest first. */
  private queue: TraceRecord[] = [];
  /** Every closed trace not in the queue was modified at this time or later. */
  private outsideFrom = -Infinity;
  /** While a scan runs: the traces closed meanwhile (the scan may or may not list them). */
  private closedDuringScan?: Map<string, TraceRecord>;
  private readonly pinned: Set<string>;
  private scanned = false;
  private lastPrune: PruneRecord | null = null;
  /** Passes run one after another: two ends close together never remove the same file twice. */
  private chain: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly queueSize: number;

  constructor(private readonly deps: RetentionDeps) {
    this.pinned = new Set(deps.pins.all());
    this.now = deps.now ?? Date.now;
    this.queueSize = deps.queueSize ?? QUEUE;
  }

  /** The first scan of the directory, then a pass; called once the server listens. */
  start(): Promise<PruneRecord | undefined> {
    this.timer ??= setInterval(() => void this.prune(), AGE_CHECK_MS).unref();
    return this.serially(async () => {
      await this.scan();
      this.scanned = true;
      return (await this.pass(true)).record;
    });
  }

  /**
   * A trace was closed: its size joins the total, and the bounds are applied. `previousBytes`: its run
   * appended to a trace that was closed before (a worker run started again), which had that size.
   */
  async ended(traceId: string, previousBytes?: number): Promise<void> {
    const facts = await stat(traceFile(this.deps.dir, traceId)).catch(() => undefined);
    if (!facts) return;
    if (previousBytes !== undefined) {
      this.total -= previousBytes;
      this.count--;
      this.queue = this.queue.filter((record) => record.id !== traceId);
    }
    const record = { id: traceId, bytes: facts.size, mtimeMs: facts.mtimeMs };
    this.total += record.bytes;
    this.count++;
    if (this.closedDuringScan) this.closedDuringScan.set(traceId, record);
    // (its last write was before the last scan began: it ran through that scan)
    else this.admitIfOlder(record);
    if (!this.scanned) return;
    // a run's end never lists the directory: when the queue is used up, the scan goes on after it
    // (a failed pass is logged by serially(); the run's end goes on)
    const { needsScan } = await this.serially(() => this.pass(false)).catch(() => ({ needsScan: false }));
    if (needsScan) void this.prune().catch(() => undefined);
  }

  /** Applies the bounds now (a setting lowered, the hourly age check), scanning the directory if it must. */
  async prune(): Promise<PruneRecord | undefined> {
    return this.scanned ? (await this.serially(() => this.pass(true))).record : undefined;
  }

  isPinned(traceId: string): boolean {
    return this.pinned.has(traceId);
  }

  pin(traceId: string): void {
    this.deps.pins.pin(traceId);
    this.pinned.add(traceId);
  }

  unpin(traceId: string): void {
    this.deps.pins.unpin(traceId);
    this.pinned.delete(traceId);
    void this.serially(async () => {
      const facts = await stat(traceFile(this.deps.dir, traceId)).catch(() => undefined);
      if (facts && !this.queue.some((record) => record.id === traceId)) this.admitIfOlder({ id: traceId, bytes: facts.size, mtimeMs: facts.mtimeMs });
    });
    void this.prune();
  }

  /** A trace outside the queue that is older than `outsideFrom` joins the queue where its age puts it. */
  private admitIfOlder(record: TraceRecord): void {
    if (record.mtimeMs >= this.outsideFrom) return;
    const at = this.queue.findIndex((queued) => queued.mtimeMs > record.mtimeMs);
    this.queue.splice(at === -1 ? this.queue.length : at, 0, record);
    if (this.queue.length > this.queueSize) this.outsideFrom = this.queue.pop()!.mtimeMs;
  }

  stats(): RetentionStats {
    return { count: this.count, bytes: this.total, pinned: this.pinned.size, scanned: this.scanned, lastPrune: this.lastPrune };
  }

  close(): void {
    clearInterval(this.timer);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch((err: unknown) => console.error('svc: trace retention failed:', err));
    return next;
  }

  /**
   * Removes what the bounds say must go, oldest first. `scan`: when the queue is used up and a bound may still
   * fail, scan the directory for the next oldest (else say that it needs one).
   */
  private async pass(scan: boolean): Promise<{ record?: PruneRecord; needsScan: boolean }> {
    const bounds = this.deps.settings();
    const now = this.now();
    const keep = (id: string) => this.pinned.has(id) || this.deps.inFlight(id);
    let removed = 0;
    let bytes = 0;
    for (;;) {
      const victims = new Set(tracesToRemove(this.queue, this.total, bounds, now, keep));
      if (victims.size) {
        const going = this.queue.filter((record) => victims.has(record.id));
        this.queue = this.queue.filter((record) => !victims.has(record.id));
        for (const record of going) {
          this.total -= record.bytes;
          this.count--;
          removed++;
          bytes += record.bytes;
          await rm(traceFile(this.deps.dir, record.id), { force: true });
        }
      }
      // the queue still has a trace it could remove: the bounds hold (the choice stops only then)
      if (this.queue.some((record) => !keep(record.id))) break;
      const overSize = bounds.maxBytes > 0 && this.total > bounds.maxBytes;
      const tooOldOutside = ageCutoff(bounds, now) > this.outsideFrom;
      if (!overSize && !tooOldOutside) break;
      if (!scan) return { ...this.record(removed, bytes, now), needsScan: true };
      // the queue is used up and a trace outside it may have to go: find the next oldest; each round
      // after a scan removes the whole queue it found or stops
      await this.scan();
      if (!this.queue.some((record) => !keep(record.id))) break;
    }
    return { ...this.record(removed, bytes, now), needsScan: false };
  }

  private record(count: number, bytes: number, at: number): { record?: PruneRecord } {
    if (count === 0) return {};
    this.lastPrune = { at, count, bytes };
    return { record: this.lastPrune };
  }

  /** Counts every closed trace in the directory again and queues the oldest removable ones. */
  private async scan(): Promise<void> {
    const startedAt = this.now();
    this.closedDuringScan = new Map();
    try {
      const found = await this.listClosed();
      const closedMeanwhile = [...this.closedDuringScan.values()];
      const listed = found.filter((record) => !this.closedDuringScan!.has(record.id));
      this.count = listed.length + closedMeanwhile.length;
      this.total = [...listed, ...closedMeanwhile].reduce((sum, record) => sum + record.bytes, 0);
      const removable = listed.filter((record) => !this.pinned.has(record.id));
      this.queue = removable.slice(0, this.queueSize);
      // those left out are newer than the queue; those closed since the scan began, newer than its start
      this.outsideFrom = Math.min(removable[this.queueSize]?.mtimeMs ?? Infinity, startedAt);
      for (const record of closedMeanwhile) if (!this.pinned.has(record.id)) this.admitIfOlder(record);
    } finally {
      this.closedDuringScan = undefined;
    }
  }

  /** Every closed trace in the directory, oldest first. */
  private async listClosed(): Promise<TraceRecord[]> {
    const ids = (await readdir(this.deps.dir).catch(() => [] as string[]))
      .filter((name) => name.endsWith('.ndjson'))
      .map((name) => name.slice(0, -'.ndjson'.length))
      .filter((id) => TRACE_ID_PATTERN.test(id) && !this.deps.inFlight(id));
    const out: TraceRecord[] = [];
    for (let i = 0; i < ids.length; i += SCAN_BATCH) {
      const batch = ids.slice(i, i + SCAN_BATCH);
      const facts = await Promise.all(batch.map((id) => stat(traceFile(this.deps.dir, id)).catch(() => undefined)));
      facts.forEach((f, j) => f && out.push({ id: batch[j]!, bytes: f.size, mtimeMs: f.mtimeMs }));
    }
    return out.sort((a, b) => a.mtimeMs - b.mtimeMs);
  }
}
