// The memory store: one directory of Markdown files (the truth, editable by hand) and one index in
// SQLite. Searches and builds the prompt context; saves, reads, lists and deletes files; keeps the index
// current (a sync in the background after start, a watcher for outside edits, reindex on demand);
// publishes `memory_status` on every change. Nothing here runs on the start-up path: `start()` is called
// once the server listens, and the first use starts the same work if it came first.
import { mkdirSync, realpathSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import type { EventBus } from '../../events/bus.ts';
import type { Db } from '../../store/db.ts';
import type {
  MemoryContext,
  MemoryFile,
  MemoryHit,
  MemoryKind,
  MemoryRead,
  MemoryReindex,
  MemorySaved,
  MemorySearch,
  MemoryStatus,
  SaveMode,
} from '../../protocol/memory.ts';
import { MEMORY_STATUS_REASONS } from '../../protocol/memory.ts';
import { buildContext } from './context.ts';
import { applySave } from './edit.ts';
import { Embedder } from './embeddings.ts';
import { Indexer, MAX_FILE_BYTES } from './indexer.ts';
import { MEMORY_INSTRUCTIONS } from './instructions.ts';
import { kindOf, parseFrontmatter, queryTerms, splitLines } from './markdown.ts';
import { MemoryRepo, type ChunkRow, type IndexCounts } from './memory.repo.ts';
import { confine, validateMemoryPath } from './paths.ts';
import { finalScore, fuse, snippetOf, type MatchSource } from './ranking.ts';
import { LIST_LIMIT, textLists } from './search.ts';
import type { MemorySettings } from './settings.ts';
import { Summarizer, type SummarizeSettings, type TranscriptMessage } from './summarize.ts';
import { DirWatcher } from './watcher.ts';

type StatusReason = (typeof MEMORY_STATUS_REASONS)[number];

/** The background sync starts this long after `start()`, so the server's first answers never wait for it. */
export const START_DELAY_MS = 300;
/** Files listed at most by one GET /api/svc-memory/list. */
export const MAX_LIST = 5000;
/** Hits the context is chosen from. */
const CONTEXT_CANDIDATES = 24;
/** An outside change touching more paths than this re-syncs everything. */
const MAX_REFRESH_PATHS = 100;

export interface MemoryServiceDeps {
  /** `<home>/memory`. */
  root: string;
  db: Db;
  bus: EventBus;
  settings(): MemorySettings;
  /** The newest `limit` chat messages (of every session) with an id above `afterId`, oldest first. */
  messagesAfter(afterId: number, limit: number): TranscriptMessage[];
  /** Runs a summary prompt through a provider CLI (memory.summarize). */
  runSummary(prompt: string, settings: SummarizeSettings): { done: Promise<string>; stop(reason: string): void };
}

interface Scored {
  row: ChunkRow;
  score: number;
  sources: MatchSource[];
}

export class MemoryService {
  readonly repo: MemoryRepo;
  private readonly indexer: Indexer;
  private readonly embedder: Embedder;
  private readonly summarizer: Summarizer;
  private readonly watcher: DirWatcher;
  private realRoot?: string;
  private booted?: Promise<void>;
  private startTimer?: NodeJS.Timeout;
  private refreshing: Promise<void> = Promise.resolve();
  /** Saves and deletes run one at a time (a save reads, changes and writes its file). */
  private writing: Promise<unknown> = Promise.resolve();
  private counts?: IndexCounts;
  private lastError: string | null = null;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: MemoryServiceDeps) {
    this.repo = new MemoryRepo(deps.db);
    this.indexer = new Indexer({
      repo: this.repo,
      root: () => this.root(),
      onProgress: () => this.publish('progress'),
      onError: (message) => this.fail(message),
    });
    this.embedder = new Embedder(this.repo, () => deps.settings().embeddings, (error) => (error ? this.fail(error) : this.publish('embeddings')));
    this.summarizer = new Summarizer({
      repo: this.repo,
      settings: () => deps.settings().summarize,
      messagesAfter: deps.messagesAfter,
      run: deps.runSummary,
      write: async (path, entry) => {
        await this.save({ path, content: entry, mode: 'append' }, 'summarize');
      },
      onChange: (error) => (error ? this.fail(error) : this.publish('summarize')),
    });
    this.watcher = new DirWatcher(
      deps.root,
      (paths) => this.onOutsideChange(paths),
      (err) => this.fail(`the memory directory is no longer watched (${err.message}); edits made outside svc need POST /api/memory/reindex`),
    );
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.name === 'message') this.summarizer.onMessage(event.payload as { id: number; role: string; replaces?: number });
      else if (event.name === 'settings_changed' && (event.payload as { sections: string[] }).sections.includes('memory')) {
        this.embedder.kick();
        this.publish('settings');
      }
    });
  }

  /** Begins the background work (sync, watcher, embeddings) shortly after the server listens. */
  start(): void {
    if (this.closed || this.booted || this.startTimer) return;
    this.startTimer = setTimeout(() => this.ensureStarted(), START_DELAY_MS);
    this.startTimer.unref();
  }

  /** Starts the background sync now if it has not begun, and resolves once it is done (the index is current). */
  async started(): Promise<void> {
    this.ensureStarted();
    await this.booted;
  }

  private ensureStarted(): void {
    clearTimeout(this.startTimer);
    if (this.closed || this.booted) return;
    this.booted = this.boot().catch((err: Error) => this.fail(`the memory index could not be brought up to date: ${err.message}`));
  }

  private async boot(): Promise<void> {
    this.root();
    await this.indexer.run('sync').promise;
    if (this.closed) return;
    this.watcher.start();
    this.publish('sync');
    this.embedder.kick();
  }

  /** The memory directory (created on first use, private to the user), links resolved. */
  private root(): string {
    if (!this.realRoot) {
      mkdirSync(this.deps.root, { recursive: true, mode: 0o700 });
      this.realRoot = realpathSync(this.deps.root);
    }
    return this.realRoot;
  }

  // ── reading ───────────────────────────────────────────────────────────────────────────────

  async search(query: string, options: { limit: number; kind?: MemoryKind }): Promise<MemorySearch> {
    const terms = queryTerms(query);
    const { scored, semantic } = await this.rank(query, terms, options);
    const hits: MemoryHit[] = scored.map(({ row, score, sources }) => ({
      path: row.path,
      kind: row.kind,
      heading: row.heading,
      startLine: row.startLine,
      endLine: row.endLine,
      ...snippetOf(row.text, terms),
      score: Number(score.toFixed(6)),
      matchedBy: sources,
    }));
    return { query, hits, semantic };
  }

  /** Sections for a query, best first: the fused lists, weighed by kind and age (ranking.ts). */
  private async rank(query: string, terms: readonly string[], options: { limit: number; kind?: MemoryKind }): Promise<{ scored: Scored[]; semantic: boolean }> {
    this.ensureStarted();
    const lists = textLists(this.repo, terms, options.kind);
    const nearest = query.trim() ? await this.embedder.nearest(query, LIST_LIMIT, options.kind) : undefined;
    if (nearest) lists.push({ source: 'semantic', ids: nearest });
    const fused = fuse(lists);
    const now = Date.now();
    const best = this.repo
      .chunkMeta([...fused.keys()])
      .map((meta) => {
        const f = fused.get(meta.id)!;
        return { id: meta.id, score: finalScore(f, meta.kind, meta.datedAt, now), sources: f.sources };
      })
      .sort((a, b) => b.score - a.score || b.id - a.id)
      .slice(0, options.limit);
    const byId = new Map(best.map((b) => [b.id, b]));
    const scored = this.repo.chunks(best.map((b) => b.id)).map((row) => ({ row, score: byId.get(row.id)!.score, sources: byId.get(row.id)!.sources }));
    return { scored, semantic: nearest !== undefined };
  }

  /** The block added to a prompt for `query`: the profile and the most relevant sections within `budget` characters. */
  async context(query: string, budget: number, kinds?: readonly MemoryKind[]): Promise<MemoryContext> {
    const terms = queryTerms(query);
    const kind = kinds?.length === 1 ? kinds[0] : undefined;
    const { scored } = budget > 0 && query.trim() ? await this.rank(query, terms, { limit: CONTEXT_CANDIDATES, kind }) : { scored: [] };
    this.ensureStarted();
    return buildContext({ query, budget, profile: this.repo.profileChunks(), hits: scored, kinds });
  }

  /**
   * What a worker is given for a task: the profile and the procedures relevant to it (for the
   * orchestration work; `budget` defaults to memory.contextBudget).
   */
  workerContext(task: string, budget = this.deps.settings().contextBudget): Promise<MemoryContext> {
    return this.context(task, budget, ['procedure']);
  }

  /** The memory part of a main-agent run's system prompt: how to save, and the context for this prompt. */
  async promptBlock(prompt: string): Promise<string> {
    const budget = this.deps.settings().contextBudget;
    let context = '';
    try {
      if (budget > 0) context = (await this.context(prompt, budget)).text;
    } catch (err) {
      // a broken index must not stop the agent from answering
      this.fail(`the memory context could not be built: ${(err as Error).message}`);
    }
    return [MEMORY_INSTRUCTIONS, context].filter(Boolean).join('\n\n');
  }

  async read(path: string, lines?: string): Promise<MemoryRead> {
    const rel = validateMemoryPath(path);
    const { absolute, exists } = confine(this.root(), rel);
    if (!exists) throw notFound('Memory file', rel);
    const info = await stat(absolute);
    if (info.size > 5 * MAX_FILE_BYTES) throw new AppError(413, 'PAYLOAD_TOO_LARGE', `${rel} is larger than 5 MiB; open it in an editor instead.`);
    const text = await readFile(absolute, 'utf8');
    const all = splitLines(text);
    if (all.length > 1 && all.at(-1) === '') all.pop();
    const totalLines = text ? all.length : 0;
    const [from, to] = lineRange(lines, totalLines);
    return {
      path: rel,
      kind: kindOf(rel, parseFrontmatter(all).fields),
      content: all.slice(from - 1, to).join('\n'),
      startLine: from,
      endLine: to,
      totalLines,
      size: info.size,
      mtime: info.mtimeMs,
    };
  }

  list(kind?: MemoryKind): { root: string; files: MemoryFile[]; truncated: boolean } {
    this.ensureStarted();
    const files = this.repo.listFiles(kind, MAX_LIST + 1);
    return { root: this.deps.root, files: files.slice(0, MAX_LIST), truncated: files.length > MAX_LIST };
  }

  status(): MemoryStatus {
    this.counts ??= this.repo.counts();
    const job = this.indexer.progress();
    const embeddings = this.embedder.state();
    const on = embeddings.state !== 'off';
    return {
      root: this.deps.root,
      ...this.counts,
      index: job ? { state: 'indexing', job: job.kind, done: job.done, total: job.total } : { state: this.indexer.synced ? 'ready' : 'pending', done: 0, total: 0 },
      watching: this.watcher.watching,
      embeddings: {
        state: embeddings.state,
        model: embeddings.model,
        vectors: on ? this.repo.vectorCount(embeddings.model) : 0,
        // (counted only while there can be any: a finished fill left none)
        pending: embeddings.state === 'indexing' || embeddings.state === 'error' ? this.repo.pendingVectors(embeddings.model) : 0,
      },
      summarize: this.summarizer.status(),
      lastError: this.lastError,
    };
  }

  // ── writing ───────────────────────────────────────────────────────────────────────────────

  /** Writes a file (atomically) and indexes it before answering. */
  save(input: { path: string; content: string; mode: SaveMode }, reason: StatusReason = 'save'): Promise<MemorySaved> {
    const rel = validateMemoryPath(input.path);
    return this.serialized(async () => {
      const { absolute, exists } = confine(this.root(), rel);
      const before = exists ? await readFile(absolute, 'utf8') : '';
      const text = applySave(before, input.content, input.mode);
      if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
        throw new AppError(413, 'PAYLOAD_TOO_LARGE', `${rel} would be larger than 1 MiB; split it into several files.`);
      }
      await mkdir(dirname(absolute), { recursive: true, mode: 0o700 });
      await writeAtomic(absolute, text);
      const info = await stat(absolute);
      const chunks = this.indexer.indexText(rel, text, info.mtimeMs, info.size);
      this.publish(reason, rel);
      this.embedder.kick();
      return { path: rel, kind: kindOf(rel, parseFrontmatter(splitLines(text)).fields), mode: input.mode, created: !exists, size: info.size, chunks };
    });
  }

  remove(path: string): Promise<{ deleted: string }> {
    const rel = validateMemoryPath(path);
    return this.serialized(async () => {
      const { absolute, exists } = confine(this.root(), rel);
      if (!exists) throw notFound('Memory file', rel);
      await unlink(absolute);
      this.repo.removeFile(rel);
      this.publish('delete', rel);
      return { deleted: rel };
    });
  }

  /** Re-reads and re-cuts every file; a call while one runs joins it. Progress goes out as memory_status. */
  async reindex(): Promise<MemoryReindex> {
    this.root();
    const { joined, promise } = this.indexer.run('full');
    // (a start-up sync that has not begun yet joins this reindex instead of running before it)
    this.ensureStarted();
    const result = await promise;
    if (!joined) this.publish('reindex');
    this.embedder.kick();
    return { joined, ...result, status: this.status() };
  }

  /** For tests: resolves once the background work started so far (sync, embeddings, summary) is done. */
  async settled(): Promise<void> {
    this.ensureStarted();
    await this.booted;
    await this.refreshing;
    await Promise.all([this.embedder.idle(), this.summarizer.idle()]);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.startTimer);
    this.unsubscribe();
    this.watcher.close();
    await this.indexer.close();
    await Promise.allSettled([this.booted, this.refreshing, this.writing]);
    await this.embedder.close();
    await this.summarizer.close();
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => undefined);
    return next;
  }

  private onOutsideChange(changed: string[] | 'all'): void {
    this.refreshing = this.refreshing.then(async () => {
      if (this.closed) return;
      const paths = changed === 'all' || changed.length > MAX_REFRESH_PATHS ? [''] : outermost(changed);
      const before = this.repo.version;
      try {
        await this.indexer.refresh(paths);
      } catch (err) {
        this.fail(`an outside change could not be indexed: ${(err as Error).message}`);
        return;
      }
      if (this.repo.version !== before) {
        this.publish('external', paths.length === 1 && paths[0] ? paths[0] : undefined);
        this.embedder.kick();
      }
    });
  }

  private fail(message: string): void {
    this.lastError = message;
    this.publish('error');
  }

  private publish(reason: StatusReason, path?: string): void {
    if (this.closed) return;
    this.counts = undefined;
    this.deps.bus.publish('memory_status', { reason, ...(path ? { path } : {}), status: this.status() });
  }
}

/** Paths without those inside another of them (a folder's refresh covers its files). */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/** `a-b`, `a` or `a-` (1-based, inclusive) within a file of `total` lines; the whole file without one. */
export function lineRange(lines: string | undefined, total: number): [number, number] {
  if (lines === undefined || lines === '') return [1, total];
  const match = /^(\d+)(?:(-)(\d*))?$/.exec(lines.trim());
  const from = match ? Number(match[1]) : NaN;
  const to = !match ? NaN : match[2] === undefined ? from : match[3] ? Number(match[3]) : total;
  if (!match || from < 1 || to < from) throw badRequest('INVALID_LINES', `lines must look like 10-40, 10 or 10- (1-based), not '${lines}'.`, { field: 'lines' });
  return [from, Math.min(to, total)];
}

/** Writes a temporary file beside the target (hidden, so the watcher ignores it), syncs it, renames it over. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
