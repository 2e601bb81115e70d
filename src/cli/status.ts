// `svc status`: asks a running server for its health and runtime facts.
export async function status(baseUrl: string, json: boolean): Promise<number> {
  const url = baseUrl.replace(/\/+$/, '');
  try {
    const [health, runtime] = await Promise.all([
      fetchJson(`${url}/api/health`),
      fetchJson(`${url}/api/runtime`).catch(() => undefined),
    ]);
    if (json) {
      console.log(JSON.stringify({ health, runtime }, null, 2));
      return 0;
    }
    const h = health as { version: string; uptimeMs: number };
    console.log(`svc ${h.version} is running at ${url} (up ${Math.round(h.uptimeMs / 1000)} s)`);
    if (runtime) {
      const r = runtime as { pid: number; home: string; rssBytes: number; events: { sseListeners: number; wsListeners: number } };
      console.log(`pid ${r.pid}, data directory ${r.home}, memory ${Math.round(r.rssBytes / 1048576)} MB`);
      console.log(`event listeners: ${r.events.sseListeners} SSE, ${r.events.wsListeners} WebSocket`);
    }
    return 0;
  } catch (err) {
    console.error(`svc is not reachable at ${url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
}

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${url}`);
  return response.json();
}
