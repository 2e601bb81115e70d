// `svc memory …`: the memory store of a running server over HTTP (search, context, save, read, list, status,
// reindex). People use it, and so does the agent from its shell. `--json` prints the server's answer as is.
import {
  describeMemoryStatus,
  type MemoryContext,
  type MemoryFile,
  type MemoryRead,
  type MemoryReindex,
  type MemorySaved,
  type MemorySearch,
  type MemoryStatus,
} from '../protocol/memory.ts';
import { runCall } from './api-call.ts';
import type { ServerTarget } from './target.ts';


export type MemoryCall =
  | { kind: 'search'; query: string; limit?: number; type?: string }
  | { kind: 'context'; query: string; budget?: number }
  | { kind: 'save'; path: string; content: string; mode: string }
  | { kind: 'read'; path: string; lines?: string }
  | { kind: 'list'; type?: string }
  | { kind: 'status' }
  | { kind: 'reindex' };

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);

function memoryRequest(call: MemoryCall): { method: 'GET' | 'POST'; path: string; body?: unknown } {
  const q = (params: Record<string, string | number | undefined>) =>
    new URLSearchParams(Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined).map(([k, v]) => [k, String(v)])).toString();
  switch (call.kind) {
    case 'search':
      return { method: 'GET', path: `/api/svc-memory/search?${q({ q: call.query, limit: call.limit, kind: call.type })}` };
    case 'context':
      return { method: 'GET', path: `/api/svc-memory/context?${q({ q: call.query, budget: call.budget })}` };
    case 'save':
      return { method: 'POST', path: '/api/svc-memory/save', body: { path: call.path, content: call.content, mode: call.mode } };
    case 'read':
      return { method: 'GET', path: `/api/svc-memory/read?${q({ path: call.path, lines: call.lines })}` };
    case 'list':
      return { method: 'GET', path: `/api/svc-memory/list?${q({ kind: call.type })}` };
    case 'status':
      return { method: 'GET', path: '/api/memory/status' };
    case 'reindex':
      return { method: 'POST', path: '/api/memory/reindex', body: {} };
  }
}

/** A snippet with its matches in bold (on a terminal). */
function highlighted(hit: MemorySearch['hits'][number]): string {
  let out = '';
  let at = 0;
  for (const mark of hit.marks) {
    out += hit.snippet.slice(at, mark.start) + bold(hit.snippet.slice(mark.start, mark.end));
    at = mark.end;
  }
  return out + hit.snippet.slice(at);
}

function render(call: MemoryCall, answer: unknown): string {
  switch (call.kind) {
    case 'search': {
      const { hits } = answer as MemorySearch;
      if (!hits.length) return `nothing in memory matches "${call.query}"`;
      return hits
        .map((h) => `${bold(`${h.path}:${h.startLine}-${h.endLine}`)} ${dim(`${h.kind}${h.heading ? ` · ${h.heading}` : ''}`)}\n  ${highlighted(h)}`)
        .join('\n');
    }
    case 'context':
      return (answer as MemoryContext).text || 'memory has nothing for this';
    case 'save': {
      const s = answer as MemorySaved;
      return `${s.created ? 'created' : 'saved'} ${s.path} (${s.kind}, ${s.mode}, ${s.chunks} sections)`;
    }
    case 'read':
      return (answer as MemoryRead).content;
    case 'list': {
      const { files } = answer as { files: MemoryFile[] };
      if (!files.length) return 'memory holds no files yet';
      return files.map((f) => `${f.kind.padEnd(9)} ${f.path} ${dim(`(${f.chunks} sections, ${f.size} bytes)`)}`).join('\n');
    }
    case 'status':
      return describeMemoryStatus(answer as MemoryStatus);
    case 'reindex': {
      const r = answer as MemoryReindex;
      return `${r.joined ? 'joined the running reindex: ' : ''}${r.files} files, ${r.chunks} sections re-read in ${Math.round(r.durationMs)} ms`;
    }
  }
}

/** Runs one call against the server; returns the exit code (0 ok, 1 error). */
export function memoryCommand(call: MemoryCall, target: ServerTarget, json: boolean): Promise<number> {
  return runCall({ name: `memory ${call.kind}`, ...memoryRequest(call), render: (answer) => render(call, answer) }, target, json);
}
