// The dashboard page's calls to its manager (same origin) and the types it reads, from src/protocol.
import type { BoardItem, DashboardSettingsView, Instance, Latest, Note, ScheduleJob, ScheduleRun } from '../../src/protocol/dashboard.ts';

import type { FleetStatus, Invite, Machine, WorkItem } from '../../src/protocol/fleet.ts';

export type { BoardItem, DashboardSettingsView, FleetStatus, Instance, Invite, Latest, Machine, Note, ScheduleJob, ScheduleRun, WorkItem };

/** An error answer of the manager: its code, and the field a 400 names (the form shows it there). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      // the console's mark: with the browser's own fetch metadata it tells the manager a person acts here
      headers: { 'x-svc-console': '1', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
  } catch {
    throw new ApiError('The dashboard server did not answer. Is `svc dashboard serve` still running?', 0, 'NETWORK');
  }
  if (response.status === 204) return undefined as T;
  const body = (await response.json().catch(() => ({}))) as T & { message?: string; error?: string; field?: string };
  if (!response.ok) throw new ApiError(body.message ?? `HTTP ${response.status}`, response.status, body.error ?? 'HTTP', typeof body.field === 'string' ? body.field : undefined);
  return body;
}

/** The message of any error, for a toast. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface MemoryHit {
  instanceId: string;
  instanceLabel: string;
  path: string;
  kind: string;
  heading: string;
  snippet: string;
  score: number;
}

export interface MemorySearch {
  query: string;
  hits: MemoryHit[];
  /** How many (online) instances were asked. */
  searched: number;
  errors: { instanceId: string; message: string }[];
}

/** One event of the manager's stream (the core's wire format). */
export interface ManagerEvent {
  eventId: string;
  event: string;
  ts: number;
  [field: string]: unknown;
}
