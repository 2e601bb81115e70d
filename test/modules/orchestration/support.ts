// Shared by the orchestration tests: a server on the fake CLIs, JSON calls with an optional run
// credential, and waiting on conditions.
import type { BusEvent } from '../../../src/events/bus.ts';
import type { TestServer } from '../../support/server.ts';

export async function call(server: { url: string }, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every bus event the server publishes from now on. */
export function record(server: TestServer): BusEvent[] {
  const events: BusEvent[] = [];
  server.app.services.bus.subscribe((event) => void events.push(event));
  return events;
}

export const agentHeader = (token: string) => ({ 'x-svc-run-token': token });
