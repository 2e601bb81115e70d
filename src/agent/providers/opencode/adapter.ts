// OpenCode, checked against opencode-ai 1.18.33: headless (`opencode run --format json`), or over the
// Agent Client Protocol (`opencode acp`, the shared client in ../acp/) when a person answers its
// permission requests: headless, `run` has nobody to ask and rejects each request itself.
//
// ACP mode (opencode-acp-permission-*.jsonl): `opencode acp` takes no model or variant flag; both are
// session settings (`session/set_config_option` model / effort, the ids its session/new lists). The
// system prompt, MCP servers and the `ask` permissions go in OPENCODE_CONFIG_CONTENT as headless, so
// session/new gets no MCP servers. A resume is `session/load` (an unknown id answers -32603 with
// `data.service: "session"`). Its permission request carries `rawInput {filepath, diff}`; a reject ends
// the turn. opencode asks `fs/write_text_file` although svc announced no such capability, and writes
// the file itself on the "Method not found" answer.
//
// Headless:
// Invocation choices (see test/agent/providers/opencode.test.ts for the recordings behind them):
// - The prompt goes on stdin, not as a positional argument: `opencode run` wraps every message
//   argument that contains a space in literal double quotes (the model received
//   `"Acceptance test prompt. scenario:text"` quotes included, in the fake model's log of the recording), while piped
//   stdin is read whole and sent verbatim when no message argument is given (verified with 1.18.33:
//   quotes and newlines arrive unchanged, on fresh and `--session` runs alike).
// - The system prompt is a file in the run's scratch dir, named by `instructions` in
//   `OPENCODE_CONFIG_CONTENT`. That inline config is merged over the user's own config files (which
//   are never touched) and `instructions` arrays are concatenated, so the user's instructions and
//   AGENTS.md still apply and ours is added (verified: both markers reached the model). Caveat: a
//   user who sets OPENCODE_CONFIG_CONTENT for the service has it replaced on runs with a system prompt.
// - `-m provider/model`, `--variant <effort>` (sent as the provider's reasoning effort),
//   `--session <id>` to resume, `--auto` to approve permission requests (without it `run`
//   auto-rejects them: a deny ends the turn; its defaults ask for nothing, hence OPENCODE_ASK),
//   `--thinking` always so reasoning parts are printed at all.
//
// Output: one JSON object per line; no deltas (text and reasoning arrive as whole parts), a tool call
// and its result are one `tool_use` line, no final result line (`step_finish` with reason `stop`
// ends the turn), and a failed run prints a single `error` line and exits 1.

