// Pi's model endpoints, kept in svc's own Pi configuration directory (<home>/pi-agent, given to pi
// runs as PI_CODING_AGENT_DIR; the user's ~/.pi is never read or written): its models.json holds one
// Pi provider per profile. Registering discovers the endpoint's models first (GET <endpoint>/models)
// and saves nothing when that fails.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import { REDACTED } from '../../protocol/settings.ts';
import { ownValue } from '../../core/own.ts';
import type { EndpointApi } from '../../protocol/models-text.ts';

export const PI_MODES = ['openai', 'anthropic', 'google'] as const;
export type PiMode = (typeof PI_MODES)[number];

/** Pi's `api` for each mode (the wire protocol its provider speaks). */
const API_OF: Record<PiMode, string> = { openai: 'openai-completions', anthropic: 'anthropic-messages', google: 'google-generative-ai' };
const MODE_OF = Object.fromEntries(Object.entries(API_OF).map(([mode, api]) => [api, mode])) as Record<string, PiMode>;

export interface PiProfileInput {
  id: string;
  label: string;
  mode: PiMode;
  endpoint: string;
  model?: string;
  apiKey?: string;
}

export interface PiProfile {
  id: string;
  label: string;
  mode: PiMode;
  endpoint: string;
  /** The model picked by default (`<id>/<model>` in agent.model). */
  model?: string;
  /** `***` when set. */
  apiKey: string;
  models: string[];
}

interface ProviderEntry {
  name: string;
  baseUrl: string;
  api: string;
  apiKey?: string;
  models: { id: string; name: string }[];
  /** svc's own fields (Pi ignores unknown keys of a provider). */
  svcDefaultModel?: string;
  /** A model endpoint of svc's (modules/models), written here so Pi runs reach it; not a profile. */
  svcEndpoint?: true;
}

/** What a model endpoint gives Pi (modules/models: its key resolved, its models known). */
export interface PiEndpoint {
  id: string;
  name: string;
  baseUrl: string;
  api: EndpointApi;
  key?: string;
  models: string[];
}

/** Pi's `api` for each endpoint API; Anthropic's clients take the server's root. */
const PI_API: Record<EndpointApi, string> = { 'openai-chat': 'openai-completions', 'openai-responses': 'openai-responses', anthropic: 'anthropic-messages' };

export const DISCOVERY_TIMEOUT_MS = 10_000;

export class PiProfiles {
  constructor(private readonly dir: string, private readonly fetchImpl: typeof fetch = fetch) {}

  get modelsFile(): string {
    return join(this.dir, 'models.json');
  }

  list(): PiProfile[] {
    return Object.entries(this.read()).filter(([, p]) => !p.svcEndpoint).map(([id, p]) => ({
      id,
      label: p.name,
      mode: ownValue(MODE_OF, p.api) ?? 'openai',
      endpoint: p.baseUrl,
      ...(p.svcDefaultModel ? { model: p.svcDefaultModel } : {}),
      apiKey: p.apiKey ? REDACTED : '',
      models: p.models.map((m) => m.id),
    }));
  }

