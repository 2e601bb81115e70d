// The model endpoints a user runs, and their probes. An endpoint's id is also how a run names its models
// (`<endpoint>/<model>`), so it may not be a provider's id. Its key is the user's: kept, sent to its server
// only, never returned.
import { AppError, badRequest, conflict, notFound } from '../../core/errors.ts';
import { ENDPOINT_PROVIDERS, MIN_AGENT_CONTEXT, type EndpointCreate, type EndpointPatch, type ModelEndpoint, type ProbeResult } from '../../protocol/models.ts';
import type { RunEndpoint } from '../../agent/providers/types.ts';
import { publicView, type EndpointsRepo, type StoredEndpoint } from './endpoints.repo.ts';
import { probeEndpoint, PROBE_TIMES, type ProbeTimes } from './probe.ts';

export interface EndpointsDeps {
  repo: EndpointsRepo;
  /** Provider ids: an endpoint may not take one (a model `claude/x` would be ambiguous). */
  providerIds: readonly string[];
  /** The environment an `apiKeyEnv` is read from (svc's, with the settings' agent.env over it). */
  env: () => NodeJS.ProcessEnv;
  /** Told every endpoint, its key resolved and its models known, after each change (Pi keeps them in its models.json). */
  onChange?: (endpoints: EndpointForRuns[]) => void;
  /** What names the endpoint's models now (the agent's model, the executive's, an employee's): it is not removed then. */
  usedBy?: (id: string) => string[];
  probeTimes?: ProbeTimes;
  now?: () => number;
}

/** An endpoint as a CLI's own configuration takes it: its key resolved, its models (its own list, else its probe's). */
export interface EndpointForRuns extends RunEndpoint {
  models: string[];
}

export class ModelEndpoints {
  /** Probes under way, by endpoint: a second probe of one waits for the first's answer instead of starting another. */
  private readonly probing = new Map<string, Promise<ProbeResult>>();

  constructor(private readonly deps: EndpointsDeps) {}

  list(): ModelEndpoint[] {
    return this.deps.repo.list().map(publicView);
  }

  get(id: string): ModelEndpoint {
    return publicView(this.stored(id));
  }

  add(body: EndpointCreate): ModelEndpoint {
    if (this.deps.providerIds.includes(body.id)) {
      throw badRequest('VALIDATION_FAILED', `'${body.id}' is a provider's id: give the endpoint another (its models are named <id>/<model>).`, { field: 'id' });
    }
    oneKey(body.apiKey, body.apiKeyEnv);
    const added = this.deps.repo.add({
      id: body.id,
      name: body.name,
      baseUrl: body.baseUrl,
      api: body.api,
      apiKey: body.apiKey ?? null,
      apiKeyEnv: body.apiKeyEnv ?? null,
      models: body.models ?? [],
      contextSize: body.contextSize ?? null,
      createdAt: (this.deps.now ?? Date.now)(),
    });
    if (!added) throw conflict('ENDPOINT_EXISTS', `An endpoint '${body.id}' exists already: change it (PATCH) or remove it first.`, { field: 'id' });
    this.changed();
    return this.get(body.id);
  }

  update(id: string, patch: EndpointPatch): ModelEndpoint {
    const current = this.stored(id);
    const pick = <K extends keyof EndpointPatch>(key: K, now: StoredEndpoint[K & keyof StoredEndpoint]) => (patch[key] === undefined ? now : patch[key]);
    const next = {
      id,
      name: patch.name ?? current.name,
      baseUrl: patch.baseUrl ?? current.baseUrl,
      api: patch.api ?? current.api,
      apiKey: pick('apiKey', current.apiKey) ?? null,
      apiKeyEnv: pick('apiKeyEnv', current.apiKeyEnv) ?? null,
      models: pick('models', current.models) ?? [],
      contextSize: pick('contextSize', current.contextSize) ?? null,
    };
    oneKey(next.apiKey ?? undefined, next.apiKeyEnv ?? undefined);
    // a probe of another address, API or key is not this endpoint's any more
    const sameServer = next.baseUrl === current.baseUrl && next.api === current.api && next.apiKey === current.apiKey && next.apiKeyEnv === current.apiKeyEnv;
    this.deps.repo.update(next, sameServer);
    this.changed();
    return this.get(id);
  }

