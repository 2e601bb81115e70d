// What svc knows about the Pi coding agent (`pi`), without running it: pure data, gathered in
// ../registry.ts. Its models come from the profiles registered in svc's own Pi configuration
// directory (POST /api/pi/profiles/register), picked as `<profile>/<model>`.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

export const piInfo = {
  id: 'pi',
  displayName: 'Pi',
  command: 'pi',
  models: [{ id: '', label: 'Default (Pi\'s own)' }],
  efforts: ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  install: npmInstall('@earendil-works/pi-coding-agent', 'https://github.com/badlogic/pi-mono/tree/main/packages/coding-agent'),
  credentials: {
    env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'],
    files: [],
    login: 'svc: POST /api/pi/profiles/register',
    loginHow: 'register a model endpoint for Pi in svc',
  },
  supports: { resume: true, liveSteer: false, thinking: true, streaming: true },
} satisfies ProviderInfo & { id: 'pi' };
