// Trace retention: the traces directory stays under `traces.maxBytes` and `traces.maxAgeDays`, the
// oldest traces going first. The directory is scanned once, after the server listens; from then on a
// running total kept here is updated as each trace is closed (one stat of that file), so a run's end
// never lists the directory. A trace still being written (its run in progress) and a pinned trace are
// never removed. A removed trace's run keeps its row: the routes tell "removed by retention" from
// "unknown" by that row outliving its file.
import { readdir, rm, stat } from 'node:fs/promises';
import { traceFile, TRACE_ID_PATTERN } from '../../agent/traces.ts';
import type { TraceSettings } from './settings.ts';
import type { TracePinRepo } from './pins.repo.ts';

const DAY_MS = 86_400_000;
/** How often the age bound is checked when no trace is written (a server left idle for days). */
const AGE_CHECK_MS = 3_600_000;
/** Files stat'ed at once by the start-up scan. */
const SCAN_BATCH = 64;

export interface RetentionDeps {
  dir: string;
  settings: () => TraceSettings;
  pins: TracePinRepo;
  /** Whether the trace's run is still writing it. */
  inFlight: (traceId: string) => boolean;
  now?: () => number;
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

interface Entry {
  bytes: number;
  mtimeMs: number;
}

/** The pure choice: which traces (oldest first in `entries`) go so that both bounds hold. */
export function tracesToRemove(
  entries: Iterable<[string, Entry]>,
  total: number,
  bounds: TraceSettings,
  now: number,
  keep: (traceId: string) => boolean,
): string[] {
  const cutoff = bounds.maxAgeDays > 0 ? now - bounds.maxAgeDays * DAY_MS : -Infinity;
  const out: string[] = [];
  for (const [id, entry] of entries) {
    const over = bounds.maxBytes > 0 && total > bounds.maxBytes;
    if (!over && entry.mtimeMs >= cutoff) break;
    if (keep(id)) continue;
    out.push(id);
    total -= entry.bytes;
  }
  return out;
}

export class TraceRetention {
  /** Closed traces, oldest first (Map order: the scan's, sorted by mtime, then each end appended). */
  private entries = new Map<string, Entry>();
  private total = 0;
  private readonly pinned: Set<string>;
  private scanned = false;
  private lastPrune: PruneRecord | null = null;
  /** Passes run one after another: two ends close together never remove the same file twice. */
  private chain: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly deps: RetentionDeps) {
    this.pinned = new Set(deps.pins.all());
    this.now = deps.now ?? Date.now;
  }

  /** The one scan of the directory, then a pass; called once the server listens. */
  start(): Promise<PruneRecord | undefined> {
    this.timer ??= setInterval(() => void this.prune(), AGE_CHECK_MS).unref();
    return this.serially(async () => {
      const found = await this.scan();
      // traces closed while the scan ran are newer than any it found: they stay last
      const later = this.entries;
      this.entries = new Map([...found.filter(([id]) => !later.has(id)), ...later]);
      this.total = [...this.entries.values()].reduce((sum, e) => sum + e.bytes, 0);
      this.scanned = true;
      return this.pass();
    });
  }

  /** A trace was closed: its size joins the total, and the bounds are applied. */
  async ended(traceId: string): Promise<void> {
    const facts = await stat(traceFile(this.deps.dir, traceId)).catch(() => undefined);
    if (!facts) return;
    this.total -= this.entries.get(traceId)?.bytes ?? 0;
    this.entries.delete(traceId);
    this.entries.set(traceId, { bytes: facts.size, mtimeMs: facts.mtimeMs });
    this.total += facts.size;
    // a failed pass is logged by serially(); the run's end goes on
    if (this.scanned) await this.prune().catch(() => undefined);
  }

  /** Applies the bounds now (a setting lowered, the hourly age check). */
  prune(): Promise<PruneRecord | undefined> {
    return this.scanned ? this.serially(() => this.pass()) : Promise.resolve(undefined);
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
    void this.prune();
  }

  stats(): RetentionStats {
    return { count: this.entries.size, bytes: this.total, pinned: this.pinned.size, scanned: this.scanned, lastPrune: this.lastPrune };
  }

  close(): void {
    clearInterval(this.timer);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work);
    this.chain = next.catch((err: unknown) => console.error('svc: trace retention failed:', err));
    return next;
  }

  private async pass(): Promise<PruneRecord | undefined> {
    const victims = tracesToRemove(this.entries, this.total, this.deps.settings(), this.now(), (id) => this.pinned.has(id) || this.deps.inFlight(id));
    if (!victims.length) return undefined;
    let bytes = 0;
    for (const id of victims) {
      const entry = this.entries.get(id)!;
      this.entries.delete(id);
      this.total -= entry.bytes;
      bytes += entry.bytes;
      await rm(traceFile(this.deps.dir, id), { force: true });
    }
    this.lastPrune = { at: this.now(), count: victims.length, bytes };
    return this.lastPrune;
  }

  /** Every closed trace in the directory, oldest first. */
  private async scan(): Promise<[string, Entry][]> {
    const ids = (await readdir(this.deps.dir).catch(() => [] as string[]))
      .filter((name) => name.endsWith('.ndjson'))
      .map((name) => name.slice(0, -'.ndjson'.length))
      .filter((id) => TRACE_ID_PATTERN.test(id) && !this.deps.inFlight(id));
    const out: [string, Entry][] = [];
    for (let i = 0; i < ids.length; i += SCAN_BATCH) {
      const batch = ids.slice(i, i + SCAN_BATCH);
      const facts = await Promise.all(batch.map((id) => stat(traceFile(this.deps.dir, id)).catch(() => undefined)));
      facts.forEach((f, j) => f && out.push([batch[j]!, { bytes: f.size, mtimeMs: f.mtimeMs }]));
    }
    return out.sort((a, b) => a[1].mtimeMs - b[1].mtimeMs);
  }
}
