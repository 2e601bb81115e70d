// Repository of the quota reader's observations: one JSON record per provider.
import type { Db } from '../store/db.ts';
import type { ObservationStore, Observed } from './quota.ts';
import type { ProviderId } from './providers/registry.ts';

export class QuotaObservationRepo implements ObservationStore {
  constructor(private readonly db: Db) {}

  load(): [ProviderId, Observed][] {
    const rows = this.db.prepare('SELECT provider, observed FROM quota_observations').all() as { provider: ProviderId; observed: string }[];
    return rows.map((row) => [row.provider, JSON.parse(row.observed) as Observed]);
  }

  save(provider: ProviderId, observed: Observed): void {
    this.db
      .prepare('INSERT INTO quota_observations (provider, observed, updated_at) VALUES (?, ?, ?) ON CONFLICT(provider) DO UPDATE SET observed = excluded.observed, updated_at = excluded.updated_at')
      .run(provider, JSON.stringify(observed), Date.now());
  }
}
