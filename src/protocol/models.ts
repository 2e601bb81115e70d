// Model endpoints: model servers a user runs (Ollama, llama.cpp's server, vLLM, LM Studio, LiteLLM, a company
// gateway), each with the API it speaks, and what a probe of one found. The routes are /api/models/endpoints*.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { ENDPOINT_APIS } from './models-text.ts';

export * from './models-text.ts';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** An endpoint's id: also the prefix of its models in a run's model (`local/qwen3-coder`). */
export const endpointId = () =>
  z
    .string()
    .min(1)
    .max(40)
    .regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and "-", starting with a letter');

const modelId = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((s) => !CONTROL.test(s), 'a model id has no control characters');

/**
 * The server's base URL, as its clients take it (`http://127.0.0.1:11434/v1` for Ollama's OpenAI API): http or
 * https, and no user name or password in it (the key goes in `apiKey` or `apiKeyEnv`, never in a URL).
 */
const baseUrl = () =>
  z
    .string()
    .trim()
    .max(2000)
    .refine((s) => !CONTROL.test(s), 'the URL has a control character')
    .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'an http:// or https:// URL')
    .refine((s) => !URL.canParse(s) || (!new URL(s).username && !new URL(s).password), 'no user name or key in the URL: give the key as apiKey or apiKeyEnv')
    .transform((s) => s.replace(/\/+$/, ''));

const fields = () => ({
  name: z.string().trim().min(1).max(100).refine((s) => !CONTROL.test(s), 'the name has a control character'),
  baseUrl: baseUrl(),
  api: z.enum(ENDPOINT_APIS),
  /** The key itself (kept by svc, never shown again), or … */
  apiKey: z.string().max(4000).refine((s) => !CONTROL.test(s), 'the key has a control character').optional(),
  /** … the name of the environment variable that holds it, read when a run starts. */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'an environment variable name').optional(),
  /** The models to offer; empty: those the server lists. */
  models: z.array(modelId()).max(100).optional(),
  /** Its context window in tokens, when the server does not say. */
  contextSize: z.number().int().min(256).max(10_000_000).optional(),
});

export const EndpointCreateSchema = lazySchema(() => z.strictObject({ id: endpointId(), ...fields() }));
export const EndpointPatchSchema = lazySchema(() => {
  const f = fields();
  return z.strictObject({
    name: f.name.optional(),
    baseUrl: f.baseUrl.optional(),
    api: f.api.optional(),
    // null removes the stored key or the variable's name
    apiKey: f.apiKey.unwrap().nullable().optional(),
    apiKeyEnv: f.apiKeyEnv.unwrap().nullable().optional(),
    models: f.models.unwrap().nullable().optional(),
    contextSize: f.contextSize.unwrap().nullable().optional(),
  });
});
export type EndpointCreate = z.infer<typeof EndpointCreateSchema>;
export type EndpointPatch = z.infer<typeof EndpointPatchSchema>;

const ProbeStepSchema = () =>
  z.object({
    ok: z.boolean(),
    /** How long the step took. */
    ms: z.number(),
    /** What it found, or why it failed, in a sentence. */
    detail: z.string(),
  });

export const ProbeResultSchema = lazySchema(() =>
  z.object({
    at: z.number(),
    /** The model the answer and tool steps used. */
    model: z.string().nullable(),
    models: ProbeStepSchema().extend({ ids: z.array(z.string()) }),
    answer: ProbeStepSchema().extend({ firstTokenMs: z.number().nullable() }),
    tools: ProbeStepSchema(),
    context: ProbeStepSchema().extend({ tokens: z.number().nullable() }),
    /** Each thing that will make agents fail on this server, with how to fix it. */
    warnings: z.array(z.string()),
  }),
);
export type ProbeResult = z.infer<typeof ProbeResultSchema>;
export type ProbeStep = ProbeResult['tools'];

export const ModelEndpointSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    baseUrl: z.string(),
    api: z.enum(ENDPOINT_APIS),
    /** Whether svc holds a key for it (the key itself is never returned). */
    hasKey: z.boolean(),
    apiKeyEnv: z.string().nullable(),
    models: z.array(z.string()),
    contextSize: z.number().nullable(),
    createdAt: z.number(),
    /** The last probe, when there was one. */
    probe: ProbeResultSchema.nullable(),
  }),
);
export type ModelEndpoint = z.infer<typeof ModelEndpointSchema>;
