// The memory store's wire types, shared by the server, the `svc memory` CLI and the web UI: search hits,
// the context block injected into prompts, files, the index status (also the `memory_status` payload).
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/** What a memory file holds: who the user is, shared notes, what happened (dated), how to do things. */
export const MEMORY_KINDS = ['profile', 'note', 'episode', 'procedure'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** How POST /api/svc-memory/save changes a file. */
export const SAVE_MODES = ['append', 'replace', 'section'] as const;
export type SaveMode = (typeof SAVE_MODES)[number];

/** Which ranked lists found a hit: the word index (bm25), the trigram index, the embeddings. */
export const MATCH_SOURCES = ['words', 'trigram', 'semantic'] as const;

const path = z.string().describe('Relative to <home>/memory, e.g. notes/decisions.md');
const line = lazySchema(() => z.number().int().min(1));

/** A stretch of a snippet that matched the query: [start, end) in UTF-16 units. */
export const MarkSchema = lazySchema(() => z.object({ start: z.number().int().min(0), end: z.number().int().min(0) }));

export const MemoryHitSchema = lazySchema(() => z.object({
  path,
  kind: z.enum(MEMORY_KINDS),
  /** The section's heading path, e.g. "Decisions > Database"; '' before the first heading. */
  heading: z.string(),
  startLine: line,
  endLine: line,
  /** Plain text (never HTML); `marks` say what to highlight. */
  snippet: z.string(),
  marks: z.array(MarkSchema),
  /** Higher is better: fused reciprocal ranks, weighed by kind and (for episodes) age. */
  score: z.number(),
  matchedBy: z.array(z.enum(MATCH_SOURCES)),
}));
export type MemoryHit = z.infer<typeof MemoryHitSchema>;

export const MemorySearchSchema = lazySchema(() => z.object({
  query: z.string(),
  hits: z.array(MemoryHitSchema),
  /** The embeddings took part in this search. */
  semantic: z.boolean(),
}));
export type MemorySearch = z.infer<typeof MemorySearchSchema>;

export const ContextPartSchema = lazySchema(() => z.object({
  role: z.enum(['profile', 'hit']),
  path,
  kind: z.enum(MEMORY_KINDS),
  heading: z.string(),
  startLine: line,
  endLine: line,
  text: z.string(),
  score: z.number().optional(),
}));
export type ContextPart = z.infer<typeof ContextPartSchema>;

export const MemoryContextSchema = lazySchema(() => z.object({
  query: z.string(),
  /** Largest length of `text` in characters. */
  budget: z.number().int(),
  /** The block added to the system prompt ('' when memory has nothing for this query). */
  text: z.string(),
  parts: z.array(ContextPartSchema),
}));
export type MemoryContext = z.infer<typeof MemoryContextSchema>;

export const MemoryFileSchema = lazySchema(() => z.object({
  path,
  kind: z.enum(MEMORY_KINDS),
  size: z.number().int(),
  mtime: z.number(),
  chunks: z.number().int(),
}));
export type MemoryFile = z.infer<typeof MemoryFileSchema>;

export const MemoryReadSchema = lazySchema(() => z.object({
  path,
  kind: z.enum(MEMORY_KINDS),
  /** The requested lines (the whole file without `lines`). */
  content: z.string(),
  startLine: line,
  endLine: z.number().int().min(0),
  totalLines: z.number().int(),
  size: z.number().int(),
  mtime: z.number(),
}));
export type MemoryRead = z.infer<typeof MemoryReadSchema>;

export const MemorySavedSchema = lazySchema(() => z.object({
  path,
  kind: z.enum(MEMORY_KINDS),
  mode: z.enum(SAVE_MODES),
  created: z.boolean(),
  size: z.number().int(),
  /** Sections of the file now in the index. */
  chunks: z.number().int(),
}));
export type MemorySaved = z.infer<typeof MemorySavedSchema>;

const count = lazySchema(() => z.number().int().min(0));

export const MemoryStatusSchema = lazySchema(() => z.object({
  /** The directory of the Markdown files. */
  root: z.string(),
  files: count,
  chunks: count,
  filesByKind: z.object({ profile: count, note: count, episode: count, procedure: count }),
  /** When a file was last (re)indexed; null before the first. */
  lastIndexedAt: z.number().nullable(),
  index: z.object({
    /** `pending`: not yet compared with the files since start; `indexing`: a sync or a full reindex runs. */
    state: z.enum(['pending', 'indexing', 'ready']),
    job: z.enum(['sync', 'full']).optional(),
    /** Files looked at / to look at by the running job. */
    done: count,
    total: count,
  }),
  /** Edits made outside svc are picked up (the directory is watched). */
  watching: z.boolean(),
  embeddings: z.object({
    state: z.enum(['off', 'indexing', 'ready', 'error']),
    model: z.string(),
    vectors: count,
    /** Sections still without a vector. */
    pending: count,
  }),
  summarize: z.object({
    /** 0 = off. */
    everyMessages: count,
    /** Messages since the last summary (kept in the database). */
    counter: count,
    /** Id of the last message summarised. */
    watermark: count,
    lastRunAt: z.number().nullable(),
  }),
  lastError: z.string().nullable(),
}));
export type MemoryStatus = z.infer<typeof MemoryStatusSchema>;

/** Why a `memory_status` event was published. */
export const MEMORY_STATUS_REASONS = ['save', 'delete', 'external', 'sync', 'reindex', 'progress', 'embeddings', 'summarize', 'settings', 'error'] as const;

export const MemoryStatusEventSchema = lazySchema(() => z.object({
  reason: z.enum(MEMORY_STATUS_REASONS),
  /** The file concerned, for save, delete, external and summarize. */
  path: z.string().optional(),
  status: MemoryStatusSchema,
}));

export const MemoryReindexSchema = lazySchema(() => z.object({
  /** This call joined a reindex that was already running. */
  joined: z.boolean(),
  files: count,
  chunks: count,
  durationMs: z.number(),
  status: MemoryStatusSchema,
}));
export type MemoryReindex = z.infer<typeof MemoryReindexSchema>;

/** The status as a few lines of text (the /memory command and `svc memory status`). */
export function describeMemoryStatus(s: MemoryStatus): string {
  const job = s.index.state === 'indexing' ? `indexing (${s.index.job}: ${s.index.done}/${s.index.total} files)` : s.index.state;
  return [
    `memory: ${s.files} files, ${s.chunks} sections in ${s.root}`,
    `  by kind: ${Object.entries(s.filesByKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    `  index: ${job}; last indexed ${s.lastIndexedAt ? new Date(s.lastIndexedAt).toISOString() : 'never'}; ${s.watching ? 'watching for outside edits' : 'not watching'}`,
    `  embeddings: ${s.embeddings.state}${s.embeddings.model ? ` (${s.embeddings.model}, ${s.embeddings.vectors} vectors, ${s.embeddings.pending} pending)` : ''}`,
    `  summaries: ${s.summarize.everyMessages ? `every ${s.summarize.everyMessages} messages (${s.summarize.counter} counted)` : 'off'}`,
    ...(s.lastError ? [`  last error: ${s.lastError}`] : []),
  ].join('\n');
}
