// The memory panel's side of the API (GET/POST /api/svc-memory/*, /api/memory/*) and whether the panel is
// open. Its wire types come from src/protocol/memory.ts, like the server's.
import { get, post } from './api.ts';
import { createPanel } from './panel.ts';
import type {
  MemoryFile,
  MemoryHit,
  MemoryKind,
  MemoryRead,
  MemoryReindex,
  MemorySaved,
  MemorySearch,
  MemoryStatus,
} from '../../src/protocol/memory.ts';

export type { MemoryFile, MemoryHit, MemoryKind, MemoryRead, MemoryStatus };

const query = (params: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();

export const memoryApi = {
  status: () => get<MemoryStatus>('/api/memory/status'),
  list: (kind?: MemoryKind) => get<{ root: string; files: MemoryFile[]; truncated: boolean }>(`/api/svc-memory/list?${query({ kind })}`),
  search: (q: string, kind: MemoryKind | undefined, signal?: AbortSignal) => get<MemorySearch>(`/api/svc-memory/search?${query({ q, kind, limit: '30' })}`, signal),
  read: (path: string) => get<MemoryRead>(`/api/svc-memory/read?${query({ path })}`),
  /** The whole file is written (mode replace): the editor holds all of it. */
  save: (path: string, content: string) => post<MemorySaved>('/api/svc-memory/save', { path, content, mode: 'replace' }),
  reindex: () => post<MemoryReindex>('/api/memory/reindex', {}),
};

const panel = createPanel();
export const openMemory = panel.open;
export const closeMemory = panel.close;
export const useMemoryOpen = panel.useOpen;

/** Character offsets of lines `from`..`to` (1-based, inclusive) in a text: what a textarea selects. */
export function lineOffsets(text: string, from: number, to: number): [number, number] {
  let start = 0;
  for (let line = 1; line < from; line++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return [text.length, text.length];
    start = next + 1;
  }
  let end = start;
  for (let line = from; line <= to; line++) {
    const next = text.indexOf('\n', end);
    if (next < 0) return [start, text.length];
    end = line === to ? next : next + 1;
  }
  return [start, end];
}
