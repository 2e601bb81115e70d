// The memory index in SQLite (migration 005): files, their sections, the word and trigram indexes, the
// embeddings and the small persistent state. One long-lived set of prepared statements; every query is
// bounded.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../store/db.ts';
import type { MemoryFile, MemoryKind } from '../../protocol/memory.ts';
import type { Chunk } from './markdown.ts';
import { trigramWords } from './markdown.ts';

export interface FileRecord {
  path: string;
  kind: MemoryKind;
  mtimeMs: number;
  size: number;
  hash: string;
  datedAt: number;
}

/** What ranking needs of a section. */
export interface ChunkMeta {
  id: number;
  path: string;
  kind: MemoryKind;
  heading: string;
  startLine: number;
  endLine: number;
  datedAt: number;
}

export interface ChunkRow extends ChunkMeta {
  text: string;
}

export interface IndexCounts {
  files: number;
  chunks: number;
  filesByKind: Record<MemoryKind, number>;
  lastIndexedAt: number | null;
}

/** Which full-text table a ranked query reads. */
export type TextIndex = 'words' | 'trigram';
const TABLE: Record<TextIndex, string> = { words: 'memory_fts', trigram: 'memory_trigram' };
/** Heading matches count twice as much as body matches (the trigram table has one column). */
const BM25: Record<TextIndex, string> = { words: 'bm25(memory_fts, 2.0, 1.0)', trigram: 'bm25(memory_trigram)' };

interface ChunkDbRow {
  id: number;
  path: string;
  kind: MemoryKind;
  heading: string;
  start_line: number;
  end_line: number;
  text: string;
  dated_at: number;
}

const toMeta = (r: Omit<ChunkDbRow, 'text'>): ChunkMeta => ({
  id: r.id,
  path: r.path,
  kind: r.kind,
  heading: r.heading,
  startLine: r.start_line,
  endLine: r.end_line,
  datedAt: r.dated_at,
});

const toChunk = (r: ChunkDbRow): ChunkRow => ({ ...toMeta(r), text: r.text });

export class MemoryRepo {
  /** Bumped on every change of sections or vectors (caches built from them compare it). */
  version = 0;
  private readonly stmt;
  private readonly ranked = new Map<string, Statement<unknown[]>>();
  private counted?: { version: number; n: number };

