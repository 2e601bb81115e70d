// The `memory` settings section: how much memory goes into each run's system prompt, the optional
// embeddings endpoint (`embeddings.apiKey` is a secret) and the optional summaries.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlOrEmptySetting } from '../../protocol/settings-url.ts';
import { PROVIDER_IDS } from '../../agent/providers/registry.ts';

const httpUrlOrEmpty = httpUrlOrEmptySetting('http://127.0.0.1:11434/v1');

export const MAX_CONTEXT_BUDGET = 20_000;

export const memorySettingsSchema = z.strictObject({
  /** Characters of memory added to the system prompt of each run (profile + relevant sections); 0 = none. */
  contextBudget: z.number().int().min(0).max(MAX_CONTEXT_BUDGET),
  embeddings: z.strictObject({
    /** OpenAI-compatible endpoint (…/v1) serving POST /embeddings; '' = no semantic search. */
    baseUrl: httpUrlOrEmpty,
    /** Embedding model at that endpoint, e.g. nomic-embed-text for Ollama; '' = no semantic search. */
    model: z.string().trim().max(200),
    /** Bearer token for the endpoint; '' sends none. Secret. */
    apiKey: z.string().max(4096),
  }),
  summarize: z.strictObject({
    /** Every this many chat messages, 1–3 sentences go into today's episode; 0 = off. */
    everyMessages: z.number().int().min(0).max(10_000),
    /** The provider CLI that writes them; '' = the agent's provider. */
    provider: z.union([z.literal(''), z.enum(PROVIDER_IDS)]),
    /** Its model; '' = the CLI's default. */
    model: z.string().trim().max(200),
  }),
});

export type MemorySettings = z.infer<typeof memorySettingsSchema>;

export const memorySettings = settingsSection(
  memorySettingsSchema,
  {
    contextBudget: 3000,
    embeddings: { baseUrl: '', model: '', apiKey: '' },
    summarize: { everyMessages: 0, provider: '', model: '' },
  },
  ['embeddings.apiKey'],
);
