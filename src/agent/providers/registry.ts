// What the service knows about each provider CLI without running anything: its executable, the
// models and efforts worth offering, how to install it, and what its adapter can do. Pure data.
//
// Model lists are suggestions for a picker, not a whitelist: `agent.model` stays free text, and the
// first entry ('') always means "the CLI's own default" (no model flag is passed). Aliases
// (`opus`, `pro`, …) come first where the CLI has them because they follow the vendor's latest
// model; the rest were taken from the model catalogs bundled in the pinned versions
// (shared/protocols/README.md: claude 2.1.197, codex 0.169.0, gemini 0.61.0, opencode 1.18.33,
// copilot 1.0.102).
import type { ProviderId } from './providers/types.ts';

export interface ModelOption {
  /** Passed as the model argument; '' = no model flag (the CLI's default). */
  id: string;
  label: string;
}

export interface InstallInfo {
  /** npm package that provides the executable. */
  npm: string;
  /** One command that installs it. */
  command: string;
  docs: string;
}

export interface ProviderSupports {
  /** Continues a provider session on the next turn. */
  resume: boolean;
  /** A steer prompt reaches the running agent without restarting it (adapter steerMode 'live'). */
  liveSteer: boolean;
  /** Reasoning/thinking is shown. */
  thinking: boolean;
  /** The answer arrives as live text deltas rather than whole messages. */
  streaming: boolean;
}

export interface ProviderInfo {
  id: ProviderId;
  displayName: string;
  /** Executable name looked up on PATH; '' for `custom` (its command comes from settings). */
  command: string;
  models: ModelOption[];
  /** Values for `agent.effort` (besides '' = default); empty when the CLI has no such setting. */
  efforts: string[];
  /** How to install the CLI; null for `custom` (the user's own command). */
  install: InstallInfo | null;
  supports: ProviderSupports;
}

const npmInstall = (pkg: string, docs: string): InstallInfo => ({ npm: pkg, command: `npm install -g ${pkg}`, docs });

const ENTRIES = {
  claude: {
    id: 'claude',
    displayName: 'Claude Code',
    command: 'claude',
    models: [
      { id: '', label: 'Default (Claude Code decides)' },
      { id: 'opus', label: 'Opus (latest)' },
      { id: 'sonnet', label: 'Sonnet (latest)' },
      { id: 'haiku', label: 'Haiku (latest)' },
      { id: 'fable', label: 'Fable (latest)' },
      { id: 'claude-opus-4-8', label: 'Claude Opus 4.8' },
      { id: 'claude-sonnet-5', label: 'Claude Sonnet 5' },
      { id: 'claude-fable-5', label: 'Claude Fable 5' },
      { id: 'claude-haiku-4-5', label: 'Claude Haiku 4.5' },
    ],
    // `claude --help`: --effort <level> (low, medium, high, xhigh, max)
    efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
    install: npmInstall('@anthropic-ai/claude-code', 'https://docs.claude.com/en/docs/claude-code/setup'),
    supports: { resume: true, liveSteer: true, thinking: true, streaming: true },
  },
  codex: {
    id: 'codex',
    displayName: 'Codex CLI',
    command: 'codex',
    models: [
      { id: '', label: 'Default (from ~/.codex/config.toml)' },
      { id: 'gpt-6.1-sol', label: 'GPT-6.1 Sol' },
      { id: 'gpt-6-astra', label: 'GPT-6 Astra' },
      { id: 'gpt-6.1-terra', label: 'GPT-6.1 Terra' },
      { id: 'gpt-6-luna', label: 'GPT-6 Luna (fast)' },
      { id: 'gpt-5.5', label: 'GPT-5.5 (legacy)' },
    ],
    // Sent as `-c model_reasoning_effort="…"`; codex passes the value through to the API.
    efforts: ['minimal', 'low', 'medium', 'high', 'xhigh'],
    install: npmInstall('@openai/codex', 'https://github.com/openai/codex'),
    supports: { resume: true, liveSteer: false, thinking: true, streaming: false },
  },
  gemini: {
    id: 'gemini',
    displayName: 'Gemini CLI',
    command: 'gemini',
    models: [
      { id: '', label: 'Default (auto routing)' },
      { id: 'pro', label: 'Pro (latest)' },
      { id: 'flash', label: 'Flash (latest)' },
      { id: 'flash-lite', label: 'Flash-Lite (latest)' },
      { id: 'gemini-3.1-pro-preview', label: 'Gemini 3.1 Pro (preview)' },
      { id: 'gemini-3-flash-preview', label: 'Gemini 3 Flash (preview)' },
      { id: 'gemini-2.5-pro', label: 'Gemini 2.5 Pro' },
      { id: 'gemini-2.5-flash', label: 'Gemini 2.5 Flash' },
    ],
    // Gemini CLI has no effort setting (the adapter ignores `effort`).
    efforts: [],
    install: npmInstall('@google/gemini-cli', 'https://github.com/google-gemini/gemini-cli'),
    // Thought parts are received but stream-json has no event for them.
    supports: { resume: true, liveSteer: false, thinking: false, streaming: true },
  },
  opencode: {
    id: 'opencode',
    displayName: 'OpenCode',
    command: 'opencode',
    models: [
      { id: '', label: 'Default (from opencode.json)' },
      { id: 'anthropic/claude-sonnet-5', label: 'Anthropic · Claude Sonnet 5' },
      { id: 'anthropic/claude-opus-4-8', label: 'Anthropic · Claude Opus 4.8' },
      { id: 'openai/gpt-6.1-sol', label: 'OpenAI · GPT-6.1 Sol' },
      { id: 'google/gemini-3.1-pro-preview', label: 'Google · Gemini 3.1 Pro (preview)' },
    ],
    // `--variant`: provider-specific names (OpenAI minimal…xhigh, Anthropic high/max, Google low/high);
    // a variant the model does not define is ignored by opencode.
    efforts: ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
    install: npmInstall('opencode-ai', 'https://opencode.ai/docs/'),
    supports: { resume: true, liveSteer: false, thinking: true, streaming: false },
  },
  copilot: {
    id: 'copilot',
    displayName: 'GitHub Copilot',
    command: 'copilot',
    models: [
      { id: '', label: 'Default (Copilot decides)' },
      { id: 'auto', label: 'Auto' },
      { id: 'claude-sonnet-4.6', label: 'Claude Sonnet 4.6' },
      { id: 'gpt-5.4', label: 'GPT-5.4' },
      { id: 'claude-haiku-4.5', label: 'Claude Haiku 4.5' },
    ],
    efforts: ['low', 'medium', 'high'],
    install: npmInstall('@github/copilot', 'https://github.com/github/copilot-cli'),
    supports: { resume: true, liveSteer: true, thinking: true, streaming: true },
  },
  custom: {
    id: 'custom',
    displayName: 'Custom command',
    command: '',
    models: [{ id: '', label: 'Default' }],
    efforts: [],
    install: null,
    supports: { resume: false, liveSteer: false, thinking: false, streaming: true },
  },
} satisfies { [K in ProviderId]: ProviderInfo & { id: K } };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
deepFreeze(ENTRIES);

/** Every provider, in display order (frozen: shared by every request). */
export const PROVIDERS: readonly ProviderInfo[] = Object.freeze(Object.values(ENTRIES));

/** Every provider id, in display order. */
export const REGISTRY_IDS: readonly ProviderId[] = PROVIDERS.map((p) => p.id);

export function providerInfo(id: ProviderId): ProviderInfo {
  return ENTRIES[id];
}
