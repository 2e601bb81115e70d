// What svc knows about OpenCode (`opencode`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const opencodeInfo = {
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
  credentials: {
    env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'GROQ_API_KEY'],
    files: ['.local/share/opencode/auth.json'],
    login: 'opencode auth login',
    loginHow: 'pick your provider and give its key',
  },
  supports: { resume: true, liveSteer: false, thinking: true, streaming: false, mcp: true, readOnly: false },
} satisfies ProviderInfo & { id: 'opencode' };
