// Keeps the index equal to the files: a sync at start (only files whose time or size changed are read),
// a full reindex on demand (every file re-read and re-cut), one file at a time for saves and outside
// edits. All of it runs off the request path in small slices: each database transaction stops after
// SLICE_MS and the event loop gets a turn before the next.
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { datedAt, parseMemoryFile, sha1 } from './markdown.ts';
import type { MemoryRepo } from './memory.repo.ts';

/** Files larger than this are not indexed (a memory file is notes, not a data dump). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Files read at once. */
const READ_BATCH = 32;
/** Longest a write transaction holds the event loop (longer ones index faster: FTS5 writes a segment per transaction). */
const SLICE_MS = 16;
const PROGRESS_EVERY_MS = 250;
/** A job that wrote this many sections merges the index segments afterwards. */
const COMPACT_AFTER = 1000;

export type JobKind = 'sync' | 'full';

export interface JobProgress {
  kind: JobKind;
  done: number;
  total: number;
}

export interface JobResult {
  files: number;
  chunks: number;
  durationMs: number;
}

interface Entry {
  rel: string;
  mtimeMs: number;
  size: number;
}

const hidden = (name: string) => name.startsWith('.');

/** The .md files at or under `root/prefix`, relative to root with '/' separators; hidden names and links skipped. */
export async function walkMarkdown(root: string, prefix = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  const add = async (rel: string) => {
    try {
      const s = await stat(join(root, rel));
      out.push({ rel: rel.normalize('NFC'), mtimeMs: s.mtimeMs, size: s.size });
    } catch {
      // gone meanwhile
    }
  };
  const visit = async (rel: string) => {
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    for (const entry of entries) {
      if (hidden(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(child);
      else if (entry.isFile() && entry.name.endsWith('.md')) await add(child);
    }
  };
  if (!prefix) await visit('');
  else {
    const s = await lstat(join(root, prefix)).catch(() => undefined);
    if (s?.isDirectory()) await visit(prefix);
    else if (s?.isFile() && prefix.endsWith('.md')) await add(prefix);
  }
  return out;
}

export interface IndexerDeps {
  repo: MemoryRepo;
  /** The memory directory, links resolved. */
  root(): string;
  /** A job started or advanced (called at most every PROGRESS_EVERY_MS while it runs). */
  onProgress(): void;
  /** A file could not be indexed (too large, unreadable). */
  onError(message: string): void;
}

export class Indexer {
  private job?: { progress: JobProgress; promise: Promise<JobResult> };
  /** A full reindex asked for while a sync runs: it starts when the sync ends, and later callers join it. */
  private queuedFull?: Promise<JobResult>;
  private lastProgress = 0;
  private closed = false;
  /** The first sync since start has finished. */
  synced = false;

  constructor(private readonly deps: IndexerDeps) {}

  progress(): JobProgress | undefined {
    return this.job?.progress;
  }

  /** Runs a sync or a full reindex; a call while the same (or a full) one runs joins it. */
  run(kind: JobKind): { joined: boolean; promise: Promise<JobResult> } {
    const running = this.job;
    if (running && (running.progress.kind === kind || running.progress.kind === 'full')) return { joined: true, promise: running.promise };
    if (running) {
      if (this.queuedFull) return { joined: true, promise: this.queuedFull };
      const queued = running.promise.catch(() => undefined).then(() => {
        this.queuedFull = undefined;
        return this.start('full');
      });
      this.queuedFull = queued;
      return { joined: false, promise: queued };
    }
    return { joined: false, promise: this.start(kind) };
  }

  private start(kind: JobKind): Promise<JobResult> {
    const progress: JobProgress = { kind, done: 0, total: 0 };
    const promise = this.syncUnder('', kind === 'full', progress).finally(() => {
      if (this.job?.promise === promise) this.job = undefined;
      this.synced = true;
      if (kind === 'full' && !this.closed) this.deps.repo.pruneVectors();
    });
    this.job = { progress, promise };
    this.deps.onProgress();
    return promise;
  }

  /** Re-reads what changed under these paths (files, or folders that appeared or went). */
  async refresh(paths: readonly string[]): Promise<void> {
    for (const rel of paths) {
      if (this.closed) return;
      await this.syncUnder(rel, false);
    }
  }

  /**
   * Indexes a file whose text the caller just wrote (saves): synchronously, so the index is current
   * when the request answers. Returns its number of sections.
   */
  indexText(rel: string, text: string, mtimeMs: number, size: number): number {
    const parsed = parseMemoryFile(rel, text);
    const file = { path: rel, kind: parsed.kind, mtimeMs, size, hash: sha1(text), datedAt: datedAt(rel, parsed.fields, mtimeMs) };
    this.deps.repo.transaction(() => this.deps.repo.replaceFile(file, parsed.chunks));
    return parsed.chunks.length;
  }

  /** Compares the files under `prefix` ('' = all) with the index and brings the index up to date. */
  private async syncUnder(prefix: string, force: boolean, progress?: JobProgress): Promise<JobResult> {
    const started = Date.now();
    const { repo } = this.deps;
    const root = this.deps.root();
    const entries = await walkMarkdown(root, prefix);
    const under = (path: string) => !prefix || path === prefix || path.startsWith(`${prefix}/`);
    const known = repo.fileStates();
    const todo = force
      ? [...entries]
      : entries.filter((e) => {
          const k = known.get(e.rel);
          return !k || k.size !== e.size || Math.round(k.mtimeMs) !== Math.round(e.mtimeMs);
        });
    // oldest first: a section's id then follows when its file was written (search windows rely on it)
    todo.sort((a, b) => a.mtimeMs - b.mtimeMs);
    if (progress) {
      progress.total = entries.length;
      progress.done = entries.length - todo.length;
    }
    let chunks = 0;
    for (let i = 0; i < todo.length && !this.closed; i += READ_BATCH) {
      const batch = todo.slice(i, i + READ_BATCH);
      const texts = await Promise.all(batch.map((e) => this.read(e)));
      let next = 0;
      while (next < batch.length && !this.closed) {
        const sliceStart = performance.now();
        repo.transaction(() => {
          for (; next < batch.length && performance.now() - sliceStart < SLICE_MS; next++) {
            const text = texts[next];
            const entry = batch[next]!;
            if (text === undefined) continue;
            const hash = sha1(text);
            const before = known.get(entry.rel);
            if (!force && before?.hash === hash) repo.touchFile(entry.rel, entry.mtimeMs, entry.size);
            else chunks += this.indexParsed(entry, text, hash);
          }
        });
        await yieldTurn();
      }
      if (progress) {
        progress.done += batch.length;
        this.tick();
      }
    }
    if (!this.closed) {
      const seen = new Set(entries.map((e) => e.rel));
      const gone = [...known].filter(([path, k]) => under(path) && !seen.has(path) && k.indexedAt < started).map(([path]) => path);
      if (gone.length) repo.transaction(() => gone.forEach((path) => repo.removeFile(path)));
    }
    if (progress && chunks >= COMPACT_AFTER) await this.compact();
    return { files: entries.length, chunks, durationMs: Date.now() - started };
  }

  /**
   * Merges the many small segments a large job leaves in the text indexes (one per transaction), in
   * slices: searches afterwards are several times faster.
   */
  private async compact(): Promise<void> {
    for (const index of ['words', 'trigram'] as const) {
      let more = true;
      while (more && !this.closed) {
        const sliceStart = performance.now();
        while (more && performance.now() - sliceStart < SLICE_MS) more = this.deps.repo.mergeStep(index);
        await yieldTurn();
      }
    }
  }

  private indexParsed(entry: Entry, text: string, hash: string): number {
    const parsed = parseMemoryFile(entry.rel, text);
    const file = { path: entry.rel, kind: parsed.kind, mtimeMs: entry.mtimeMs, size: entry.size, hash, datedAt: datedAt(entry.rel, parsed.fields, entry.mtimeMs) };
    this.deps.repo.replaceFile(file, parsed.chunks);
    return parsed.chunks.length;
  }

  private async read(entry: Entry): Promise<string | undefined> {
    if (entry.size > MAX_FILE_BYTES) {
      this.deps.onError(`${entry.rel} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB and is not indexed`);
      return undefined;
    }
    try {
      return await readFile(join(this.deps.root(), entry.rel), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.deps.onError(`${entry.rel} cannot be read: ${(err as Error).message}`);
      return undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastProgress < PROGRESS_EVERY_MS) return;
    this.lastProgress = now;
    this.deps.onProgress();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([this.job?.promise, this.queuedFull]);
  }
}
