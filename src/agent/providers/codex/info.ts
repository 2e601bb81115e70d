// What svc knows about Codex CLI (`codex`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const codexInfo = {
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
  credentials: {
    env: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    files: ['$CODEX_HOME/auth.json', '.codex/auth.json'],
    login: 'codex login',
    loginHow: 'sign in',
  },
  supports: { resume: true, liveSteer: false, thinking: true, streaming: false, mcp: true, readOnly: true },
} satisfies ProviderInfo & { id: 'codex' };