  constructor(private readonly db: Db) {
    this.stmt = {
      fileStates: db.prepare('SELECT path, mtime_ms, size, hash, indexed_at FROM memory_files'),
      file: db.prepare('SELECT path, kind, mtime_ms, size, hash, dated_at, chunks FROM memory_files WHERE path = ?'),
      upsertFile: db.prepare(`
        INSERT INTO memory_files (path, kind, mtime_ms, size, hash, dated_at, chunks, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, mtime_ms = excluded.mtime_ms, size = excluded.size, hash = excluded.hash,
          dated_at = excluded.dated_at, chunks = excluded.chunks, indexed_at = excluded.indexed_at`),
      touchFile: db.prepare('UPDATE memory_files SET mtime_ms = ?, size = ?, indexed_at = ? WHERE path = ?'),
      deleteChunks: db.prepare('DELETE FROM memory_chunks WHERE path = ?'),
      deleteFile: db.prepare('DELETE FROM memory_files WHERE path = ?'),
      insertChunk: db.prepare('INSERT INTO memory_chunks (path, kind, heading, start_line, end_line, text, hash, words) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      listFiles: db.prepare('SELECT path, kind, size, mtime_ms, chunks FROM memory_files ORDER BY path LIMIT ?'),
      listKind: db.prepare('SELECT path, kind, size, mtime_ms, chunks FROM memory_files WHERE kind = ? ORDER BY path LIMIT ?'),
      counts: db.prepare('SELECT kind, count(*) AS files, coalesce(sum(chunks), 0) AS chunks, max(indexed_at) AS last FROM memory_files GROUP BY kind'),
      chunks: db.prepare(`
        SELECT c.id, c.path, c.kind, c.heading, c.start_line, c.end_line, c.text, f.dated_at
        FROM memory_chunks c JOIN memory_files f ON f.path = c.path WHERE c.id IN (SELECT value FROM json_each(?))`),
      chunkMeta: db.prepare(`
        SELECT c.id, c.path, c.kind, c.heading, c.start_line, c.end_line, f.dated_at
        FROM memory_chunks c JOIN memory_files f ON f.path = c.path WHERE c.id IN (SELECT value FROM json_each(?))`),
      profileChunks: db.prepare(`
        SELECT c.id, c.path, c.kind, c.heading, c.start_line, c.end_line, c.text, f.dated_at
        FROM memory_files f JOIN memory_chunks c ON c.path = f.path WHERE f.kind = 'profile' ORDER BY f.path, c.start_line LIMIT ?`),
      missingVectors: db.prepare(`
        SELECT c.hash, c.heading, c.text FROM memory_chunks c
        WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.hash = c.hash AND v.model = ?)
        GROUP BY c.hash LIMIT ?`),
      countMissing: db.prepare(`
        SELECT count(DISTINCT c.hash) FROM memory_chunks c
        WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.hash = c.hash AND v.model = ?)`).pluck(),
      countVectors: db.prepare('SELECT count(*) FROM memory_vectors WHERE model = ?').pluck(),
      putVector: db.prepare('INSERT OR REPLACE INTO memory_vectors (hash, model, dims, vector) VALUES (?, ?, ?, ?)'),
      vectors: db.prepare(`
        SELECT c.id, c.kind, v.vector FROM memory_chunks c JOIN memory_vectors v ON v.hash = c.hash AND v.model = ? AND v.dims = ?`),
      pruneVectors: db.prepare('DELETE FROM memory_vectors WHERE hash NOT IN (SELECT hash FROM memory_chunks)'),
      termDocs: db.prepare('SELECT doc FROM memory_fts_terms WHERE term = ?').pluck(),
      prefixDocs: db.prepare('SELECT coalesce(sum(doc), 0) FROM memory_fts_terms WHERE term >= ? AND term < ?').pluck(),
      totalChanges: db.prepare('SELECT total_changes()').pluck(),
      countChunks: db.prepare('SELECT count(*) FROM memory_chunks').pluck(),
      getState: db.prepare('SELECT value FROM memory_state WHERE key = ?').pluck(),
      setState: db.prepare('INSERT INTO memory_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
  }

  /** What the index knows of every file (to tell which changed on disk). */
  fileStates(): Map<string, { mtimeMs: number; size: number; hash: string; indexedAt: number }> {
    const out = new Map<string, { mtimeMs: number; size: number; hash: string; indexedAt: number }>();
    for (const r of this.stmt.fileStates.iterate() as Iterable<{ path: string; mtime_ms: number; size: number; hash: string; indexed_at: number }>) {
      out.set(r.path, { mtimeMs: r.mtime_ms, size: r.size, hash: r.hash, indexedAt: r.indexed_at });
    }
    return out;
  }

  file(path: string): (FileRecord & { chunks: number }) | undefined {
    const r = this.stmt.file.get(path) as { path: string; kind: MemoryKind; mtime_ms: number; size: number; hash: string; dated_at: number; chunks: number } | undefined;
    return r && { path: r.path, kind: r.kind, mtimeMs: r.mtime_ms, size: r.size, hash: r.hash, datedAt: r.dated_at, chunks: r.chunks };
  }

  /** Replaces a file's sections (new ids: the newest sections have the highest). Call inside a transaction for batches. */
  replaceFile(file: FileRecord, chunks: readonly Chunk[], now = Date.now()): void {
    this.stmt.deleteChunks.run(file.path);
    this.stmt.upsertFile.run(file.path, file.kind, Math.round(file.mtimeMs), file.size, file.hash, Math.round(file.datedAt), chunks.length, now);
    for (const c of chunks) {
      this.stmt.insertChunk.run(file.path, file.kind, c.heading, c.startLine, c.endLine, c.text, c.hash, trigramWords(`${c.heading}\n${c.text}`));
    }
    this.version++;
  }

  /** The file did not change (same content): remember its new time and size only. */
  touchFile(path: string, mtimeMs: number, size: number, now = Date.now()): void {
    this.stmt.touchFile.run(Math.round(mtimeMs), size, now, path);
  }

  removeFile(path: string): boolean {
    this.stmt.deleteChunks.run(path);
    const removed = this.stmt.deleteFile.run(path).changes > 0;
    if (removed) this.version++;
    return removed;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  listFiles(kind: MemoryKind | undefined, limit: number): MemoryFile[] {
    const rows = (kind ? this.stmt.listKind.all(kind, limit) : this.stmt.listFiles.all(limit)) as { path: string; kind: MemoryKind; size: number; mtime_ms: number; chunks: number }[];
    return rows.map((r) => ({ path: r.path, kind: r.kind, size: r.size, mtime: r.mtime_ms, chunks: r.chunks }));
  }

  counts(): IndexCounts {
    const out: IndexCounts = { files: 0, chunks: 0, filesByKind: { profile: 0, note: 0, episode: 0, procedure: 0 }, lastIndexedAt: null };
    for (const r of this.stmt.counts.all() as { kind: MemoryKind; files: number; chunks: number; last: number | null }[]) {
      out.files += r.files;
      out.chunks += r.chunks;
      out.filesByKind[r.kind] = r.files;
      if (r.last !== null && (out.lastIndexedAt === null || r.last > out.lastIndexedAt)) out.lastIndexedAt = r.last;
    }
    return out;
  }

  /** Sections in the index (remembered until the index changes). */
  sectionCount(): number {
    if (this.counted?.version !== this.version) this.counted = { version: this.version, n: this.stmt.countChunks.get() as number };
    return this.counted.n;
  }

  /** These sections with their text, in the order of `ids`. */
  chunks(ids: readonly number[]): ChunkRow[] {
    if (!ids.length) return [];
    const rows = new Map((this.stmt.chunks.all(JSON.stringify(ids)) as ChunkDbRow[]).map((r) => [r.id, toChunk(r)]));
    return ids.flatMap((id) => rows.get(id) ?? []);
  }

  /** These sections without their text (for ranking many before reading a few). */
  chunkMeta(ids: readonly number[]): ChunkMeta[] {
    if (!ids.length) return [];
    return (this.stmt.chunkMeta.all(JSON.stringify(ids)) as Omit<ChunkDbRow, 'text'>[]).map(toMeta);
  }

  /** The sections of the profile (profile.md, or files whose frontmatter says `kind: profile`), in file order. */
  profileChunks(limit = 100): ChunkRow[] {
    return (this.stmt.profileChunks.all(limit) as ChunkDbRow[]).map(toChunk);
  }

  // ── ranked full-text queries ──────────────────────────────────────────────────────────────

  private rankedStmt(sql: string): Statement<unknown[]> {
    let stmt = this.ranked.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      this.ranked.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * How many sections hold a word of the word index (its folded form), or words starting with it (an
   * upper bound then: a section may hold several). From the index's own counts: cost grows with the
   * answer, about 2 ms for a word in 80,000 sections.
   */
  wordDocs(word: string, prefix: boolean): number {
    if (!prefix) return (this.stmt.termDocs.get(word) as number | undefined) ?? 0;
    // the words from `word` up to the next string of its length: its last code point (not UTF-16
    // unit: astral characters are pairs) plus one, skipping the surrogate range
    const chars = [...word];
    const last = chars.pop()?.codePointAt(0);
    // an empty word (a lone combining mark folds to nothing) or one ending in U+10FFFF has no such
    // bound: 0, and the caller counts by matching
    if (last === undefined || last >= 0x10ffff) return 0;
    const next = chars.join('') + String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1);
    return this.stmt.prefixDocs.get(word, next) as number;
  }

  /**
   * One bounded step of merging an index's segments (FTS5 `merge` with a negative page count: across
   * levels, towards one segment). After a large (re)index this makes queries several times faster.
   * False once there is nothing left to merge.
   */
  mergeStep(index: TextIndex, pages = 32): boolean {
    const t = TABLE[index];
    const before = this.stmt.totalChanges.get() as number;
    this.rankedStmt(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ?)`).run(-pages);
    return (this.stmt.totalChanges.get() as number) - before >= 2;
  }

  /** How many sections match, counting no further than `cap`. */
  countUpTo(index: TextIndex, match: string, cap: number): number {
    const t = TABLE[index];
    return this.rankedStmt(`SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE ${t} MATCH ? LIMIT ?)`).pluck().get(match, cap) as number;
  }

  /** The id of the `n`-th newest matching section (the edge of a window of the newest matches), or 0. */
  windowEdge(index: TextIndex, match: string, n: number): number {
    const t = TABLE[index];
    return (this.rankedStmt(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`).pluck().get(match, n - 1) as number | undefined) ?? 0;
  }

  /** Matching sections (id ≥ minId, of one kind if given), best bm25 first (lower is better), with that score. */
  rank(index: TextIndex, match: string, options: { minId: number; kind?: MemoryKind; limit: number }): { ids: number[]; scores: number[] } {
    const t = TABLE[index];
    const kind = options.kind ? ' AND c.kind = ?' : '';
    const join = options.kind ? ` JOIN memory_chunks c ON c.id = ${t}.rowid` : '';
    const sql = `SELECT ${t}.rowid AS id, ${BM25[index]} AS score FROM ${t}${join} WHERE ${t} MATCH ? AND ${t}.rowid >= ?${kind} ORDER BY score LIMIT ?`;
    const args: unknown[] = [match, options.minId, ...(options.kind ? [options.kind] : []), options.limit];
    const rows = this.rankedStmt(sql).all(...args) as { id: number; score: number }[];
    // (rounded: equal texts must tie, whatever the float noise)
    return { ids: rows.map((r) => r.id), scores: rows.map((r) => Number(r.score.toPrecision(9))) };
  }

  // ── embeddings ────────────────────────────────────────────────────────────────────────────

  /** Distinct section texts that have no vector for `model` yet. */
  missingVectors(model: string, limit: number): { hash: string; text: string }[] {
    return (this.stmt.missingVectors.all(model, limit) as { hash: string; heading: string; text: string }[]).map((r) => ({
      hash: r.hash,
      text: r.heading && !r.text.startsWith('#') ? `${r.heading}\n${r.text}` : r.text,
    }));
  }

  pendingVectors(model: string): number {
    return this.stmt.countMissing.get(model) as number;
  }

  vectorCount(model: string): number {
    return this.stmt.countVectors.get(model) as number;
  }

  putVectors(model: string, rows: readonly { hash: string; vector: Float32Array }[]): void {
    this.transaction(() => {
      for (const r of rows) this.stmt.putVector.run(r.hash, model, r.vector.length, Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength));
    });
    this.version++;
  }

  /** Every section that has a vector of this model and size. */
  *vectors(model: string, dims: number): Generator<{ id: number; kind: MemoryKind; vector: Float32Array }> {
    for (const r of this.stmt.vectors.iterate(model, dims) as Iterable<{ id: number; kind: MemoryKind; vector: Buffer }>) {
      // (copied: a blob's bytes need not be aligned for a Float32Array view)
      const bytes = r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength);
      yield { id: r.id, kind: r.kind, vector: new Float32Array(bytes) };
    }
  }

  /** Drops vectors of texts no section has any more. */
  pruneVectors(): number {
    return this.stmt.pruneVectors.run().changes;
  }

  // ── state that must survive a restart ────────────────────────────────────────────────────

  getState(key: string): number {
    return (this.stmt.getState.get(key) as number | undefined) ?? 0;
  }

  setState(entries: Record<string, number>): void {
    this.transaction(() => {
      for (const [key, value] of Object.entries(entries)) this.stmt.setState.run(key, value);
    });
  }
}
