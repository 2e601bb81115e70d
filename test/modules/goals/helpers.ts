// Shared by the goals tests: the bus events a server published, and waiting on a condition.
import type { CoreServer } from '../../../src/servers/core.ts';

export interface Seen {
  name: string;
  payload: any;
}

/** Every event the server publishes from now on. */
export function record(app: CoreServer): Seen[] {
  const seen: Seen[] = [];
  app.services.bus.subscribe((event) => {
    seen.push({ name: event.name, payload: event.payload });
  });
  return seen;
}

/** Polls `check` until it returns a truthy value; fails after `timeoutMs`, saying `what`. */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const names = (seen: Seen[]) => seen.map((s) => s.name);
