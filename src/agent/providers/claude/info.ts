// What svc knows about Claude Code (`claude`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const claudeInfo = {
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
  credentials: {
    env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    files: ['.claude/.credentials.json'],
    login: 'claude',
    loginHow: 'log in with /login',
  },
  supports: { resume: true, liveSteer: true, thinking: true, streaming: true, mcp: true, readOnly: true },
} satisfies ProviderInfo & { id: 'claude' };
