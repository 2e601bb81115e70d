// Optional semantic search: an OpenAI-compatible embeddings endpoint (POST {baseUrl}/embeddings; Ollama,
// vLLM, LM Studio, llama.cpp and hosted APIs speak it). Vectors live in SQLite keyed by the section's
// content hash and the model, are filled in the background after indexing, and are searched by cosine
// similarity over an in-memory copy (4 bytes per dimension per section; rebuilt when the index changes).
// Without a configured endpoint none of this runs and search is offline.
import type { MemoryKind } from '../../protocol/memory.ts';
import type { MemoryRepo } from './memory.repo.ts';

export interface EmbeddingsConfig {
  baseUrl: string;
  model: string;
  apiKey: string;
}

/** Sections sent per request. */
export const BATCH = 32;
/** Characters of a section that are embedded (the start says what it is about). */
export const MAX_INPUT_CHARS = 2000;
const BATCH_TIMEOUT_MS = 60_000;
const QUERY_TIMEOUT_MS = 5_000;
/** After a failed batch, the next try waits this long (or for the next change). */
const RETRY_MS = 60_000;
/** Sections less similar than this to the query are not semantic hits. */
export const MIN_SIMILARITY = 0.3;

export const isConfigured = (c: EmbeddingsConfig | undefined): c is EmbeddingsConfig => Boolean(c?.baseUrl.trim() && c.model.trim());

/** `{baseUrl}/embeddings` (a baseUrl that already ends with it is used as is). */
export function embeddingsUrl(baseUrl: string): string {
  const b = baseUrl.trim().replace(/\/+$/, '');
  return /\/embeddings$/.test(b) ? b : `${b}/embeddings`;
}

export function buildEmbeddingsRequest(config: EmbeddingsConfig, inputs: readonly string[]): { url: string; init: RequestInit } {
  return {
    url: embeddingsUrl(config.baseUrl),
    init: {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.model, input: inputs.map((t) => t.slice(0, MAX_INPUT_CHARS)) }),
    },
  };
}

/** The vectors of an answer `{data: [{index, embedding}]}`, in input order, scaled to length 1. */
export function parseEmbeddings(reply: unknown, count: number): Float32Array[] {
  const data = (reply as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) throw new Error(`the endpoint answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} inputs`);
  const out: Float32Array[] = new Array(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Array.isArray(item?.embedding) || !item.embedding.length || index < 0 || index >= count) throw new Error('an answer item has no embedding');
    out[index] = normalize(Float32Array.from(item.embedding as number[]));
  });
  const dims = out[0]?.length;
  if (out.some((v) => !v || v.length !== dims)) throw new Error('the vectors differ in length');
  return out;
}

function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

async function embed(config: EmbeddingsConfig, inputs: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
  const { url, init } = buildEmbeddingsRequest(config, inputs);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err as Error).message;
    throw new Error(`embeddings endpoint ${url}: ${reason}`);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`embeddings endpoint ${url}: HTTP ${response.status} ${text.slice(0, 200)}`);
  try {
    return parseEmbeddings(JSON.parse(text), inputs.length);
  } catch (err) {
    throw new Error(`embeddings endpoint ${url}: ${(err as Error).message}`);
  }
}

interface VectorIndex {
  model: string;
  dims: number;
  version: number;
  ids: number[];
  kinds: MemoryKind[];
  matrix: Float32Array;
}

export interface EmbedderState {
  state: 'off' | 'indexing' | 'ready' | 'error';
  model: string;
  error?: string;
}

/** Fills missing vectors in the background and answers nearest-neighbour queries. */
export class Embedder {
  private running?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private failed?: string;
  private cache?: VectorIndex;
  private closed = false;

  constructor(
    private readonly repo: MemoryRepo,
    private readonly config: () => EmbeddingsConfig | undefined,
    /** Told when vectors were added or embedding failed (for status events). */
    private readonly onChange: (error?: string) => void,
  ) {}

  state(): EmbedderState {
    const config = this.config();
    if (!isConfigured(config)) return { state: 'off', model: '' };
    if (this.failed) return { state: 'error', model: config.model, error: this.failed };
    return { state: this.running ? 'indexing' : 'ready', model: config.model };
  }

  /** Starts filling missing vectors unless that already runs (a failure is retried now too). */
  kick(): void {
    if (this.closed || this.running || !isConfigured(this.config())) return;
    clearTimeout(this.retryTimer);
    this.running = this.fill().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when the current fill (if any) has ended. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async fill(): Promise<void> {
    for (;;) {
      const config = this.config();
      if (this.closed || !isConfigured(config)) return;
      const missing = this.repo.missingVectors(config.model, BATCH);
      if (!missing.length) {
        if (this.failed) this.failed = undefined;
        this.onChange();
        return;
      }
      try {
        const vectors = await embed(config, missing.map((m) => m.text), BATCH_TIMEOUT_MS);
        if (this.closed) return;
        this.repo.putVectors(config.model, missing.map((m, i) => ({ hash: m.hash, vector: vectors[i]! })));
        this.failed = undefined;
      } catch (err) {
        this.failed = (err as Error).message;
        this.onChange(this.failed);
        this.retryTimer = setTimeout(() => this.kick(), RETRY_MS);
        this.retryTimer.unref();
        return;
      }
    }
  }

  /**
   * Sections most similar to the query (similarity ≥ MIN_SIMILARITY), best first; undefined when
   * embeddings are off or the endpoint cannot be reached (the search then runs without them).
   */
  async nearest(query: string, limit: number, kind?: MemoryKind): Promise<number[] | undefined> {
    const config = this.config();
    if (!isConfigured(config) || this.closed) return undefined;
    let vector: Float32Array;
    try {
      [vector] = (await embed(config, [query], QUERY_TIMEOUT_MS)) as [Float32Array];
    } catch (err) {
      this.failed = (err as Error).message;
      this.onChange(this.failed);
      return undefined;
    }
    const index = this.index(config.model, vector.length);
    const best: { id: number; sim: number }[] = [];
    for (let row = 0; row < index.ids.length; row++) {
      if (kind && index.kinds[row] !== kind) continue;
      let sim = 0;
      const offset = row * index.dims;
      for (let d = 0; d < index.dims; d++) sim += index.matrix[offset + d]! * vector[d]!;
      if (sim < MIN_SIMILARITY) continue;
      if (best.length < limit) best.push({ id: index.ids[row]!, sim });
      else if (sim > best[best.length - 1]!.sim) best[best.length - 1] = { id: index.ids[row]!, sim };
      else continue;
      best.sort((a, b) => b.sim - a.sim);
    }
    return best.map((b) => b.id);
  }

  private index(model: string, dims: number): VectorIndex {
    const cached = this.cache;
    if (cached && cached.model === model && cached.dims === dims && cached.version === this.repo.version) return cached;
    const ids: number[] = [];
    const kinds: MemoryKind[] = [];
    const rows: Float32Array[] = [];
    for (const r of this.repo.vectors(model, dims)) {
      ids.push(r.id);
      kinds.push(r.kind);
      rows.push(r.vector);
    }
    const matrix = new Float32Array(ids.length * dims);
    rows.forEach((v, i) => matrix.set(v, i * dims));
    this.cache = { model, dims, version: this.repo.version, ids, kinds, matrix };
    return this.cache;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.running;
    this.cache = undefined;
  }
}
