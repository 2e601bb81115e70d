// HTTP access to the server: JSON calls with the one error shape `{error, message}`, and the
// newline-delimited JSON streams of POST /api/message and POST /api/command.
//
// Trust model (src/http/guard.ts): on this machine (loopback) no token is needed. A remote browser
// needs the bearer token: it is taken from `#token=…` in the address once (then removed from the
// address bar) or typed in when the server answers 401, and kept in localStorage.

import type { ChatSession, Message, MessagePage, SearchHit } from '../../src/protocol/chat.ts';
import type { UploadedFile } from '../../src/protocol/media.ts';
import type { ActiveAgent, CliStatus, ProviderInfo } from '../../src/protocol/providers.ts';
import type { RuntimeStatus } from '../../src/protocol/runs.ts';
import type { StreamLine } from '../../src/protocol/stream-lines.ts';
import { at } from './base.ts';

export type { ChatSession, Message, MessagePage, ProviderInfo, StreamLine };
/** A search result: an excerpt of a message, HTML-escaped, with <mark> around the matches. */
export type SearchResult = SearchHit;
/** What the UI shows of one provider CLI's installation. */
export type CliState = CliStatus;

const TOKEN_KEY = 'svc.token';

let token: string | undefined;
const authListeners = new Set<() => void>();

function readInitialToken(): string | undefined {
  try {
    if (location.hash.startsWith('#token=')) {
      const value = decodeURIComponent(location.hash.slice('#token='.length));
      localStorage.setItem(TOKEN_KEY, value);
      history.replaceState(null, '', location.pathname + location.search);
      return value;
    }
    return localStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
token = readInitialToken();

export const getToken = () => token;

export function setToken(value: string | undefined): void {
  token = value || undefined;
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage unavailable: keep it for this page only
  }
}

/** Called when the server answered 401: the UI asks for a token. */
export function onAuthRequired(listener: () => void): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The message of a failure, for the page (an ApiError's is the server's own sentence). */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function headers(contentType?: string): HeadersInit {
  const h: Record<string, string> = { accept: 'application/json' };
  if (contentType) h['content-type'] = contentType;
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function failure(response: Response): Promise<ApiError> {
  let body: Record<string, unknown> | undefined;
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  if (response.status === 401) authListeners.forEach((l) => l());
  const code = typeof body?.error === 'string' ? body.error : `HTTP_${response.status}`;
  const message = typeof body?.message === 'string' ? body.message : `${response.status} ${response.statusText}`.trim();
  return new ApiError(response.status, code, message, body);
}

/** `rawType`: the Content-Type of a Blob body (default application/octet-stream, what POST /api/upload wants). */
export async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal, rawType = 'application/octet-stream'): Promise<T> {
  let response: Response;
  try {
    response = await fetch(at(path), {
      method,
      // a file goes as raw bytes (POST /api/upload); everything else as JSON
      headers: headers(body instanceof Blob ? rawType : body === undefined ? undefined : 'application/json'),
      body: body === undefined || body instanceof Blob ? body : JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached.');
  }
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal);
export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
export const del = <T>(path: string) => request<T>('DELETE', path);

/**
 * POSTs and reads the NDJSON answer line by line. Resolves with the `done` line (or undefined when
 * the stream ended without one). HTTP errors reject with ApiError before any line is read.
 */
export async function postStream(path: string, body: unknown, onLine: (line: StreamLine) => void, signal?: AbortSignal): Promise<StreamLine | undefined> {
  let response: Response;
  try {
    response = await fetch(at(path), { method: 'POST', headers: headers('application/json'), body: JSON.stringify(body), signal, cache: 'no-store' });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached.');
  }
  if (!response.ok) throw await failure(response);
  if (!response.body) return undefined;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let done: StreamLine | undefined;
  const take = (line: string) => {
    if (!line.trim()) return;
    try {
      const parsed = JSON.parse(line) as StreamLine;
      if (parsed.type === 'done') done = parsed;
      onLine(parsed);
    } catch {
      // a line that is not JSON: skip it
    }
  };
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    buffer += value;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      take(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
    }
  }
  take(buffer);
  return done;
}

// ── payload types of the routes the UI uses (the shared ones are in src/protocol) ────────

export interface CommandInfo {
  name: string;
  usage?: string;
  description?: string;
}

export interface CliRegistry {
  providers: ProviderInfo[];
  active: ActiveAgent;
}

export interface CliStatusAnswer {
  providers: Partial<Record<string, CliState>>;
  refreshing?: boolean;
}

export const api = {
  messages(sessionId: string, opts: { before?: number; after?: number; limit?: number } = {}) {
    const q = new URLSearchParams({ sessionId, limit: String(opts.limit ?? 50) });
    if (opts.before !== undefined) q.set('before', String(opts.before));
    if (opts.after !== undefined) q.set('after', String(opts.after));
    return get<MessagePage>(`/api/messages?${q}`);
  },
  search: (q: string, signal?: AbortSignal) =>
    get<{ results: SearchResult[] }>(`/api/messages/search?${new URLSearchParams({ q, sessionId: 'all', limit: '30' })}`, signal),
  sessions: () => get<{ activeId: string; sessions: ChatSession[] }>('/api/chat-sessions'),
  createSession: (title?: string) => post<{ session: ChatSession }>('/api/chat-sessions', title ? { title } : {}),
  switchSession: (id: string) => post<{ session: ChatSession }>(`/api/chat-sessions/${encodeURIComponent(id)}/switch`, {}),
  renameSession: (id: string, title: string) => patch<{ session: ChatSession }>(`/api/chat-sessions/${encodeURIComponent(id)}`, { title }),
  /** Deletes a session and its messages; `activeId` is the session active afterwards. */
  deleteSession: (id: string) => del<{ deleted: string; activeId: string }>(`/api/chat-sessions/${encodeURIComponent(id)}`),
  runtime: () => get<{ agent?: RuntimeStatus }>('/api/runtime'),
  session: () => get<{ sessionId: string; title: string; provider: string; model: string; effort: string }>('/api/session'),
  settings: () => get<Record<string, unknown>>('/api/settings'),
  saveSettings: (patch: unknown) => put<Record<string, unknown>>('/api/settings', patch),
  registry: () => get<CliRegistry>('/api/cli-registry'),
  cliStatus: (refresh = false) => get<CliStatusAnswer>(`/api/cli-status${refresh ? '?refresh=1' : ''}`),
  commands: () => get<{ commands: CommandInfo[] }>('/api/commands'),
  /** Always sent as application/octet-stream: the server refuses the types a cross-site form could send. */
  upload: (file: File) => post<UploadedFile>(`/api/upload?${new URLSearchParams({ filename: file.name || 'pasted-file' })}`, file),
  /** A recording to text (POST /api/voice), sent with its own audio type. */
  voice: (audio: Blob) => request<{ text: string; engine: string; durationMs: number }>('POST', '/api/voice', audio, undefined, audio.type || 'audio/webm'),
  stop: () => post<unknown>('/api/stop', {}),
  clear: () => post<unknown>('/api/clear', {}),
  resetSession: () => post<unknown>('/api/session/reset', {}),
};
