// The one provider registry: each provider's id, what the service knows about its CLI without
// running anything (executable, models and efforts worth offering, how to install it, what its adapter
// can do: providers/<id>/info.ts) and its adapter (providers/<id>/adapter.ts). The id type, the
// settings enum, the runtime's adapter lookup and GET /api/cli-registry all derive from this table.
//
// Model lists are suggestions for a picker, not a whitelist: `agent.model` stays free text, and the
// first entry ('') always means "the CLI's own default" (no model flag is passed). Aliases
// (`opus`, `pro`, …) come first where the CLI has them because they follow the vendor's latest
// model; the rest were taken from the model catalogs bundled in the pinned versions
// (recorded with claude 2.1.197, codex 0.169.0, gemini 0.61.0, opencode 1.18.33,
// copilot 1.0.102).
import type { ProviderInfo } from '../../protocol/providers.ts';
import type { LoginCheck, ProviderAdapter } from './types.ts';
import { claudeAdapter } from './claude/adapter.ts';
import { claudeInfo } from './claude/info.ts';
import { codexAdapter } from './codex/adapter.ts';
import { codexInfo } from './codex/info.ts';
import { codexLogin } from './codex/login.ts';
import { geminiAdapter } from './gemini/adapter.ts';
import { geminiInfo } from './gemini/info.ts';
import { opencodeAdapter } from './opencode/adapter.ts';
import { opencodeInfo } from './opencode/info.ts';
import { copilotAdapter } from './copilot/adapter.ts';
import { copilotInfo } from './copilot/info.ts';
import { piAdapter } from './pi/adapter.ts';
import { piInfo } from './pi/info.ts';
import { customAdapter } from './custom/adapter.ts';
import { customInfo } from './custom/info.ts';

/** In display order. */
const REGISTRY = {
  claude: { info: claudeInfo, adapter: claudeAdapter },
  // codex alone gets a login check: the others say at once that they are not logged in, and some keep
  // their login where svc cannot look (Claude Code in the macOS keychain, Gemini CLI with Vertex AI).
  codex: { info: codexInfo, adapter: codexAdapter, login: codexLogin },
  gemini: { info: geminiInfo, adapter: geminiAdapter },
  opencode: { info: opencodeInfo, adapter: opencodeAdapter },
  copilot: { info: copilotInfo, adapter: copilotAdapter },
  pi: { info: piInfo, adapter: piAdapter },
  custom: { info: customInfo, adapter: customAdapter },
} as const satisfies { [K in string]: { info: ProviderInfo & { id: K }; adapter: ProviderAdapter<any> & { id: K }; login?: LoginCheck } };

export type ProviderId = keyof typeof REGISTRY;

/** Every provider id, in display order (the settings enum is made from it). */
export const PROVIDER_IDS = Object.keys(REGISTRY) as [ProviderId, ...ProviderId[]];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
for (const id of PROVIDER_IDS) deepFreeze(REGISTRY[id].info);

/** Every provider, in display order (frozen: shared by every request). */
export const PROVIDERS: readonly ProviderInfo[] = Object.freeze(PROVIDER_IDS.map((id) => REGISTRY[id].info));

/** Environment every gemini process svc starts gets (gemini/info.ts says why). */
export { GEMINI_PROCESS_ENV } from './gemini/info.ts';

export function providerInfo(id: ProviderId): ProviderInfo {
  return REGISTRY[id].info;
}

export function adapterOf(id: ProviderId): ProviderAdapter<unknown> {
  return REGISTRY[id].adapter as ProviderAdapter<unknown>;
}

/** The provider's login check, when svc can know that it is not logged in (see LoginCheck). */
export function loginCheckOf(id: ProviderId): LoginCheck | undefined {
  const entry = REGISTRY[id];
  return 'login' in entry ? entry.login : undefined;
}

export const isProviderId = (value: string): value is ProviderId => Object.hasOwn(REGISTRY, value);
