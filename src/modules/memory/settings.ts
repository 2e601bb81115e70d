// The `memory` settings section: how much memory goes into each run's system prompt, the optional
// embeddings endpoint (`embeddings.apiKey` is a secret) and the optional summaries.
import { z } from 'zod';
import { settingsSection } from '../../protocol/settings.ts';
import { httpUrlOrEmptySetting } from '../../protocol/settings-url.ts';
import { PROVIDER_IDS } from '../../agent/providers/registry.ts';
import { PROVIDER_LABELS } from '../../agent/settings.ts';


export const MAX_CONTEXT_BUDGET = 20_000;

/** The section's schema, built on first use (src/protocol/settings.ts). */
const memorySettingsSchema = () =>
  z
    .strictObject({
      /** Characters of memory added to the system prompt of each run (profile + relevant sections); 0 = none. */
      contextBudget: z
        .number()
        .int()
        .min(0)
        .max(MAX_CONTEXT_BUDGET)
        .meta({ title: 'Memory in each prompt (characters)', description: 'The profile and the most relevant notes added to every run; 0 adds none.' }),
      embeddings: z
        .strictObject({
          /** OpenAI-compatible endpoint (…/v1) serving POST /embeddings; '' = no semantic search. */
          baseUrl: httpUrlOrEmptySetting('http://127.0.0.1:11434/v1').meta({ title: 'Embeddings endpoint', description: 'OpenAI-compatible …/v1 (Ollama: http://127.0.0.1:11434/v1). Empty: search stays offline.' }),
          /** Embedding model at that endpoint, e.g. nomic-embed-text for Ollama; '' = no semantic search. */
          model: z.string().trim().max(200).meta({ title: 'Embedding model', description: 'E.g. nomic-embed-text for Ollama. Empty: search stays offline.' }),
          /** Bearer token for the endpoint; '' sends none. Secret. */
          apiKey: z.string().max(4096).meta({ title: 'API key', description: 'For the endpoint; empty sends none. Secret: never shown again once saved.', writeOnly: true }),
        })
        .meta({ title: 'Semantic search (optional)', description: 'An OpenAI-compatible embeddings endpoint finds notes by meaning as well as by words.' }),
      summarize: z
        .strictObject({
          /** Every this many chat messages, 1–3 sentences go into today's episode; 0 = off. */
          everyMessages: z
            .number()
            .int()
            .min(0)
            .max(10_000)
            .meta({ title: 'Every this many messages', description: "A short provider run writes 1–3 sentences into today's episode; 0 is off." }),
          /** The provider CLI that writes them; '' = the agent's provider. */
          provider: z
            .union([z.literal(''), z.enum(PROVIDER_IDS)])
            .meta({ title: 'Provider', description: 'The provider CLI that writes them.', 'x-enumLabels': { '': "The agent's provider", ...PROVIDER_LABELS } }),
          /** Its model; '' = the CLI's default. */
          model: z.string().trim().max(200).meta({ title: 'Model', description: "Empty: the CLI's default." }),
        })
        .meta({ title: 'Summaries (optional)', description: "Short notes of the chat, written into today's episode." }),
    })
    .meta({ title: 'Memory', description: 'What the agent remembers across chats (the memory panel holds the notes).' });

export type MemorySettings = z.infer<ReturnType<typeof memorySettingsSchema>>;

export const memorySettings = settingsSection(
  memorySettingsSchema,
  {
    contextBudget: 3000,
    embeddings: { baseUrl: '', model: '', apiKey: '' },
    summarize: { everyMessages: 0, provider: '', model: '' },
  },
);
