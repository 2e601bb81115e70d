// The provider CLIs on the wire: what the service can drive (GET /api/cli-registry), which are
// installed (GET /api/cli-status) and what is known of their limits (GET /api/quota). The data
// itself is in src/agent/providers/registry.ts; this is its shape.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const ModelOptionSchema = lazySchema(() => z.object({
  /** Passed as the model argument; '' = no model flag (the CLI's default). */
  id: z.string(),
  label: z.string(),
}));
export type ModelOption = z.infer<typeof ModelOptionSchema>;

export const InstallInfoSchema = lazySchema(() => z.object({
  /** npm package that provides the executable. */
  npm: z.string(),
  /** One command that installs it. */
  command: z.string(),
  docs: z.string(),
}));
export type InstallInfo = z.infer<typeof InstallInfoSchema>;

export const ProviderSupportsSchema = lazySchema(() => z.object({
  /** Continues a provider session on the next turn. */
  resume: z.boolean(),
  /** A steer prompt reaches the running agent without restarting it. */
  liveSteer: z.boolean(),
  /** Reasoning/thinking is shown. */
  thinking: z.boolean(),
  /** The answer arrives as live text deltas rather than whole messages. */
  streaming: z.boolean(),
  /** Takes MCP servers for a run (the user's, and the executive's tools, which are one). */
  mcp: z.boolean(),
  /** svc can hold a run to read-only through the CLI's own permission mode or sandbox (a read-only worker). */
  readOnly: z.boolean(),
}));
export type ProviderSupports = z.infer<typeof ProviderSupportsSchema>;

/** Where a CLI keeps its login, so svc can tell without running it whether one exists. */
export const CredentialsInfoSchema = lazySchema(() => z.object({
  /** Environment variables holding a key the CLI accepts (put one in agent.env). */
  env: z.array(z.string()),
  /** Files where the CLI keeps its login, relative to the home directory or to `$VARIABLE/`; [] when svc cannot tell. */
  files: z.array(z.string()),
  /** The command that logs in, run once in a terminal. */
  login: z.string(),
  /** What to do once the login command runs ("log in with /login"). */
  loginHow: z.string(),
}));
export type CredentialsInfo = z.infer<typeof CredentialsInfoSchema>;

export const ProviderInfoSchema = lazySchema(() => z.object({
  id: z.string(),
  displayName: z.string(),
  /** Executable name looked up on PATH; '' for `custom` (its command comes from settings). */
  command: z.string(),
  models: z.array(ModelOptionSchema),
  /** Values for `agent.effort` (besides '' = default); empty when the CLI has no such setting. */
  efforts: z.array(z.string()),
  /** How to install the CLI; null for `custom` (the user's own command). */
  install: InstallInfoSchema.nullable(),
  /** Where its login lives; null for `custom` (the user's own command). */
  credentials: CredentialsInfoSchema.nullable(),
  supports: ProviderSupportsSchema,
}));
export type ProviderInfo = z.infer<typeof ProviderInfoSchema>;

export const ActiveAgentSchema = lazySchema(() => z.object({ provider: z.string(), model: z.string(), effort: z.string() }));
export type ActiveAgent = z.infer<typeof ActiveAgentSchema>;

export const ReadinessSchema = lazySchema(() => z.object({
  state: z.enum(['ready', 'not_installed', 'needs_login', 'login_unknown']),
  /** One sentence: what is the matter, or that all is well. */
  summary: z.string(),
  /** The one command that fixes it, run in a terminal. */
  fix: z.string().optional(),
}));

export const CliStatusSchema = lazySchema(() => z.discriminatedUnion('state', [
  z.object({ state: z.literal('detecting') }),
  z.object({
    state: z.literal('ready'),
    installed: z.boolean(),
    path: z.string().nullable(),
    version: z.string().nullable(),
    checkedAt: z.number(),
    error: z.string().optional(),
    /** Where its login was found (`found`), that none was (`missing`), or that svc cannot tell. */
    credentials: z.discriminatedUnion('state', [
      z.object({ state: z.literal('found'), source: z.string() }),
      z.object({ state: z.literal('missing') }),
      z.object({ state: z.literal('unknown') }),
    ]),
    readiness: ReadinessSchema,
  }),
]));
export type CliStatus = z.infer<typeof CliStatusSchema>;

export const QuotaWindowSchema = lazySchema(() => z.object({
  /** `5h`, `7d`, … from the window length; the slot name (`primary`) when the length is unknown. */
  name: z.string(),
  usedPercent: z.number(),
  /** Epoch ms, or null when not reported. */
  resetsAt: z.number().nullable(),
  windowMinutes: z.number().optional(),
}));
export type QuotaWindow = z.infer<typeof QuotaWindowSchema>;

export const QuotaInfoSchema = lazySchema(() => z.object({
  status: z.enum(['ok', 'limited', 'unknown']),
  source: z.enum(['codex-rollout', 'observed', 'none']),
  windows: z.array(QuotaWindowSchema).optional(),
  /** Epoch ms of the last rate limit the runner observed. */
  lastLimitedAt: z.number().optional(),
  /** Epoch ms when an observed limit ends, when the provider said so. */
  resetsAt: z.number().optional(),
  message: z.string().optional(),
  /** Epoch ms of the data shown (the rollout line, the observation). */
  updatedAt: z.number().optional(),
}));
export type QuotaInfo = z.infer<typeof QuotaInfoSchema>;
