// Provider CLIs: what the service can drive (static registry), which are installed (cached
// background detection), and what is known about their usage limits. No handler here waits for
// a CLI: status answers from the cache, quota reads are bounded to a few hundred ms.
import { z } from 'zod';
import { routeGroup, route } from '../../http/routes.ts';
import { PROVIDERS, PROVIDER_IDS } from '../../agent/providers/registry.ts';
import type { CliDetector } from '../../agent/detect.ts';
import type { QuotaReader } from '../../agent/quota.ts';
import { ActiveAgentSchema, CliStatusSchema, ProviderInfoSchema, QuotaInfoSchema, type ActiveAgent } from '../../protocol/providers.ts';

export interface ProviderRouteDeps {
  detector: CliDetector;
  quota: QuotaReader;
  /** The provider/model/effort runs use now (settings `agent.*`). */
  active: () => ActiveAgent;
  /** Models registered at run time for a provider (Pi's profiles), offered after its built-in ones. */
  extraModels?: (provider: string) => { id: string; label: string }[];
}

const noQuery = z.strictObject({});

// `?refresh`, `?refresh=1`, `?refresh=true` start a re-detection; `0`/`false` (or nothing) do not.
const statusQuery = z.strictObject({
  refresh: z
    .enum(['', '1', 'true', '0', 'false'], { message: "use refresh=1 (or 'true') to re-detect" })
    .optional()
    .transform((v) => v === '' || v === '1' || v === 'true'),
});

const byProvider = <S extends z.ZodType>(schema: S) => z.partialRecord(z.enum(PROVIDER_IDS), schema);

export const providerRoutes = routeGroup('providers', ({ detector, quota, active, extraModels }: ProviderRouteDeps) => {
  return [
    route({
      method: 'GET',
      url: '/api/cli-registry',
      summary: 'The provider CLIs svc can drive: models and efforts to offer, how to install each, what each supports.',
      query: noQuery,
      response: z.object({ providers: z.array(ProviderInfoSchema), active: ActiveAgentSchema }),
      handler: () => {
        const { provider, model, effort } = active();
        const providers = PROVIDERS.map((p) => {
          const extra = extraModels?.(p.id) ?? [];
          return extra.length ? { ...p, models: [...p.models, ...extra] } : p;
        });
        return { providers, active: { provider, model, effort } };
      },
    }),
    route({
      method: 'GET',
      url: '/api/cli-status',
      summary: 'Which provider CLIs are installed, where and which version (detected in the background; `refresh=1` re-detects).',
      query: statusQuery,
      response: z.object({ providers: byProvider(CliStatusSchema), refreshing: z.boolean() }),
      handler: ({ query }) => {
        if (query.refresh) detector.refresh();
        return { providers: detector.snapshot(), refreshing: detector.refreshing };
      },
    }),
    route({
      method: 'GET',
      url: '/api/quota',
      summary: 'What is known of each provider\'s usage limits, without calling anyone (Codex rollouts, observed rate limits).',
      query: noQuery,
      response: z.object({ providers: byProvider(QuotaInfoSchema) }),
      handler: async () => ({ providers: await quota.read() }),
    }),
  ];
});
