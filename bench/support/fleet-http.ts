// What the fleet's benchmarks share: JSON calls to the hub and polling until something holds.
import { sleep } from './stats.ts';

/** A JSON call; a non-2xx answer throws with its body. */
export async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Polls `check` every `everyMs` until it gives a value (a throw counts as not yet). */
export async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(everyMs)) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}
