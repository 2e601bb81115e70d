// What each provider's usage limits look like, from what can be read locally and quickly, and
// "unknown" whenever nothing trustworthy is at hand. Never blocks long: every source has a small
// time budget and file reads are bounded in size.
//
// Sources:
// - Codex records the account's rate-limit windows (from its API's response headers) in the
//   `token_count` events of its session rollouts, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`.
//   Checked with codex 0.169.0 against a fake API sending `x-codex-primary-used-percent` & co:
//     {"timestamp":"…","ordinal":12,"type":"event_msg","payload":{"type":"token_count","info":{…},
//      "rate_limits":{"limit_id":"codex","limit_name":null,
//        "primary":{"used_percent":42.5,"window_minutes":300,"resets_at":1795287968},
//        "secondary":{"used_percent":77.0,"window_minutes":10080,"resets_at":1795370768},
//        "credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,
//        "rate_limit_reached_type":null}}}
//   Without those headers (API-key use) primary/secondary are null; older versions wrote
//   `resets_in_seconds` (relative to the line's timestamp) instead of `resets_at` (epoch seconds).
//   A run that fails with HTTP 429 writes no rate-limit event at all. Only the tail of the newest
//   rollout files is read: the last complete snapshot is what counts.
// - Claude Code and the others keep nothing reliable on disk: the runner reports rate limits it
//   sees through observe(), and a later successful run clears them.
import { constants as fsConstants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderId } from './providers/registry.ts';
import { PROVIDER_IDS } from './providers/registry.ts';

export interface QuotaWindow {
  /** `5h`, `7d`, … from the window length; the slot name (`primary`) when the length is unknown. */
  name: string;
  usedPercent: number;
  /** Epoch ms, or null when not reported. */
  resetsAt: number | null;
  windowMinutes?: number;
}

export interface QuotaInfo {
  status: 'ok' | 'limited' | 'unknown';
  source: 'codex-rollout' | 'observed' | 'none';
  windows?: QuotaWindow[];
  /** Epoch ms of the last rate limit the runner observed. */
  lastLimitedAt?: number;
  /** Epoch ms when an observed limit ends, when the provider said so. */
  resetsAt?: number;
  message?: string;
  /** Epoch ms of the data shown (the rollout line, the observation). */
  updatedAt?: number;
}

export type QuotaObservation =
  /** A run failed with a rate limit. `resetsAt` in epoch ms (epoch seconds are accepted too). */
  | { kind: 'rate_limit'; at: number; resetsAt?: number; message: string }
  /** A run succeeded: whatever limit was observed before is over. */
  | { kind: 'ok'; at: number };

export const CODEX_TAIL_BYTES = 256 * 1024;
export const SOURCE_BUDGET_MS = 200;
/** How long an observed limit without a reset time counts as current. */
export const LIMIT_HOLD_MS = 5 * 60_000;
/** How many of the newest rollout files are tried (the newest may hold no snapshot yet). */
const MAX_ROLLOUT_FILES = 3;
/** How many day directories are looked at, and files per day stat'ed. */
const MAX_DAY_DIRS = 7;
const MAX_FILES_PER_DAY = 50;
const MAX_MESSAGE_CHARS = 500;

// ---------------------------------------------------------------------------------------------
// Codex rollout parsing (pure)

