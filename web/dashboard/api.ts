// The dashboard page's calls to its manager (same origin) and the types it reads, from src/protocol.
import type { BoardItem, DashboardSettingsView, Instance, Latest, Note, ScheduleJob } from '../../src/protocol/dashboard.ts';

export type { BoardItem, DashboardSettingsView, Instance, Latest, Note, ScheduleJob };

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    // the console's mark: with the browser's own fetch metadata it tells the manager a person acts here
    headers: { 'x-svc-console': '1', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  if (response.status === 204) return undefined as T;
  const body = (await response.json()) as T & { message?: string };
  if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
  return body;
}

export interface MemoryHit {
  instanceId: string;
  instanceLabel: string;
  path: string;
  heading: string;
  snippet: string;
}

/** One event of the manager's stream (the core's wire format). */
export interface ManagerEvent {
  eventId: string;
  event: string;
  ts: number;
  [field: string]: unknown;
}
