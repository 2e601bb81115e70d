// Codex CLI (`codex exec --json`) adapter.
//
// Codex prints whole items, no deltas: an `agent_message` item is one text block, a reasoning item
// one thinking block, and a command's call and result are the same item (`item.started` →
// `item.completed`). There is no result line: `turn.completed` / `turn.failed` end the turn.
// One process runs one turn, so a steer interrupts and resumes (`codex exec … resume <id> <prompt>`).
// A run whose tool permissions a person answers runs `codex app-server` instead (app-server.ts): exec
// has nobody to ask.

import { codexMcpEntries, tomlString } from '../mcp-config.ts';

export { tomlString };

import type { AdapterOutput, ExitInfo, Invocation, InvocationRequest, NormalizedEvent, PermissionAnswer, ProviderAdapter, RunEndpoint } from '../types.ts';
import { closeOpenSteps, objectAt, parseJsonLine, resultFromExit, stringAt } from '../shared.ts';
import {
  errorLineEvents,
  itemCompletedEvents,
  newCodexState,
  sessionEvents,
  stepStartEvents,
  turnFailedEvents,
  usageEvent,
  type CodexState,
} from './items.ts';
import {
  answerAppServerPermission,
  appServerInvocation,
  appServerState,
  finishAppServer,
  isAppServerState,
  parseAppServerLine,
  startAppServer,
  type AppServerState,
} from './app-server.ts';

export { classifyCodexError } from './items.ts';

// ---------------------------------------------------------------------------------------------
// Invocation

/** Config overrides that leave codex without its own shell, image, goal and web tools (checked with 0.169). */
export const CODEX_MCP_ONLY = ['features.shell_tool=false', 'features.unified_exec=false', 'features.view_image=false', 'features.goals=false', 'web_search="disabled"'];

/** A person answers the run's tool permissions: codex runs as its app server, which asks (app-server.ts). */
const asksAPerson = (req: InvocationRequest) => req.askPermissions === true && !req.autoApprove && !req.readOnly && !req.mcpOnly;

/** The settings both modes pass as `-c` overrides. */
function configOverrides(req: InvocationRequest): string[] {
  const args: string[] = [];
  if (req.effort) args.push('-c', `model_reasoning_effort=${tomlString(req.effort)}`);
  // `developer_instructions` adds a developer message next to codex's own instructions (checked
  // with codex 0.169 against a fake API); `instructions`/`experimental_instructions_file` would
  // replace them, and AGENTS.md would mean writing into the project.
  if (req.systemPrompt) args.push('-c', `developer_instructions=${tomlString(req.systemPrompt)}`);
  // Per-run MCP servers as config overrides: `[mcp_servers.<name>]` tables in ~/.codex stay as they are.
  for (const [key, value] of codexMcpEntries(req.mcpServers ?? [])) args.push('-c', `${key}=${value}`);
  if (req.endpoint) for (const entry of codexEndpointConfig(req.endpoint)) args.push('-c', entry);
  return args;
}

/** The variable a run on a model endpoint reads its key from (`env_key`: codex takes no key in its config). */
const CODEX_ENDPOINT_KEY_ENV = 'SVC_ENDPOINT_API_KEY';

/**
 * A run on a model endpoint (a Responses server: codex dropped chat completions): a provider of the run's own, as
 * config overrides, chosen for this run; the user's ~/.codex/config.toml is not touched.
 */
function codexEndpointConfig(endpoint: RunEndpoint): string[] {
  const table = `model_providers.${endpoint.id}`;
  return [
    `model_provider=${tomlString(endpoint.id)}`,
    `${table}.name=${tomlString(endpoint.name)}`,
    `${table}.base_url=${tomlString(endpoint.baseUrl)}`,
    `${table}.wire_api="responses"`,
    ...(endpoint.key ? [`${table}.env_key=${tomlString(CODEX_ENDPOINT_KEY_ENV)}`] : []),
  ];
}

/** The endpoint's key, in the variable its config names. */
const codexEndpointEnv = (req: InvocationRequest): Record<string, string> => (req.endpoint?.key ? { [CODEX_ENDPOINT_KEY_ENV]: req.endpoint.key } : {});

function buildInvocation(req: InvocationRequest): Invocation {
  const invocation = execOrAppServer(req);
  Object.assign(invocation.env, codexEndpointEnv(req));
  return invocation;
}

function execOrAppServer(req: InvocationRequest): Invocation {
  if (asksAPerson(req)) return appServerInvocation(req, configOverrides(req));
  // `--skip-git-repo-check`: codex exec refuses to run outside a git repository otherwise.
  const args = ['exec', '--json', '--skip-git-repo-check'];
  // Read-only: codex's own sandbox refuses writes (file edits and shell commands alike).
  if (req.readOnly || req.mcpOnly) args.push('--sandbox', 'read-only');
  else if (req.autoApprove) args.push('--dangerously-bypass-approvals-and-sandbox');
  // MCP only: its shell, image and goal tools and web search are features it turns off; apply_patch
  // it always offers (codex 0.169), so the read-only sandbox above is what refuses its writes.
  if (req.mcpOnly) for (const off of CODEX_MCP_ONLY) args.push('-c', off);
  if (req.model) args.push(`--model=${req.model}`);
  args.push(...configOverrides(req));
  if (req.extraArgs) args.push(...req.extraArgs);
  // Options go before `resume`; `--` keeps a prompt starting with "-" from being read as a flag.
  if (req.resumeSessionId) args.push('resume', req.resumeSessionId);
  args.push('--', req.prompt);
  return { command: req.executable, args, env: {}, stdin: 'close' };
}

function initialState(req: InvocationRequest): CodexState | AppServerState {
  return asksAPerson(req) ? appServerState(req) : newCodexState();
}

// ---------------------------------------------------------------------------------------------
// Lines

function parseExecLine(state: CodexState, raw: string): AdapterOutput {
  const line = parseJsonLine(raw);
  if (!line) return { events: [] };
  const item = objectAt(line, 'item');
  switch (stringAt(line, 'type')) {
    case 'thread.started':
      return { events: sessionEvents(state, line) };
    case 'item.started':
      return { events: item ? stepStartEvents(state, item) : [] };
    case 'item.completed':
      return { events: item ? itemCompletedEvents(state, item) : [] };
    case 'turn.completed':
      state.resultEmitted = true;
      // No final text line: the answer is the agent_message deltas already emitted.
      return { events: [usageEvent(line), { kind: 'result', ok: true }] };
    case 'turn.failed':
      return { events: turnFailedEvents(state, line) };
    case 'error':
      return { events: errorLineEvents(state, line) };
    default:
      return { events: [] };
  }
}

function finishExec(state: CodexState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  // Failures before the thread starts (unknown resume id, bad config) are only on stderr.
  events.push(resultFromExit(exit, state.lastError));
  return events;
}

export const codexAdapter: ProviderAdapter<CodexState | AppServerState> = {
  id: 'codex',
  displayName: 'Codex CLI',
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState,
  // only the app server's stdin is interactive
  start: (state) => (isAppServerState(state) ? startAppServer(state) : { events: [] }),
  parseLine: (state, line) => (isAppServerState(state) ? parseAppServerLine(state, line) : parseExecLine(state, line)),
  answerPermission: (state, requestId: string, answer: PermissionAnswer) =>
    isAppServerState(state) ? answerAppServerPermission(state, requestId, answer) : { events: [] },
  finish: (state, exit) => (isAppServerState(state) ? finishAppServer(state, exit) : finishExec(state, exit)),
};