import { join } from 'node:path';
import { opencodeMcp } from '../mcp-config.ts';
import { asksPerson, initialAcpState, type AcpState } from '../acp/conversation.ts';
import { headlessOrAcp } from '../acp/mode.ts';
import type {
  ExitInfo,
  FailureClass,
  Invocation,
  InvocationRequest,
  RunEndpoint,
  NormalizedEvent,
  ProviderAdapter,
  StepKind,
} from '../types.ts';
import {
  beginTextBlock,
  closeOpenSteps,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  numberAt,
  objectAt,
  parseJsonLine,
  resultFromExit,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

export interface OpencodeState {
  /** The conversation, when the run is driven over ACP (a person answers permission requests). */
  acp?: AcpState;
  /** True when this run resumes a session, so "Session not found" means a stale id. */
  resuming: boolean;
  sessionId?: string;
  /** Each text part is its own block: later parts are preceded by a blank line. */
  text: TextJoinState;
  /** Part ids already emitted, in case a part is printed twice. */
  seenParts: Set<string>;
  /** Tool calls whose step_start was emitted (a completed line then only needs the step_end). */
  steps: Map<string, OpenStep>;
  resultEmitted: boolean;
  /** The structured error of the run, if any (decides the outcome in `finish`). */
  error?: { failure: FailureClass; message: string };
}

type Json = JsonObject;

/** The file holding the system prompt; inside the runner-owned scratch dir, never the project. */
export const SYSTEM_PROMPT_FILE = 'opencode-system-prompt.md';

const TOOL_STEP_KINDS: Record<string, StepKind> = {
  bash: 'command',
  write: 'file',
  edit: 'file',
  multiedit: 'file',
  patch: 'file',
  apply_patch: 'file',
  task: 'subagent',
  webfetch: 'search',
  websearch: 'search',
  codesearch: 'search',
};

/** opencode's tools that run commands, write files, fetch the web or start sub-agents. */
export const OPENCODE_BUILTIN_WRITERS = ['bash', 'edit', 'write', 'multiedit', 'patch', 'apply_patch', 'webfetch', 'websearch', 'codesearch', 'task'];

/** opencode's permission config that asks before edits, commands and web fetches (checked with opencode 1.18). */
export const OPENCODE_ASK = { edit: 'ask', bash: 'ask', webfetch: 'ask' };

function headlessArgs(req: InvocationRequest): string[] {
  const args = ['run', '--format', 'json', '--thinking'];
  if (req.autoApprove) args.push('--auto');
  const model = opencodeModel(req);
  if (model) args.push('-m', model);
  if (req.effort) args.push('--variant', req.effort);
  if (req.resumeSessionId) args.push('--session', req.resumeSessionId);
  return [...args, ...(req.extraArgs ?? [])];
}

function buildInvocation(req: InvocationRequest): Invocation {
  // opencode run has no read-only mode or sandbox flag: refusing beats pretending.
  if (req.readOnly) throw new Error('opencode cannot be run read-only (it has no permission mode or sandbox flag for `run`); use claude, codex, gemini or copilot for a read-only worker');
  const invocation: Invocation = asksPerson(req)
    ? { command: req.executable, args: ['acp', ...(req.extraArgs ?? [])], env: {}, stdin: 'interactive' }
    : { command: req.executable, args: headlessArgs(req), env: {}, stdin: 'write-close', stdinText: req.prompt };
  // OPENCODE_CONFIG_CONTENT is merged over the user's config for this process only.
  const config: Record<string, unknown> = {};
  if (req.systemPrompt) {
    const path = join(req.scratchDir, SYSTEM_PROMPT_FILE);
    invocation.files = [{ path, content: req.systemPrompt, mode: 0o600 }];
    config.instructions = [path];
  }
  if (req.mcpServers?.length) config.mcp = opencodeMcp(req.mcpServers);
  // MCP only: its own tools off by name (the config's `tools` map; checked with opencode 1.18)
  if (req.mcpOnly) config.tools = Object.fromEntries(OPENCODE_BUILTIN_WRITERS.map((t) => [t, false]));
  // Not auto-approving: opencode's own defaults allow edits and commands unasked; with `ask`, `run`
  // rejects them itself ("permission requested: edit (…); auto-rejecting"), as it has nobody to ask,
  // and `acp` asks svc.
  if (!req.autoApprove) config.permission = OPENCODE_ASK;
  if (req.endpoint) config.provider = opencodeEndpointProvider(req.endpoint, req.model);
  if (Object.keys(config).length) invocation.env.OPENCODE_CONFIG_CONTENT = JSON.stringify(config);
  return invocation;
}

/**
 * A run on a model endpoint (a Chat Completions server): an `@ai-sdk/openai-compatible` provider of the run's own,
 * in the inline config (merged over the user's for this process only), whose model the run names as
 * `<endpoint>/<model>`. Tool calls are declared on, which the endpoint's probe checks.
 */
function opencodeEndpointProvider(endpoint: RunEndpoint, model: string | undefined): Record<string, unknown> {
  return {
    [endpoint.id]: {
      npm: '@ai-sdk/openai-compatible',
      name: endpoint.name,
      options: { baseURL: endpoint.baseUrl, ...(endpoint.key ? { apiKey: endpoint.key } : {}) },
      models: model ? { [model]: { name: model, tool_call: true } } : {},
    },
  };
}

/** opencode names a model by its provider: an endpoint's is `<endpoint>/<model>`. */
const opencodeModel = (req: InvocationRequest): string | undefined => (req.endpoint && req.model ? `${req.endpoint.id}/${req.model}` : req.model);

/** The session settings `opencode acp` takes instead of `-m` and `--variant`. */
function acpConfigOptions(req: InvocationRequest): { configId: string; value: string }[] {
  const model = opencodeModel(req);
  return [
    ...(model ? [{ configId: 'model', value: model }] : []),
    ...(req.effort ? [{ configId: 'effort', value: req.effort }] : []),
  ];
}

function initialState(req: InvocationRequest): OpencodeState {
  const state: OpencodeState = {
    resuming: Boolean(req.resumeSessionId),
    text: createTextJoin(),
    seenParts: new Set(),
    steps: new Map(),
    resultEmitted: false,
  };
  if (asksPerson(req)) state.acp = initialAcpState(req, { cli: 'opencode', prompt: req.prompt, configOptions: acpConfigOptions(req) });
  return state;
}

/** Every line carries `sessionID`; the first one announces the session (also on an error line). */
function sessionEvent(state: OpencodeState, line: Json): NormalizedEvent[] {
  const id = stringAt(line, 'sessionID');
  if (!id || state.sessionId) return [];
  state.sessionId = id;
  return [{ kind: 'session', providerSessionId: id }];
}

/** False when the part was already emitted; records it otherwise. */
function firstSighting(state: OpencodeState, part: Json): boolean {
  const id = stringAt(part, 'id');
  if (!id) return true;
  if (state.seenParts.has(id)) return false;
  state.seenParts.add(id);
  return true;
}

function textEvents(state: OpencodeState, part: Json): NormalizedEvent[] {
  const text = stringAt(part, 'text');
  if (text === undefined || text.trim() === '' || !firstSighting(state, part)) return [];
  // Separate parts (e.g. before and after a tool call) are separate paragraphs of the answer.
  beginTextBlock(state.text);
  return textDeltaEvents(state.text, text);
}

function reasoningEvents(state: OpencodeState, part: Json): NormalizedEvent[] {
  const text = stringAt(part, 'text');
  if (text === undefined || text.trim() === '' || !firstSighting(state, part)) return [];
  return [{ kind: 'thinking', text }];
}

function toolEvents(state: OpencodeState, part: Json): NormalizedEvent[] {
  const name = stringAt(part, 'tool') ?? 'tool';
  const stepId = stringAt(part, 'callID') ?? stringAt(part, 'id');
  const toolState = objectAt(part, 'state');
  if (!stepId || !toolState) return [];
  const status = stringAt(toolState, 'status');
  const events: NormalizedEvent[] = [];
  const known = state.steps.get(stepId);
  if (known?.ended) return [];
  if (!known) {
    state.steps.set(stepId, { name, ended: false });
    events.push({
      kind: 'step_start',
      stepId,
      name,
      step: TOOL_STEP_KINDS[name] ?? 'tool',
      input: objectAt(toolState, 'input') ?? {},
    });
  }
  // 1.18.33 prints a tool only once finished; a pending/running line (other versions) opens the step.
  if (status !== 'completed' && status !== 'error') return events;
  state.steps.set(stepId, { name, ended: true });
  const exitCode = numberAt(objectAt(toolState, 'metadata'), 'exit');
  const ok = status === 'completed' && (exitCode === undefined || exitCode === 0);
  const output = status === 'error' ? stringAt(toolState, 'error') : stringAt(toolState, 'output');
  const end: NormalizedEvent = { kind: 'step_end', stepId, name, ok };
  if (output !== undefined) end.output = output;
  if (exitCode !== undefined) end.exitCode = exitCode;
  events.push(end);
  return events;
}

function usageEvent(part: Json): NormalizedEvent[] {
  const tokens = objectAt(part, 'tokens');
  const cost = numberAt(part, 'cost');
  if (!tokens && cost === undefined) return [];
  const usage: Extract<NormalizedEvent, { kind: 'usage' }> = { kind: 'usage' };
  const input = numberAt(tokens, 'input');
  const output = numberAt(tokens, 'output');
  const reasoning = numberAt(tokens, 'reasoning');
  const cached = tokens ? numberAt(objectAt(tokens, 'cache'), 'read') : undefined;
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (cached !== undefined) usage.cachedTokens = cached;
  if (cost !== undefined) usage.costUsd = cost;
  return [usage];
}

function stepFinishEvents(state: OpencodeState, part: Json): NormalizedEvent[] {
  const events = usageEvent(part);
  // `stop` is the model's last step of the turn (`tool-calls` means another step follows). After a
  // structured error the run fails (opencode exits 1), so `finish` decides instead.
  if (stringAt(part, 'reason') === 'stop' && !state.resultEmitted && !state.error) {
    state.resultEmitted = true;
    events.push({ kind: 'result', ok: true });
  }
  return events;
}

/**
 * opencode's session errors: `APIError` (with `statusCode`, `isRetryable`), `ProviderAuthError`,
 * `UnknownError` (e.g. an unknown model), `MessageOutputLengthError`, `MessageAbortedError`.
 */
export function classifyOpencodeError(error: Json): { failure: FailureClass; message: string; httpStatus?: number } {
  const name = stringAt(error, 'name') ?? 'Error';
  const data = objectAt(error, 'data');
  const message = stringAt(data, 'message') ?? name;
  const status = numberAt(data, 'statusCode');
  if (status !== undefined) return { failure: failureFromHttpStatus(status), message, httpStatus: status };
  if (name === 'ProviderAuthError') return { failure: 'auth', message };
  const fromText = failureFromText(message);
  if (fromText) return { failure: fromText, message };
  // No status and no telling text: a retryable API error is the server's fault, anything else unknown.
  return { failure: data?.isRetryable === true ? 'server_error' : 'unknown', message };
}

function errorEvents(state: OpencodeState, line: Json): NormalizedEvent[] {
  const error = objectAt(line, 'error');
  const classified = error ? classifyOpencodeError(error) : { failure: 'unknown' as const, message: 'error' };
  state.error ??= { failure: classified.failure, message: classified.message };
  return [{ kind: 'error', ...classified }];
}

function parseLine(state: OpencodeState, line: string) {
  const parsed = parseJsonLine(line);
  if (!parsed) return { events: [] };
  const events = sessionEvent(state, parsed);
  const part = objectAt(parsed, 'part');
  switch (parsed.type) {
    case 'text':
      if (part) events.push(...textEvents(state, part));
      break;
    case 'reasoning':
      if (part) events.push(...reasoningEvents(state, part));
      break;
    case 'tool_use':
      if (part) events.push(...toolEvents(state, part));
      break;
    case 'step_finish':
      if (part) events.push(...stepFinishEvents(state, part));
      break;
    case 'error':
      events.push(...errorEvents(state, parsed));
      break;
    // step_start carries nothing beyond the session id; `done` (newer versions) adds nothing either.
    default:
      break;
  }
  return { events };
}

/** opencode colours its stderr messages ("\x1b[91m\x1b[1mError: \x1b[0mSession not found"). */
function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

function finish(state: OpencodeState, exit: ExitInfo): NormalizedEvent[] {
  // A tool reported running but never finished (the process was killed): it did not succeed.
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  // The structured error line decides before the exit status (opencode exits 1 after it anyway).
  if (state.error) return [...events, { kind: 'result', ok: false, ...state.error }];
  const stderr = stripAnsi(exit.stderr);
  // `run --session <unknown id>` prints "Error: Session not found" and exits 1 with no stdout.
  const stale = state.resuming && /session not found/i.test(stderr);
  return [...events, resultFromExit({ ...exit, stderr }, stale ? { failure: 'stale_session' } : undefined)];
}

export const opencodeAdapter: ProviderAdapter<OpencodeState> = {
  id: 'opencode',
  displayName: 'OpenCode',
  // One process per turn; a steer interrupts it and resumes the session with `--session`.
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState,
  ...headlessOrAcp({ parseLine, finish }),
};
