// The `agent` settings section: which provider CLI runs the agent and how runs behave. Declared
// here, beside the runtime that reads it; the server composes it into the settings document.
import { z } from 'zod';
import { settingsSection } from '../protocol/settings.ts';
import { PROVIDER_IDS } from './providers/registry.ts';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const agentSettingsSchema = z.strictObject({
  /** The provider CLI that runs the agent. */
  provider: z.enum(PROVIDER_IDS),
  /** Model name passed to the provider; '' = the CLI's own default. */
  model: z.string().max(200),
  /** Reasoning effort where the provider supports it; '' = default. */
  effort: z.string().max(40),
  /** Providers tried in order when the active one fails (rate limit, overload, crash, missing). */
  fallback: z.array(z.enum(PROVIDER_IDS)).max(PROVIDER_IDS.length),
  /** Let the CLI run tools without asking (unattended runs cannot answer prompts). */
  autoApprove: z.boolean(),
  /** Working directory of runs; '' = the directory `svc serve` was started in. */
  workingDir: z.string().max(4096),
  /** Extra instructions passed as the provider's system prompt. */
  systemPrompt: z.string().max(50_000),
  /** Kill a run that printed nothing for this long. */
  idleTimeoutSec: z.number().int().min(1).max(86_400),
  /** Kill a run that lasts longer than this. */
  maxRunSec: z.number().int().min(10).max(7 * 86_400),
  /** Retries of the same provider after a transient failure, before falling back. */
  retries: z.number().int().min(0).max(5),
  /** The `custom` provider's command, one argument per item; `{prompt}` `{model}` `{cwd}` are filled in. */
  customCommand: z.array(z.string().max(4096)).max(64),
  /** Path of a provider's executable when it is not the usual command name on PATH. */
  executables: z.partialRecord(z.enum(PROVIDER_IDS), z.string().min(1).max(4096)),
  /** Extra environment variables for provider CLIs (API keys and the like). Secret. */
  env: z.record(envName, z.string().max(8192)),
});

export type AgentSettings = z.infer<typeof agentSettingsSchema>;

export const agentSettings = settingsSection(
  agentSettingsSchema,
  {
    provider: 'claude',
    model: '',
    effort: '',
    fallback: [],
    autoApprove: true,
    workingDir: '',
    systemPrompt: '',
    idleTimeoutSec: 600,
    maxRunSec: 3600,
    retries: 1,
    customCommand: [],
    executables: {},
    env: {},
  },
  ['env'],
);
