// What svc knows about the user's own command (`agent.customCommand`), without running it: pure data, gathered in ../registry.ts.
import type { ProviderInfo } from '../../../protocol/providers.ts';

export const customInfo = {
  id: 'custom',
  displayName: 'Custom command',
  command: '',
  models: [{ id: '', label: 'Default' }],
  efforts: [],
  install: null,
  credentials: null,
  supports: { resume: false, liveSteer: false, thinking: false, streaming: true, mcp: false, readOnly: false },
} satisfies ProviderInfo & { id: 'custom' };