  remove(id: string): void {
    this.stored(id);
    const users = this.deps.usedBy?.(id) ?? [];
    if (users.length) throw conflict('ENDPOINT_IN_USE', `The endpoint '${id}' is in use by ${users.join(', ')}: pick another model there first.`, { usedBy: users });
    if (!this.deps.repo.remove(id)) throw notFound('Model endpoint', id);
    this.changed();
  }

  /** Probes the endpoint's server (probe.ts) and keeps the result with it. */
  probe(id: string): Promise<ProbeResult> {
    const running = this.probing.get(id);
    if (running) return running;
    const e = this.stored(id);
    const work = probeEndpoint({ api: e.api, baseUrl: e.baseUrl, key: this.keyOf(e), models: e.models, contextSize: e.contextSize }, this.deps.probeTimes ?? PROBE_TIMES, this.deps.now)
      .then((result) => {
        // kept unless the endpoint was removed or pointed elsewhere meanwhile
        const now = this.deps.repo.get(id);
        if (now && now.baseUrl === e.baseUrl && now.api === e.api) {
          this.deps.repo.setProbe(id, result);
          this.changed();
        }
        return result;
      })
      .finally(() => this.probing.delete(id));
    this.probing.set(id, work);
    return work;
  }

  /**
   * The endpoints' models a provider can run, for its model picker (`<endpoint>/<model>`): the endpoint's own list,
   * else what its last probe found the server listing; the label says the endpoint and the probe's verdict.
   */
  modelOptions(provider: string): { id: string; label: string }[] {
    return this.deps.repo.list().flatMap((e) => {
      if (!ENDPOINT_PROVIDERS[e.api].includes(provider)) return [];
      const tokens = e.probe?.context.tokens ?? null;
      const verdict = e.probe === null ? ' (not probed)' : !e.probe.tools.ok ? ' (no tool calls)' : tokens !== null && tokens < MIN_AGENT_CONTEXT ? ` (only ${tokens} tokens of context)` : '';
      const models = e.models.length ? e.models : (e.probe?.models.ids ?? []);
      return models.map((model) => ({ id: `${e.id}/${model}`, label: `${model} · ${e.name}${verdict}` }));
    });
  }

  /** What a run on the endpoint needs (agent/run-request.ts), or undefined when there is none of that id. */
  forRun(id: string): (RunEndpoint & { toolsWork: boolean | null; unusable?: string }) | undefined {
    const e = this.deps.repo.get(id);
    if (!e) return undefined;
    const base = { id: e.id, name: e.name, baseUrl: e.baseUrl, api: e.api, toolsWork: e.probe ? e.probe.tools.ok : null };
    try {
      const key = this.keyOf(e);
      return { ...base, ...(key !== undefined ? { key } : {}) };
    } catch (err) {
      return { ...base, unusable: (err as Error).message };
    }
  }

  /** Every endpoint as a CLI's own configuration takes it; one whose key's variable is not set goes without a key. */
  forRuns(): EndpointForRuns[] {
    return this.deps.repo.list().map((e) => {
      let key: string | undefined;
      try {
        key = this.keyOf(e);
      } catch {
        key = undefined;
      }
      const models = e.models.length ? e.models : (e.probe?.models.ids ?? []);
      return { id: e.id, name: e.name, baseUrl: e.baseUrl, api: e.api, models, ...(key !== undefined ? { key } : {}) };
    });
  }

  private changed(): void {
    this.deps.onChange?.(this.forRuns());
  }

  /** The key a request to the endpoint's server carries: its own, or its variable's value. */
  private keyOf(e: StoredEndpoint): string | undefined {
    if (e.apiKey !== null) return e.apiKey;
    if (e.apiKeyEnv === null) return undefined;
    const value = this.deps.env()[e.apiKeyEnv];
    if (value === undefined) throw new AppError(409, 'INVALID_SETTING', `The endpoint's key is read from $${e.apiKeyEnv}, which is not set (in svc's environment or Settings › agent.env).`, { field: 'apiKeyEnv' });
    return value;
  }

  private stored(id: string): StoredEndpoint {
    const e = this.deps.repo.get(id);
    if (!e) throw notFound('Model endpoint', id);
    return e;
  }
}

function oneKey(apiKey: string | undefined | null, apiKeyEnv: string | undefined | null): void {
  if (apiKey && apiKeyEnv) throw badRequest('VALIDATION_FAILED', 'Give the key (apiKey) or the variable that holds it (apiKeyEnv), not both.', { field: 'apiKeyEnv' });
}