export interface CodexRateLimitSnapshot {
  /** Epoch ms of the line (null when it has no valid timestamp). */
  at: number | null;
  windows: QuotaWindow[];
  reachedType?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Epoch seconds or ms → ms. */
export function toEpochMs(value: number): number {
  return value < 1e12 ? value * 1000 : value;
}

/** `300` → `5h`, `10080` → `7d`, `45` → `45m`. */
export function windowName(minutes: number): string {
  if (minutes >= 1440 * 0.99) return `${Math.round(minutes / 1440)}d`;
  if (minutes >= 59) return `${Math.round(minutes / 60)}h`;
  return `${Math.round(minutes)}m`;
}

function windowFrom(slot: string, raw: unknown, lineAt: number | null): QuotaWindow | null {
  if (!isObject(raw)) return null;
  const used = finite(raw['used_percent']);
  if (used === undefined) return null;
  const minutes = finite(raw['window_minutes']);
  const resetsAtRaw = finite(raw['resets_at']);
  const resetsIn = finite(raw['resets_in_seconds']);
  let resetsAt: number | null = null;
  if (resetsAtRaw !== undefined) resetsAt = toEpochMs(resetsAtRaw);
  else if (resetsIn !== undefined && lineAt !== null) resetsAt = lineAt + resetsIn * 1000;
  return {
    name: minutes !== undefined && minutes > 0 ? windowName(minutes) : slot,
    usedPercent: used,
    resetsAt,
    ...(minutes !== undefined ? { windowMinutes: minutes } : {}),
  };
}

/** The rate-limit snapshot of one rollout line, or null when the line carries none. */
export function codexSnapshotFromLine(line: unknown): CodexRateLimitSnapshot | null {
  if (!isObject(line) || line['type'] !== 'event_msg') return null;
  const payload = line['payload'];
  if (!isObject(payload) || payload['type'] !== 'token_count') return null;
  const limits = payload['rate_limits'];
  if (!isObject(limits)) return null;
  const parsedAt = typeof line['timestamp'] === 'string' ? Date.parse(line['timestamp']) : NaN;
  const at = Number.isFinite(parsedAt) ? parsedAt : null;
  const windows = (['primary', 'secondary'] as const)
    .map((slot) => windowFrom(slot, limits[slot], at))
    .filter((w): w is QuotaWindow => w !== null);
  if (windows.length === 0) return null;
  const reached = limits['rate_limit_reached_type'];
  return { at, windows, ...(typeof reached === 'string' && reached ? { reachedType: reached } : {}) };
}

/**
 * The last rate-limit snapshot in a chunk of rollout text. Lines that are not JSON (a line cut by
 * a concurrent append, the partial first line of a tail) are skipped.
 */
export function parseCodexRateLimits(text: string, opts: { skipFirstLine?: boolean } = {}): CodexRateLimitSnapshot | null {
  const lines = text.split('\n');
  const first = opts.skipFirstLine ? 1 : 0;
  for (let i = lines.length - 1; i >= first; i--) {
    const line = lines[i]!;
    if (!line.includes('"token_count"') || !line.includes('"rate_limits"')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const snapshot = codexSnapshotFromLine(parsed);
    if (snapshot) return snapshot;
  }
  return null;
}

/** What a codex snapshot means at `now`: windows that have reset since are dropped. */
export function codexQuotaInfo(snapshot: CodexRateLimitSnapshot, now: number): QuotaInfo {
  const current = snapshot.windows.filter((w) => w.resetsAt === null || w.resetsAt > now);
  const updatedAt = snapshot.at ?? undefined;
  if (current.length === 0) {
    return {
      status: 'unknown',
      source: 'codex-rollout',
      message: 'the limits codex last recorded have reset since; run codex to refresh them',
      ...(updatedAt !== undefined ? { updatedAt } : {}),
    };
  }
  const limited = current.some((w) => w.usedPercent >= 100) || snapshot.reachedType !== undefined;
  return {
    status: limited ? 'limited' : 'ok',
    source: 'codex-rollout',
    windows: current,
    ...(snapshot.reachedType ? { message: `codex reports: ${snapshot.reachedType}` } : {}),
    ...(updatedAt !== undefined ? { updatedAt } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Bounded file access

export interface TailRead {
  text: string;
  /** True when the file is longer than what was read (the first line is then partial). */
  truncated: boolean;
}

/** The last `maxBytes` of a regular file (opened non-blocking: a FIFO in its place cannot hang us). */
export async function readTail(path: string, maxBytes: number): Promise<TailRead> {
  const flags = process.platform === 'win32' ? fsConstants.O_RDONLY : fsConstants.O_RDONLY | fsConstants.O_NONBLOCK;
  const handle = await open(path, flags);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { text: '', truncated: false };
    const start = Math.max(0, info.size - maxBytes);
    const length = info.size - start;
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { text: buffer.subarray(0, read).toString('utf8'), truncated: start > 0 };
  } finally {
    await handle.close();
  }
}

export interface QuotaFs {
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ isFile(): boolean; mtimeMs: number }>;
  readTail(path: string, maxBytes: number): Promise<TailRead>;
}

export const realQuotaFs: QuotaFs = { readdir: (p) => readdir(p), stat: (p) => stat(p), readTail };

async function listDesc(fs: QuotaFs, dir: string, pattern: RegExp): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter((n) => pattern.test(n)).sort().reverse();
  } catch {
    return [];
  }
}

/** The newest rollout files (by modification time) among the most recent day directories. */
export async function newestRollouts(fs: QuotaFs, sessionsDir: string, max = MAX_ROLLOUT_FILES): Promise<string[]> {
  const found: { path: string; mtimeMs: number }[] = [];
  let days = 0;
  outer: for (const year of await listDesc(fs, sessionsDir, /^\d{4}$/)) {
    for (const month of await listDesc(fs, join(sessionsDir, year), /^\d{2}$/)) {
      for (const day of await listDesc(fs, join(sessionsDir, year, month), /^\d{2}$/)) {
        const dir = join(sessionsDir, year, month, day);
        const names = (await listDesc(fs, dir, /^rollout-.*\.jsonl$/)).slice(0, MAX_FILES_PER_DAY);
        const stats = await Promise.all(
          names.map(async (name) => {
            const path = join(dir, name);
            const info = await fs.stat(path).catch(() => null);
            return info?.isFile() ? { path, mtimeMs: info.mtimeMs } : null;
          }),
        );
        for (const s of stats) if (s) found.push(s);
        days += 1;
        // A resumed session appends to an older file, so look a little past the first hit.
        if ((found.length >= max && days >= 2) || days >= MAX_DAY_DIRS) break outer;
      }
    }
  }
  return found
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, max)
    .map((f) => f.path);
}

