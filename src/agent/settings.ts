// The `agent` settings section: which provider CLI runs the agent and how runs behave. Declared
// here, beside the runtime that reads it; the server composes it into the settings document. Each
// field's label and help are its metadata (the settings page is made from them).
import { z } from 'zod';
import { settingsSection } from '../protocol/settings.ts';
import { PROVIDER_IDS, PROVIDERS } from './providers/registry.ts';

/** The providers' names as people know them, for the choices of a provider setting (`x-enumLabels`). */
export const PROVIDER_LABELS: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(PROVIDERS.map((p) => [p.id, p.displayName])));

const envName = () => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name: letters, digits and _, not starting with a digit');
const providerId = () => z.enum(PROVIDER_IDS).meta({ 'x-enumLabels': PROVIDER_LABELS });

/** The section's schema, built on first use (src/protocol/settings.ts). */
const agentSettingsSchema = () =>
  z
    .strictObject({
      /** The provider CLI that runs the agent. */
      provider: providerId().meta({ title: 'Provider', description: 'The command-line tool that runs the agent.' }),
      /** Model name passed to the provider; '' = the CLI's own default. */
      model: z.string().max(200).meta({ title: 'Model', description: "The provider's models, or Custom… to type another name." }),
      /** Reasoning effort where the provider supports it; '' = default. */
      effort: z.string().max(40).meta({ title: 'Reasoning effort', description: 'Where the provider supports it; Default leaves it to the provider.' }),
      /** Providers tried in order when the active one fails (rate limit, overload, crash, missing). */
      fallback: z
        .array(providerId())
        .max(PROVIDER_IDS.length)
        .meta({
          title: 'Fallback providers',
          description: 'Tried in this order when the active one fails (rate limit, overload, crash, missing).',
          'x-addLabel': 'Fallback provider to add',
        }),
      /** Let the CLI run tools without asking (unattended runs cannot answer prompts). */
      autoApprove: z.boolean().meta({
        title: 'Auto-approve tool use',
        description:
          'On: every tool runs unasked. Off: Claude Code, Copilot, Gemini CLI, OpenCode and Codex hold each tool call for you to allow or deny (in the chat, the dashboard, Telegram or Discord, a notification); Pi gets its reading tools only.',
      }),
      /** How long a held tool call waits for a person before it is denied. */
      approvalTimeoutSec: z.number().int().min(10).max(86_400).meta({ title: 'Approval timeout (s)', description: 'A held tool call nobody answers in this time is denied.' }),
      /** Working directory of runs; '' = the directory `svc serve` was started in. */
      workingDir: z.string().max(4096).meta({ title: 'Working directory', description: 'Empty: the directory svc was started in.' }),
      /** Extra instructions passed as the provider's system prompt. */
      systemPrompt: z.string().max(50_000).meta({ title: 'System prompt', description: 'Extra instructions for the provider.', 'x-multiline': true }),
      /** Kill a run that printed nothing for this long. */
      idleTimeoutSec: z.number().int().min(1).max(86_400).meta({ title: 'Idle timeout (s)', description: 'Stop a run that printed nothing for this long.' }),
      /** Kill a run that lasts longer than this. */
      maxRunSec: z.number().int().min(10).max(7 * 86_400).meta({ title: 'Maximum run time (s)', description: 'Stop a run that lasts longer than this.' }),
      /** Retries of the same provider after a transient failure, before falling back. */
      retries: z.number().int().min(0).max(5).meta({ title: 'Retries', description: 'Retries of the same provider after a transient failure, before falling back.' }),
      /** The `custom` provider's command, one argument per item; `{prompt}` `{model}` `{cwd}` are filled in. */
      customCommand: z
        .array(z.string().max(4096))
        .max(64)
        .meta({ title: 'Custom command', description: 'For the custom provider: one argument per line; {prompt} {model} {cwd} are filled in.' }),
      /** Path of a provider's executable when it is not the usual command name on PATH. */
      executables: z.partialRecord(z.enum(PROVIDER_IDS), z.string().min(1).max(4096)).meta({
        title: 'Executables',
        description: 'Path of a provider tool when it is not on PATH under its usual name.',
        'x-enumLabels': PROVIDER_LABELS,
        'x-keyLabel': 'Provider',
        'x-valueLabel': '/path/to/the/tool',
      }),
      /** Extra environment variables for provider CLIs (API keys and the like). Secret. */
      env: z.record(envName(), z.string().max(8192)).meta({
        title: 'Environment variables',
        description: 'Passed to provider tools (API keys…). Values are secret: they are never shown again.',
        writeOnly: true,
        'x-keyLabel': 'NAME',
        'x-valueLabel': 'value',
      }),
    })
    .meta({ title: 'Agent', description: 'The provider CLI that answers in the chat, and how its runs behave.' });

export type AgentSettings = z.infer<ReturnType<typeof agentSettingsSchema>>;

export const agentSettings = settingsSection(agentSettingsSchema, {
  provider: 'claude',
  model: '',
  effort: '',
  fallback: [],
  autoApprove: true,
  approvalTimeoutSec: 600,
  workingDir: '',
  systemPrompt: '',
  idleTimeoutSec: 600,
  maxRunSec: 3600,
  retries: 1,
  customCommand: [],
  executables: {},
  env: {},
});
