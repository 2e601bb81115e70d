// `svc status`: whether a server runs, its runtime facts, and which provider CLIs are ready (and
// what to do about those that are not).
import type { MemberStatus } from '../protocol/fleet.ts';
import { requestText } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';
import { formatSize } from '../protocol/media-limits.ts';
import type { DiskReport } from '../protocol/disk.ts';

interface Health {
  version: string;
  uptimeMs: number;
}

interface ProviderStatus {
  state: 'detecting' | 'ready';
  readiness?: { state: string; summary: string; fix?: string };
  version?: string | null;
}

export async function status(target: ServerTarget, json: boolean): Promise<number> {
  const { url } = target;
  const get = (path: string) => fetchJson(`${url}${path}`, authHeaders(target), target.pin);
  try {
    // all at once, the command's time being the slowest answer, not their sum; /api/runtime carries
    // what /api/health does, so health is asked only of a server that refuses runtime (a remote
    // one without the token)
    const [runtime, disk, providers] = await Promise.all([
      get('/api/runtime').catch(unlessUnreachable),
      get('/api/disk').catch(unlessUnreachable),
      settledProviders(get),
    ]);
    const health = runtime ? healthOf(runtime as Health) : await get('/api/health');
    if (json) {
      console.log(JSON.stringify({ health, runtime, disk, providers }, null, 2));
      return 0;
    }
    const h = health as Health;
    console.log(`svc ${h.version} is running at ${url} (up ${Math.round(h.uptimeMs / 1000)} s)`);
    if (runtime) {
      const r = runtime as { pid: number; home: string; service?: string | null; fleet?: MemberStatus | null; rssBytes: number; events: { sseListeners: number; wsListeners: number } };
      console.log(`pid ${r.pid}, data directory ${r.home}, memory ${Math.round(r.rssBytes / 1048576)} MB`);
      console.log(r.service ? `runs as a service (${r.service}): svc service status|logs` : 'not running as a service (svc service install keeps it running)');
      if (r.fleet) console.log(`fleet: machine '${r.fleet.name}' (${r.fleet.machineId}) of the hub at ${r.fleet.hub}: ${r.fleet.state}`);
      console.log(`event listeners: ${r.events.sseListeners} SSE, ${r.events.wsListeners} WebSocket`);
    }
    if (disk) for (const line of diskLines(disk as DiskReport)) console.log(line);
    if (providers) {
      console.log('providers:');
      for (const [id, p] of Object.entries(providers)) {
        const mark = p.readiness?.state === 'ready' ? 'ok ' : p.state === 'detecting' ? '…  ' : '-  ';
        console.log(`  ${mark} ${id.padEnd(9)} ${p.readiness?.summary ?? 'still checking…'}${p.version ? ` (${p.version})` : ''}`);
      }
    }
    return 0;
  } catch (err) {
    console.error(`svc is not reachable at ${url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
}

/** The home's use by part (the parts that hold anything), and trace retention's bounds and last pass. */
export function diskLines(disk: DiskReport): string[] {
  const t = disk.traces;
  const bound = [t.maxBytes ? `at most ${formatSize(t.maxBytes)}` : 'no size limit', t.maxAgeDays ? `${t.maxAgeDays} days` : 'no age limit'].join(', ');
  const last = t.lastPrune ? `last removed ${t.lastPrune.count} (${formatSize(t.lastPrune.bytes)}) at ${new Date(t.lastPrune.at).toISOString()}` : 'none removed yet';
  const notes: Record<string, string> = {
    database: `audit log ${formatSize(disk.database.auditBytes)}, ${disk.database.auditEntries} entries`,
    traces: `${t.count} traces, ${t.pinned} pinned; ${bound}; ${last}`,
  };
  return [
    `disk use: ${formatSize(disk.totalBytes)}`,
    ...disk.parts.filter((p) => p.bytes > 0 || p.part === 'traces').map((p) => `  ${p.part.padEnd(9)} ${formatSize(p.bytes).padStart(9)}${notes[p.part] ? `  (${notes[p.part]})` : ''}`),
  ];
}

/** GET /api/health's answer, from the runtime facts that include it. */
const healthOf = ({ version, uptimeMs }: Health) => ({ ok: true as const, version, uptimeMs });

/** An answer the server refused counts as none; a server that cannot be reached is the command's error. */
function unlessUnreachable(err: unknown): undefined {
  if (err instanceof HttpError) return undefined;
  throw err;
}

class HttpError extends Error {}

/** The provider detection, waited for a few seconds when the server has only just started it. */
async function settledProviders(get: (path: string) => Promise<unknown>): Promise<Record<string, ProviderStatus> | undefined> {
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 250))) {
    const answer = (await get('/api/cli-status').catch(unlessUnreachable)) as { providers: Record<string, ProviderStatus>; refreshing: boolean } | undefined;
    if (!answer) return undefined;
    if (!answer.refreshing || Date.now() - started > 8000) return answer.providers;
  }
}

async function fetchJson(url: string, headers: Record<string, string>, pin: string | undefined): Promise<unknown> {
  const response = await requestText(url, { headers, timeoutMs: 3000, pin });
  if (!response.ok) throw new HttpError(`HTTP ${response.status} from ${url}`);
  return JSON.parse(response.text);
}
