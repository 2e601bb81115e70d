// The provider adapters by id.
import type { ProviderAdapter, ProviderId } from './providers/types.ts';
import { claudeAdapter } from './providers/claude.ts';
import { codexAdapter } from './providers/codex.ts';
import { geminiAdapter } from './providers/gemini.ts';
import { opencodeAdapter } from './providers/opencode.ts';
import { copilotAdapter } from './providers/copilot.ts';
import { customAdapter } from './providers/custom.ts';

export const ADAPTERS: Record<ProviderId, ProviderAdapter<any>> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  opencode: opencodeAdapter,
  copilot: copilotAdapter,
  custom: customAdapter,
};
