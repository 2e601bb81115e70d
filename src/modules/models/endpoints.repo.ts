// The model endpoints in SQLite (migration 017). The key is stored, never read back out of this module but by
// keyOf (what a probe or a run sends the server).
import type { Db } from '../../store/db.ts';
import type { EndpointApi, ModelEndpoint, ProbeResult } from '../../protocol/models.ts';

interface Row {
  id: string;
  name: string;
  base_url: string;
  api: EndpointApi;
  api_key: string | null;
  api_key_env: string | null;
  models: string;
  context_size: number | null;
  created_at: number;
  probe: string | null;
}

export interface StoredEndpoint {
  id: string;
  name: string;
  baseUrl: string;
  api: EndpointApi;
  apiKey: string | null;
  apiKeyEnv: string | null;
  models: string[];
  contextSize: number | null;
  createdAt: number;
  probe: ProbeResult | null;
}

const toEndpoint = (r: Row): StoredEndpoint => ({
  id: r.id,
  name: r.name,
  baseUrl: r.base_url,
  api: r.api,
  apiKey: r.api_key,
  apiKeyEnv: r.api_key_env,
  models: JSON.parse(r.models) as string[],
  contextSize: r.context_size,
  createdAt: r.created_at,
  probe: r.probe === null ? null : (JSON.parse(r.probe) as ProbeResult),
});

/** What the API shows of an endpoint: everything but its key. */
export const publicView = ({ apiKey, ...rest }: StoredEndpoint): ModelEndpoint => ({ ...rest, hasKey: apiKey !== null });

export class EndpointsRepo {
  constructor(private readonly db: Db) {}

  list(): StoredEndpoint[] {
    return (this.db.prepare('SELECT * FROM model_endpoints ORDER BY created_at, id').all() as Row[]).map(toEndpoint);
  }

  get(id: string): StoredEndpoint | undefined {
    const row = this.db.prepare('SELECT * FROM model_endpoints WHERE id = ?').get(id) as Row | undefined;
    return row && toEndpoint(row);
  }

  /** Adds it; false when the id is taken. */
  add(e: Omit<StoredEndpoint, 'probe'>): boolean {
    const result = this.db
      .prepare('INSERT OR IGNORE INTO model_endpoints (id, name, base_url, api, api_key, api_key_env, models, context_size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(e.id, e.name, e.baseUrl, e.api, e.apiKey, e.apiKeyEnv, JSON.stringify(e.models), e.contextSize, e.createdAt);
    return result.changes === 1;
  }

  /** Replaces its fields; a change of where it is or what it speaks drops the last probe, which was of another server. */
  update(e: Omit<StoredEndpoint, 'probe' | 'createdAt'>, keepProbe: boolean): void {
    this.db
      .prepare(`UPDATE model_endpoints SET name = ?, base_url = ?, api = ?, api_key = ?, api_key_env = ?, models = ?, context_size = ?${keepProbe ? '' : ', probe = NULL'} WHERE id = ?`)
      .run(e.name, e.baseUrl, e.api, e.apiKey, e.apiKeyEnv, JSON.stringify(e.models), e.contextSize, e.id);
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM model_endpoints WHERE id = ?').run(id).changes === 1;
  }

  setProbe(id: string, probe: ProbeResult): void {
    this.db.prepare('UPDATE model_endpoints SET probe = ? WHERE id = ?').run(JSON.stringify(probe), id);
  }
}
