// What svc knows about GitHub Copilot CLI (`copilot --acp`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const copilotInfo = {
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
  // Copilot keeps its GitHub login in the system keychain: svc can only see a token in the environment.
  credentials: {
    env: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
    files: [],
    login: 'copilot',
    loginHow: 'log in with /login',
  },
  supports: { resume: true, liveSteer: true, thinking: true, streaming: true, mcp: true, readOnly: true },
} satisfies ProviderInfo & { id: 'copilot' };