  async register(input: PiProfileInput): Promise<{ profile: PiProfile; models: string[] }> {
    const endpoint = input.endpoint.replace(/\/+$/, '');
    if (!/^https?:\/\//.test(endpoint)) throw badRequest('INVALID_REQUEST', 'endpoint: an http:// or https:// URL of the API (e.g. http://127.0.0.1:11434/v1).');
    const models = await this.discover(input.mode, endpoint, input.apiKey);
    if (input.model && !models.includes(input.model)) throw badRequest('INVALID_REQUEST', `model '${input.model}' is not one of the endpoint's models: ${models.slice(0, 20).join(', ')}.`);
    const providers = this.read();
    const previous = providers[input.id];
    providers[input.id] = {
      name: input.label,
      baseUrl: endpoint,
      api: API_OF[input.mode],
      // Sending the masked value back keeps the stored key.
      ...((input.apiKey === REDACTED ? previous?.apiKey : input.apiKey) ? { apiKey: input.apiKey === REDACTED ? previous!.apiKey : input.apiKey } : {}),
      models: models.map((id) => ({ id, name: id })),
      ...(input.model ? { svcDefaultModel: input.model } : {}),
    };
    this.write(providers);
    this.keepDefault(providers, input.id);
    return { profile: this.list().find((p) => p.id === input.id)!, models };
  }

  remove(id: string): void {
    const providers = this.read();
    if (!providers[id]) throw notFound('Pi profile', id);
    delete providers[id];
    this.write(providers);
    this.keepDefault(providers);
  }

  /**
   * Writes svc's model endpoints into Pi's models.json as providers of their ids (and drops those no longer there),
   * so a Pi run names `<endpoint>/<model>` as it names a profile's model. A profile of the same id keeps its place:
   * the user registered it for Pi itself. svc's own directory, never the user's ~/.pi.
   */
  syncEndpoints(endpoints: readonly PiEndpoint[]): void {
    const providers = this.read();
    const before = JSON.stringify(providers);
    for (const [id, p] of Object.entries(providers)) if (p.svcEndpoint) delete providers[id];
    for (const e of endpoints) {
      if (providers[e.id] || !e.models.length) continue;
      providers[e.id] = {
        name: e.name,
        baseUrl: e.api === 'anthropic' ? e.baseUrl.replace(/\/v1$/, '') : e.baseUrl,
        api: PI_API[e.api],
        // Pi's SDKs want a key even where the server needs none
        apiKey: e.key ?? 'none',
        models: e.models.map((id) => ({ id, name: id })),
        svcEndpoint: true,
      };
    }
    if (JSON.stringify(providers) !== before) this.write(providers);
  }

  /** Each profile's models as the picker offers them: `<profile>/<model>`. */
  modelOptions(): { id: string; label: string }[] {
    return this.list().flatMap((p) => p.models.map((m) => ({ id: `${p.id}/${m}`, label: `${p.label} · ${m}` })));
  }

  /** Every registered API key (redacted from traces). */
  secretValues(): string[] {
    return Object.values(this.read()).flatMap((p) => (p.apiKey && p.apiKey !== 'none' ? [p.apiKey] : []));
  }

  private async discover(mode: PiMode, endpoint: string, apiKey: string | undefined): Promise<string[]> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const key = apiKey === REDACTED ? undefined : apiKey;
    if (key && mode === 'openai') headers.authorization = `Bearer ${key}`;
    if (key && mode === 'anthropic') headers['x-api-key'] = key;
    if (key && mode === 'google') headers['x-goog-api-key'] = key;
    if (mode === 'anthropic') headers['anthropic-version'] = '2023-06-01';
    let body: unknown;
    try {
      const res = await this.fetchImpl(`${endpoint}/models`, { headers, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`it answered HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      throw new AppError(502, 'PI_DISCOVERY_FAILED', `Could not list the models of ${endpoint}/models (${(err as Error).message}). Check the endpoint and key; nothing was saved.`);
    }
    const list = (body as { data?: { id?: unknown }[]; models?: { name?: unknown }[] }) ?? {};
    const ids = [
      ...(Array.isArray(list.data) ? list.data.map((m) => m?.id) : []),
      ...(Array.isArray(list.models) ? list.models.map((m) => (typeof m?.name === 'string' ? m.name.replace(/^models\//, '') : undefined)) : []),
    ].filter((id): id is string => typeof id === 'string' && id.length > 0);
    if (!ids.length) throw new AppError(502, 'PI_DISCOVERY_FAILED', `${endpoint}/models listed no models. Check the endpoint; nothing was saved.`);
    return ids;
  }

  get settingsFile(): string {
    return join(this.dir, 'settings.json');
  }

  /**
   * Pi falls back to its own default provider (google) when a run names no model, which fails
   * without a Google key. So Pi's settings.json names a registered profile as its default: the one
   * just registered when the default is not a profile any more, else the first left. Other keys
   * in the file (retries, themes) are kept.
   */
  private keepDefault(providers: Record<string, ProviderEntry>, preferred?: string): void {
    const settings = existsSync(this.settingsFile) ? (JSON.parse(readFileSync(this.settingsFile, 'utf8')) as Record<string, unknown>) : {};
    const current = typeof settings.defaultProvider === 'string' ? settings.defaultProvider : undefined;
    if (current && providers[current]) return;
    const id = preferred ?? Object.keys(providers)[0];
    const entry = id ? providers[id] : undefined;
    if (entry) Object.assign(settings, { defaultProvider: id, defaultModel: entry.svcDefaultModel ?? entry.models[0]!.id });
    else {
      delete settings.defaultProvider;
      delete settings.defaultModel;
    }
    this.writeJson(this.settingsFile, settings);
  }

  private read(): Record<string, ProviderEntry> {
    if (!existsSync(this.modelsFile)) return {};
    const doc = JSON.parse(readFileSync(this.modelsFile, 'utf8')) as { providers?: Record<string, ProviderEntry> };
    return doc.providers ?? {};
  }

  private write(providers: Record<string, ProviderEntry>): void {
    this.writeJson(this.modelsFile, { providers });
  }

  private writeJson(file: string, value: unknown): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
}