/** Resolves to `promise`'s value, or to `fallback()` once `ms` have passed. */
export function withDeadline<T>(promise: Promise<T>, ms: number, fallback: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => resolve(fallback()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// The reader

export interface QuotaReaderOptions {
  /** Codex's home (default: $CODEX_HOME, else ~/.codex), read at each call. */
  codexHome?: () => string | undefined;
  budgetMs?: number;
  tailBytes?: number;
  limitHoldMs?: number;
  now?: () => number;
  /** File access (tests replace parts of it). */
  fs?: Partial<QuotaFs>;
  /** Keeps observations across restarts (none: in memory only). */
  store?: ObservationStore;
}

/** What the runner saw of one provider: its last rate limit, its last success. */
export interface Observed {
  limit?: { at: number; resetsAt?: number; message: string };
  okAt?: number;
}

/** Where observations outlive the process (quota.repo.ts). */
export interface ObservationStore {
  load(): Iterable<[ProviderId, Observed]>;
  save(provider: ProviderId, observed: Observed): void;
}

type CodexRead = { snapshot: CodexRateLimitSnapshot | null; error?: string };

export class QuotaReader {
  private readonly observed = new Map<ProviderId, Observed>();
  private codexInflight: Promise<CodexRead> | null = null;
  private readonly fs: QuotaFs;

  constructor(private readonly options: QuotaReaderOptions = {}) {
    this.fs = { ...realQuotaFs, ...options.fs };
    for (const [provider, observed] of options.store?.load() ?? []) this.observed.set(provider, observed);
  }

  /** Records what a run saw: a rate limit, or a success that ends an earlier one. */
  observe(provider: ProviderId, observation: QuotaObservation): void {
    if (!Number.isFinite(observation.at)) return;
    const entry = this.observed.get(provider) ?? {};
    if (observation.kind === 'ok') {
      entry.okAt = Math.max(entry.okAt ?? 0, observation.at);
    } else if (!entry.limit || observation.at >= entry.limit.at) {
      const resetsAt = finite(observation.resetsAt);
      entry.limit = {
        at: observation.at,
        message: String(observation.message ?? '').slice(0, MAX_MESSAGE_CHARS),
        ...(resetsAt !== undefined ? { resetsAt: toEpochMs(resetsAt) } : {}),
      };
    }
    this.observed.set(provider, entry);
    this.options.store?.save(provider, entry);
  }

  /** Every provider's quota as far as it is known now; resolves within about `budgetMs`. */
  async read(): Promise<Record<ProviderId, QuotaInfo>> {
    const budget = this.options.budgetMs ?? SOURCE_BUDGET_MS;
    // A slow read still running from an earlier call is joined, not repeated.
    this.codexInflight ??= this.readCodex().finally(() => {
      this.codexInflight = null;
    });
    const codex = await withDeadline(this.codexInflight, budget, () => ({
      snapshot: null,
      error: `reading codex sessions took longer than ${budget} ms`,
    }));
    const now = this.now();
    const out = {} as Record<ProviderId, QuotaInfo>;
    for (const id of PROVIDER_IDS) {
      let base: QuotaInfo | null = null;
      if (id === 'codex') {
        if (codex.snapshot) base = codexQuotaInfo(codex.snapshot, now);
        else if (codex.error) base = { status: 'unknown', source: 'none', message: codex.error };
      }
      out[id] = this.merge(base, this.observed.get(id), now);
    }
    return out;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The latest evidence wins: an observed limit, a local record made after it, a success after it. */
  private merge(base: QuotaInfo | null, observed: Observed | undefined, now: number): QuotaInfo {
    const limit = observed?.limit;
    const hold = this.options.limitHoldMs ?? LIMIT_HOLD_MS;
    const lastLimited = limit ? { lastLimitedAt: limit.at } : {};
    if (limit) {
      const cleared = (observed?.okAt ?? -Infinity) > limit.at || (base?.updatedAt ?? -Infinity) > limit.at;
      const current = limit.resetsAt !== undefined ? limit.resetsAt > now : now - limit.at < hold;
      if (!cleared && current) {
        return {
          status: 'limited',
          source: 'observed',
          ...(base?.windows ? { windows: base.windows } : {}),
          lastLimitedAt: limit.at,
          ...(limit.resetsAt !== undefined ? { resetsAt: limit.resetsAt } : {}),
          ...(limit.message ? { message: limit.message } : {}),
          updatedAt: limit.at,
        };
      }
    }
    if (base && base.source !== 'none') return { ...base, ...lastLimited };
    const okAt = observed?.okAt;
    if (okAt !== undefined && now - okAt < hold && (!limit || okAt > limit.at)) {
      return { status: 'ok', source: 'observed', ...lastLimited, updatedAt: okAt };
    }
    return { ...(base ?? { status: 'unknown', source: 'none' }), ...lastLimited };
  }

  private codexHome(): string {
    const configured = this.options.codexHome ? this.options.codexHome() : process.env['CODEX_HOME'];
    return configured?.trim() ? configured : join(homedir(), '.codex');
  }

  private async readCodex(): Promise<CodexRead> {
    try {
      const maxBytes = this.options.tailBytes ?? CODEX_TAIL_BYTES;
      for (const file of await newestRollouts(this.fs, join(this.codexHome(), 'sessions'))) {
        const tail = await this.fs.readTail(file, maxBytes).catch(() => null);
        if (!tail) continue;
        const snapshot = parseCodexRateLimits(tail.text, { skipFirstLine: tail.truncated });
        if (snapshot) return { snapshot };
      }
      return { snapshot: null };
    } catch (err) {
      return { snapshot: null, error: `could not read codex sessions: ${(err as Error).message}` };
    }
  }
}
