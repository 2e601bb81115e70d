// What svc knows about the Pi coding agent (`pi`), without running it: pure data, gathered in
// ../registry.ts. Its models come from the profiles registered in svc's own Pi configuration
// directory (POST /api/pi/profiles/register), picked as `<profile>/<model>`.
import type { ProviderInfo } from '../../../protocol/providers.ts';
import { npmInstall } from '../shared.ts';

/**
 * The Pi to install on this Node: releases from 0.75.1 on need Node 22.19 or later, so an older Node
 * gets the newest release that runs on it (0.74.2, the version svc's adapter is tested against).
 */
export function piPackageFor(nodeVersion: string): string {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 19) ? '@earendil-works/pi-coding-agent' : '@earendil-works/pi-coding-agent@0.74.2';
}

export const piInfo = {
  id: 'pi',
  displayName: 'Pi',
  command: 'pi',
  models: [{ id: '', label: 'Default (Pi\'s own)' }],
  efforts: ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  install: npmInstall(piPackageFor(process.versions.node), 'https://github.com/badlogic/pi-mono/tree/main/packages/coding-agent'),
  credentials: {
    env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'],
    files: [],
    login: 'svc: POST /api/pi/profiles/register',
    loginHow: 'register a model endpoint for Pi in svc',
  },
  supports: { resume: true, liveSteer: false, thinking: true, streaming: true, mcp: false, readOnly: false },
} satisfies ProviderInfo & { id: 'pi' };
