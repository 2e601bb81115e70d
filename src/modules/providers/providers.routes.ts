// Provider CLIs: what the service can drive (static registry), which are installed (cached
// background detection), and what is known about their usage limits. No handler here waits for
// a CLI: status answers from the cache, quota reads are bounded to a few hundred ms.
import { z } from 'zod';
import type { RouteModule } from './index.ts';
import type { ProviderId } from '../../agent/providers/types.ts';
import type { CliDetector } from '../../agent/detect.ts';
import type { QuotaReader } from '../../agent/quota.ts';
import { PROVIDERS } from '../../agent/registry.ts';
import { parseInput } from '../validate.ts';

export interface ActiveAgent {
  provider: ProviderId;
  model: string;
  effort: string;
}

export interface ProviderRouteDeps {
  detector: CliDetector;
  quota: QuotaReader;
  /** The provider/model/effort runs use now (settings `agent.*`). */
  getActive: () => ActiveAgent;
}

const noQuery = z.strictObject({});

// `?refresh`, `?refresh=1`, `?refresh=true` start a re-detection; `0`/`false` (or nothing) do not.
const statusQuery = z.strictObject({
  refresh: z
    .enum(['', '1', 'true', '0', 'false'], { message: "use refresh=1 (or 'true') to re-detect" })
    .optional()
    .transform((v) => v === '' || v === '1' || v === 'true'),
});

export function providerRoutes(deps: ProviderRouteDeps): RouteModule {
  return (app) => {
    app.get('/api/cli-registry', async (request) => {
      parseInput(noQuery, request.query, 'query');
      const { provider, model, effort } = deps.getActive();
      return { providers: PROVIDERS, active: { provider, model, effort } };
    });

    app.get('/api/cli-status', async (request) => {
      const query = parseInput(statusQuery, request.query, 'query');
      if (query.refresh) deps.detector.refresh();
      const providers = deps.detector.snapshot();
      return { providers, refreshing: deps.detector.refreshing };
    });

    app.get('/api/quota', async (request) => {
      parseInput(noQuery, request.query, 'query');
      return { providers: await deps.quota.read() };
    });
  };
}
