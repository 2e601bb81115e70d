// Memory group (spec §4 "Memory"): search, context, save, read, list and delete under /api/svc-memory (what
// the agent and the CLI use), status and reindex under /api/memory.
import { z } from 'zod';
import { routeGroup, noBody, route } from '../../http/routes.ts';
import {
  MEMORY_KINDS,
  MemoryContextSchema,
  MemoryFileSchema,
  MemoryReadSchema,
  MemoryReindexSchema,
  MemorySavedSchema,
  MemorySearchSchema,
  MemoryStatusSchema,
  SAVE_MODES,
} from '../../protocol/memory.ts';
import type { MemoryService } from './memory.service.ts';
import { MAX_PATH_LENGTH } from './paths.ts';
import { MAX_CONTEXT_BUDGET, type MemorySettings } from './settings.ts';

/** Largest text one save sends (the file itself may grow to 1 MiB). */
export const MAX_SAVE_CHARS = 256 * 1024;

const path = z.string().min(1, 'a path is required').max(MAX_PATH_LENGTH).describe('Relative to <home>/memory, ending in .md');

export interface MemoryRouteDeps {
  memory: MemoryService;
  settings(): MemorySettings;
}

export const memoryRoutes = routeGroup('memory', ({ memory, settings }: MemoryRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/svc-memory/search',
      summary: 'Searches memory: words (bm25), trigrams (inside words, for Korean and CJK) and embeddings when configured, fused by reciprocal rank, weighed by kind and age.',
      query: z.strictObject({
        q: z.string().trim().min(1, 'a search text is required').max(1000),
        limit: z.coerce.number().int().min(1).max(50).default(10),
        kind: z.enum(MEMORY_KINDS).optional(),
      }),
      response: MemorySearchSchema,
      handler: ({ query }) => memory.search(query.q, { limit: query.limit, kind: query.kind }),
    }),
    route({
      method: 'GET',
      url: '/api/svc-memory/context',
      summary: 'The memory block that would be added to a prompt for q: the profile and the most relevant sections, diversified by kind and file, within budget characters.',
      query: z.strictObject({
        q: z.string().max(20_000).default(''),
        budget: z.coerce.number().int().min(0).max(MAX_CONTEXT_BUDGET).optional().describe('default: the setting memory.contextBudget'),
      }),
      response: MemoryContextSchema,
      handler: ({ query }) => memory.context(query.q, query.budget ?? settings().contextBudget),
    }),
    route({
      method: 'POST',
      url: '/api/svc-memory/save',
      summary: 'Writes a memory file atomically (append, replace, or replace the section named by the content\'s first heading) and indexes it before answering.',
      body: z.strictObject({
        path,
        content: z.string().max(MAX_SAVE_CHARS),
        mode: z.enum(SAVE_MODES).default('append'),
      }),
      response: MemorySavedSchema,
      handler: ({ body }) => memory.save(body),
    }),
    route({
      method: 'GET',
      url: '/api/svc-memory/read',
      summary: 'A memory file, or some of its lines (lines=10-40).',
      query: z.strictObject({ path, lines: z.string().max(40).optional() }),
      response: MemoryReadSchema,
      handler: ({ query }) => memory.read(query.path, query.lines),
    }),
    route({
      method: 'GET',
      url: '/api/svc-memory/list',
      summary: 'The indexed memory files (of one kind), by path.',
      query: z.strictObject({ kind: z.enum(MEMORY_KINDS).optional() }),
      response: z.object({ root: z.string(), files: z.array(MemoryFileSchema), truncated: z.boolean() }),
      handler: ({ query }) => memory.list(query.kind),
    }),
    route({
      method: 'DELETE',
      url: '/api/svc-memory/file',
      summary: 'Deletes a memory file and its sections from the index.',
      query: z.strictObject({ path }),
      response: z.object({ deleted: z.string() }),
      handler: ({ query }) => memory.remove(query.path),
    }),
    route({
      method: 'GET',
      url: '/api/memory/status',
      summary: 'The memory index: files and sections, last indexed, the running job, watching, embeddings, summaries, the last error.',
      response: MemoryStatusSchema,
      handler: () => memory.status(),
    }),
    route({
      method: 'POST',
      url: '/api/memory/reindex',
      summary: 'Re-reads every memory file and rebuilds its sections; progress goes out as memory_status events, and a call while one runs joins it.',
      body: noBody,
      response: MemoryReindexSchema,
      handler: () => memory.reindex(),
    }),
  ];
});
