// Shared by the memory tests.
import { getJson } from '../../support/server.ts';

/** Polls until `check` returns a truthy value (never a fixed sleep). */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await check();
    if (last) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 500)})`);
}

/** The paths of the hits of GET /api/svc-memory/search. */
export async function searchPaths(url: string, q: string, extra = ''): Promise<string[]> {
  const { status, body } = await getJson(`${url}/api/svc-memory/search?q=${encodeURIComponent(q)}${extra}`);
  if (status !== 200) throw new Error(`search answered ${status}: ${JSON.stringify(body)}`);
  return body.hits.map((h: { path: string }) => h.path);
}

/** Waits until the server has compared the files with its index and watches the directory. */
export const watching = (url: string) =>
  until(async () => {
    const { body } = await getJson(`${url}/api/memory/status`);
    return body.watching && body.index.state === 'ready' && body;
  }, 'the memory index to be ready and watching');
