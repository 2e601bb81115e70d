// What a provider CLI is given for a run, made in one place for every kind of run svc starts: the chat's
// runs, the workers of orchestration, one-shot runs (the memory's summaries) and the executive's turns.
// A provider then works the same wherever a run starts: its executable, the custom provider's command,
// the reasoning effort, the MCP servers and skills come from the settings by one rule, and what differs
// between the kinds (who approves tool use, which tools a run gets) is the table below. Pure.
import type { RunMcpServer } from '../protocol/mcp.ts';
import type { RunSkill } from '../protocol/skills.ts';
import type { ProviderId } from './providers/registry.ts';
import type { InvocationRequest, RunEndpoint } from './providers/types.ts';
import { ENDPOINT_PROVIDERS, endpointModel } from '../protocol/models-text.ts';
import type { AgentSettings } from './settings.ts';

export type RunKind = 'chat' | 'worker' | 'one-shot' | 'executive';

/** Where the settings of a run come from (the server's settings and registries). */
export interface RunSources {
  /** The `agent` settings section as it is now. */
  settings(): AgentSettings;
  /** The executable for a provider (its settings override, else the CLI's usual name). */
  executable(provider: ProviderId): string;
  /** The MCP servers a run of this provider gets (enabled, meant for it, secrets resolved). */
  mcpServers?(provider: ProviderId): readonly RunMcpServer[];
  /** The enabled skills with a directory. */
  skills?(): readonly RunSkill[];
  /**
   * A model endpoint by its id (its key resolved), whether its last probe saw tool calls work, and why it cannot be
   * used (its key's variable is not set); undefined: there is none of that id.
   */
  endpoint?(id: string): (RunEndpoint & { toolsWork: boolean | null; unusable?: string }) | undefined;
}

/** What is the run's own: everything else comes from the settings. */
export interface RunSpec {
  kind: RunKind;
  provider: ProviderId;
  prompt: string;
  cwd: string;
  model?: string;
  systemPrompt?: string;
  resumeSessionId?: string;
  /** A worker that may not change files (a read-only employee). */
  readOnly?: boolean;
  /** A chat run with a person to answer its CLI's permission requests. */
  canAsk?: boolean;
  /** The executive's own executable (its settings), before the agent's. */
  executable?: string;
  /** The executive's tools: its own MCP server, its only tools. */
  ownMcpServers?: readonly RunMcpServer[];
}

export type RunRequest = Omit<InvocationRequest, 'scratchDir' | 'scratchNotRootOnly'>;

type Permissions = Pick<InvocationRequest, 'autoApprove' | 'askPermissions' | 'readOnly' | 'mcpOnly'>;

interface KindPolicy {
  /** The user's MCP servers and skills (the chat's and a worker's runs do what the agent does). */
  userTools: boolean;
  permissions(spec: RunSpec, settings: AgentSettings): Permissions;
}

const POLICY: Record<RunKind, KindPolicy> = {
  // as the settings say; with a person to ask, the CLI's permission requests go to them
  chat: {
    userTools: true,
    permissions: (spec, settings) => ({ autoApprove: settings.autoApprove, askPermissions: !settings.autoApprove && spec.canAsk === true }),
  },
  // nobody answers a worker: a mutable one acts on its own, a read-only one is held to it by its CLI
  worker: {
    userTools: true,
    permissions: (spec) => (spec.readOnly ? { autoApprove: false, readOnly: true } : { autoApprove: true }),
  },
  // a summary needs no tool, and nobody is there to approve one
  'one-shot': { userTools: false, permissions: () => ({ autoApprove: false }) },
  // its tools are svc's own routes, which check everything themselves; the CLI's own writers are removed
  executive: { userTools: false, permissions: () => ({ autoApprove: true, mcpOnly: true }) },
};

/**
 * The model endpoint a run's model names (`<endpoint>/<model>`), checked against the provider and the run: a
 * provider that cannot speak the endpoint's API, or a run that needs tools on a server whose probe found none, gets
 * a refusal instead (the run fails with it before its CLI starts), saying what would work. A Pi profile's
 * `<profile>/<model>` names no endpoint, and stays Pi's own.
 */
function endpointOf(spec: RunSpec, permissions: Permissions, sources: RunSources): Pick<RunRequest, 'endpoint' | 'model' | 'refusal'> | undefined {
  const named = spec.model ? endpointModel(spec.model) : undefined;
  const found = named && sources.endpoint?.(named.id);
  if (!named || !found) return undefined;
  const { toolsWork, unusable, ...endpoint } = found;
  if (unusable) return { refusal: unusable };
  const can = ENDPOINT_PROVIDERS[endpoint.api];
  if (!can.includes(spec.provider)) {
    return { refusal: `The model endpoint '${endpoint.id}' speaks ${endpoint.api}, which ${spec.provider} cannot use: pick ${spec.model} under ${can.join(' or ')}.` };
  }
  const needsTools = permissions.mcpOnly === true || (spec.kind !== 'one-shot' && !permissions.readOnly);
  if (needsTools && toolsWork === false) {
    return { refusal: `The last probe of the model endpoint '${endpoint.id}' found no tool calls, which this run needs: use a model with tool support (docs/models.md), then probe it again.` };
  }
  // Pi reads the endpoint from svc's Pi directory as a provider of its id, and names it in the model
  return { endpoint, model: spec.provider === 'pi' ? spec.model : named.model };
}

export function runRequest(spec: RunSpec, sources: RunSources): RunRequest {
  const settings = sources.settings();
  const policy = POLICY[spec.kind];
  const permissions = policy.permissions(spec, settings);
  const onEndpoint = endpointOf(spec, permissions, sources);
  const mcpServers = [...(spec.ownMcpServers ?? []), ...(policy.userTools ? (sources.mcpServers?.(spec.provider) ?? []) : [])];
  const skills = policy.userTools ? sources.skills?.() : undefined;
  return {
    prompt: spec.prompt,
    cwd: spec.cwd,
    executable: spec.executable || sources.executable(spec.provider),
    // the custom provider's command, whichever kind of run starts it
    commandTemplate: settings.customCommand,
    model: spec.model || undefined,
    ...onEndpoint,
    // an effort is named for the agent's provider (another may not know it)
    effort: spec.provider === settings.provider && settings.effort ? settings.effort : undefined,
    systemPrompt: spec.systemPrompt || undefined,
    resumeSessionId: spec.resumeSessionId,
    ...permissions,
    ...(mcpServers.length ? { mcpServers } : {}),
    ...(skills?.length ? { skills } : {}),
  };
}
