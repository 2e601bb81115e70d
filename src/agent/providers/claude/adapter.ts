// Claude Code (`claude -p`) adapter: stream-json in both directions.
//
// The prompt goes to stdin as a stream-json user message and stdin stays open, so a steer is just
// another user message: Claude Code queues it and either injects it into the running turn (after a
// tool call: "The user sent a new message while you were working") or runs it as the next turn
// once the current one has printed its `result`. Several queued messages are merged into one turn.
// `--replay-user-messages` echoes each user message when Claude takes it (`isReplay: true`), which is
// how this adapter knows whether a steer is still waiting; stdin is closed after the first `result`
// with nothing waiting, which makes the CLI exit. (Verified against claude 2.1.197 with a fake API:
// test/fixtures/protocols/claude-stdin-steer*.jsonl.)
//
// Tool permissions asked of a person (askPermissions, without auto-approve): `--permission-prompt-tool
// stdio` makes Claude Code ask on stdout, `{"type":"control_request","request_id",
// "request":{"subtype":"can_use_tool","tool_name","input","description",…}}`, and wait for
// `{"type":"control_response","response":{"subtype":"success","request_id","response":
// {"behavior":"allow","updatedInput"}|{"behavior":"deny","message"}}}` on stdin; a deny's message is the
// tool's result the model reads. (Verified against 2.1.197: test/fixtures/protocols/claude-permission-*.jsonl.)

import { join } from 'node:path';
import { claudeMcpServers } from '../mcp-config.ts';
import type {
  AdapterOutput,
  ExitInfo,
  FailureClass,
  Invocation,
  InvocationRequest,
  NormalizedEvent,
  PermissionAnswer,
  ProviderAdapter,
  RunEndpoint,
  StepKind,
} from '../types.ts';
import {
  beginTextBlock,
  closeOpenSteps,
  contentToText,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isStaleSessionText,
  joinTextBlocks,
  numberAt,
  objectAt,
  objectsAt,
  parseJsonLine,
  parseJsonObject,
  resultFromExit,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

const MCP_CONFIG_FILE = 'mcp-config.json';
const SKILLS_PLUGIN = 'svc-skills';

type ResultEvent = Extract<NormalizedEvent, { kind: 'result' }>;

/** A content block being streamed (`--include-partial-messages`), keyed by parent tool and index. */
interface StreamBlock {
  type: string;
  thinking: string;
  toolId?: string;
  toolName?: string;
  inputJson: string;
}

/** A steer written to stdin that Claude has not echoed back yet. */
interface PendingSteer {
  text: string;
  /** How many `result` lines had been seen when it was written. */
  resultsAtWrite: number;
}

export interface ClaudeState {
  prompt: string;
  sessionId?: string;
  text: TextJoinState;
  /** Message ids whose content arrived as stream events: their `assistant` lines repeat it. */
  streamedMessages: Set<string>;
  blocks: Map<string, StreamBlock>;
  steps: Map<string, OpenStep>;
  initialReplaySeen: boolean;
  pendingSteers: PendingSteer[];
  resultsSeen: number;
  /** `total_cost_usd` is cumulative over the process's turns; usage events carry the increments. */
  costSoFar: number;
  /** The input of each permission request not answered yet: an allow sends it back as `updatedInput`. */
  permissionInputs: Map<string, Record<string, unknown>>;
  /** Final texts of the turns so far (a steer can add turns to the run). */
  turnTexts: string[];
  /** Whether any `result` line carried a `result` text (older formats may not). */
  sawResultText: boolean;
  lastTurn?: ResultEvent;
  /** The synthetic assistant message's `error` field, the structured hint for a failed result. */
  assistantError?: { failure: FailureClass; message: string };
  stdinClosed: boolean;
  resultEmitted: boolean;
}

// ---------------------------------------------------------------------------------------------
// Invocation

/** Claude Code's tools that change files or run commands (what a read-only run does without). */
export const CLAUDE_WRITE_TOOLS = ['Bash', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'];

function buildInvocation(req: InvocationRequest): Invocation {
  const args = [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose', // stream-json output is refused without it
    '--include-partial-messages', // live text deltas
    '--replay-user-messages', // steer acknowledgement (see the header)
  ];
  // The `--flag=value` form keeps a value that starts with "-" from being read as an option.
  // Read-only: the tools that write or run commands are removed from the session, and nothing is
  // auto-approved (in -p mode a tool that needs permission is denied).
  if (req.readOnly) args.push('--permission-mode=default', `--disallowedTools=${CLAUDE_WRITE_TOOLS.join(',')}`);
  else if (req.autoApprove) args.push('--dangerously-skip-permissions');
  else if (req.askPermissions) args.push('--permission-prompt-tool=stdio');
  // MCP only: also no WebFetch (svc's own API is on loopback)
  if (req.mcpOnly && !req.readOnly) args.push(`--disallowedTools=${[...CLAUDE_WRITE_TOOLS, 'WebFetch'].join(',')}`);
  if (req.model) args.push(`--model=${req.model}`);
  if (req.effort) args.push(`--effort=${req.effort}`);
  // Appended to Claude Code's own system prompt (not replacing it); never written into the project.
  if (req.systemPrompt) args.push(`--append-system-prompt=${req.systemPrompt}`);
  if (req.resumeSessionId) args.push(`--resume=${req.resumeSessionId}`);
  // The run's MCP servers in a file of its own; `--mcp-config` adds them to the user's and project's.
  let files: Invocation['files'];
  if (req.mcpServers?.length) {
    const path = join(req.scratchDir, MCP_CONFIG_FILE);
    files = [{ path, content: JSON.stringify({ mcpServers: claudeMcpServers(req.mcpServers) }), mode: 0o600 }];
    args.push(`--mcp-config=${path}`);
  }
  // Enabled skills as real Claude Code skills: a plugin of the run's own whose skills/ links to them.
  let links: Invocation['links'];
  if (req.skills?.length) {
    const plugin = join(req.scratchDir, SKILLS_PLUGIN);
    const manifest = { name: SKILLS_PLUGIN, description: 'The skills enabled in svc', version: '1.0.0' };
    (files ??= []).push({ path: join(plugin, '.claude-plugin', 'plugin.json'), content: JSON.stringify(manifest) });
    links = req.skills.map((s) => ({ path: join(plugin, 'skills', s.id), target: s.dir }));
    args.push(`--plugin-dir=${plugin}`);
  }
  if (req.extraArgs) args.push(...req.extraArgs);
  // Skipping permissions exits 1 under root unless the CLI is told it runs in a sandbox.
  const env: Record<string, string | undefined> = req.autoApprove && !req.readOnly ? { IS_SANDBOX: '1' } : {};
  if (req.endpoint) Object.assign(env, claudeEndpointEnv(req.endpoint, req.model));
  return { command: req.executable, args, env, stdin: 'interactive', ...(files ? { files } : {}), ...(links ? { links } : {}) };
}

/**
 * A run on a model endpoint (an Anthropic-compatible server: Ollama ≥ 0.14, LiteLLM): Claude Code's gateway
 * variables for this process. The user's own Anthropic key is not sent to that server (unset here), the endpoint's
 * key goes as the bearer token, and the small model Claude Code uses for its own chores is the run's model (the
 * server has no Haiku).
 */
function claudeEndpointEnv(endpoint: RunEndpoint, model: string | undefined): Record<string, string | undefined> {
  return {
    ANTHROPIC_BASE_URL: endpoint.baseUrl,
    ANTHROPIC_AUTH_TOKEN: endpoint.key ?? 'no-key',
    ANTHROPIC_API_KEY: undefined,
    ...(model ? { ANTHROPIC_DEFAULT_HAIKU_MODEL: model, ANTHROPIC_SMALL_FAST_MODEL: model } : {}),
    // no calls to Anthropic's own services (telemetry, updates) from a run meant to stay on the user's server
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

export function userMessageLine(text: string): string {
  return JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } });
}

function initialState(req: InvocationRequest): ClaudeState {
  return {
    prompt: req.prompt,
    text: createTextJoin(),
    streamedMessages: new Set(),
    blocks: new Map(),
    steps: new Map(),
    initialReplaySeen: false,
    pendingSteers: [],
    resultsSeen: 0,
    costSoFar: 0,
    permissionInputs: new Map(),
    turnTexts: [],
    sawResultText: false,
    stdinClosed: false,
    resultEmitted: false,
  };
}

function start(state: ClaudeState, req: InvocationRequest): AdapterOutput {
  state.prompt = req.prompt;
  return { events: [], writes: [userMessageLine(req.prompt)] };
}

function steer(state: ClaudeState, prompt: string): AdapterOutput {
  // Once stdin is closed the CLI is finishing: nothing can be delivered any more (empty `writes`).
  if (state.stdinClosed) return { events: [], writes: [] };
  state.pendingSteers.push({ text: prompt, resultsAtWrite: state.resultsSeen });
  return { events: [], writes: [userMessageLine(prompt)] };
}

// ---------------------------------------------------------------------------------------------
// Steps

export function claudeStepKind(toolName: string): StepKind {
  switch (toolName) {
    case 'Task':
    case 'Agent':
      return 'subagent';
    case 'Bash':
      return 'command';
    case 'WebSearch':
    case 'WebFetch':
      return 'search';
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return 'file';
    default:
      return 'tool';
  }
}

function stepStartEvents(state: ClaudeState, id: string, name: string, input: JsonObject): NormalizedEvent[] {
  if (state.steps.has(id)) return [];
  state.steps.set(id, { name, ended: false });
  return [{ kind: 'step_start', stepId: id, name, step: claudeStepKind(name), input }];
}

function toolResultEvents(state: ClaudeState, block: JsonObject): NormalizedEvent[] {
  const id = stringAt(block, 'tool_use_id');
  if (!id) return [];
  const events = stepStartEvents(state, id, 'tool', {});
  const step = state.steps.get(id);
  if (!step || step.ended) return events;
  step.ended = true;
  const ok = block.is_error !== true;
  const output = contentToText(block.content);
  const end: NormalizedEvent = { kind: 'step_end', stepId: id, name: step.name, ok };
  if (output !== undefined) end.output = output;
  // A failed Bash call's result starts with "Exit code N"; a successful one carries no code.
  const exitCode = /^Exit code (\d+)/.exec(output ?? '')?.[1];
  if (!ok && exitCode !== undefined) end.exitCode = Number(exitCode);
  events.push(end);
  return events;
}

// ---------------------------------------------------------------------------------------------
// stream_event lines (partial messages)

function blockKey(line: JsonObject, index: number | undefined): string {
  return `${stringAt(line, 'parent_tool_use_id') ?? ''}:${index ?? -1}`;
}

function isMainAgent(line: JsonObject): boolean {
  // Sub-agent (Task) messages carry the id of the tool call that runs them; their text is not the answer.
  return !stringAt(line, 'parent_tool_use_id');
}

function streamEventEvents(state: ClaudeState, line: JsonObject): NormalizedEvent[] {
  const event = objectAt(line, 'event');
  const key = blockKey(line, numberAt(event, 'index'));
  switch (stringAt(event, 'type')) {
    case 'message_start': {
      const id = stringAt(objectAt(event, 'message'), 'id');
      if (id) state.streamedMessages.add(id);
      return [];
    }
    case 'content_block_start':
      return blockStartEvents(state, line, key, objectAt(event, 'content_block'));
    case 'content_block_delta':
      return blockDeltaEvents(state, line, key, objectAt(event, 'delta'));
    case 'content_block_stop':
      return blockStopEvents(state, line, key);
    default:
      return [];
  }
}

function blockStartEvents(
  state: ClaudeState,
  line: JsonObject,
  key: string,
  block: JsonObject | undefined,
): NormalizedEvent[] {
  const type = stringAt(block, 'type') ?? 'unknown';
  const stream: StreamBlock = { type, thinking: '', inputJson: '' };
  if (type === 'tool_use' || type === 'server_tool_use') {
    stream.toolId = stringAt(block, 'id');
    stream.toolName = stringAt(block, 'name');
  }
  state.blocks.set(key, stream);
  if (type === 'text' && isMainAgent(line)) beginTextBlock(state.text);
  return [];
}

function blockDeltaEvents(
  state: ClaudeState,
  line: JsonObject,
  key: string,
  delta: JsonObject | undefined,
): NormalizedEvent[] {
  const block = state.blocks.get(key);
  switch (stringAt(delta, 'type')) {
    case 'text_delta':
      return isMainAgent(line) ? textDeltaEvents(state.text, stringAt(delta, 'text') ?? '') : [];
    case 'thinking_delta':
      if (block) block.thinking += stringAt(delta, 'thinking') ?? '';
      return [];
    case 'input_json_delta':
      if (block) block.inputJson += stringAt(delta, 'partial_json') ?? '';
      return [];
    default:
      return [];
  }
}

function blockStopEvents(state: ClaudeState, line: JsonObject, key: string): NormalizedEvent[] {
  const block = state.blocks.get(key);
  state.blocks.delete(key);
  if (!block) return [];
  // Thinking is buffered to one event per block; a signature-only (redacted) block has no text.
  if (block.type === 'thinking' && block.thinking && isMainAgent(line)) {
    return [{ kind: 'thinking', text: block.thinking }];
  }
  // Normally the `assistant` line with the complete input came first; this covers its absence.
  if (block.toolId && block.toolName) {
    const input = parseJsonObject(block.inputJson || '{}') ?? {};
    return stepStartEvents(state, block.toolId, block.toolName, input);
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// assistant / user / system lines

const ASSISTANT_ERRORS: Record<string, FailureClass> = {
  rate_limit: 'rate_limit',
  overloaded: 'overloaded',
  server_error: 'server_error',
  authentication_failed: 'auth',
  // Out of credits: another provider helps, retrying the same one does not; closest is a quota signal.
  billing_error: 'rate_limit',
  invalid_request: 'invalid_request',
};

function assistantErrorEvents(state: ClaudeState, line: JsonObject, message: JsonObject | undefined): NormalizedEvent[] {
  const text = objectsAt(message, 'content')
    .map((block) => stringAt(block, 'text') ?? '')
    .join('\n');
  const status = httpStatusFromText(text);
  // The HTTP status is the more precise signal (a 529 arrives with `error: "server_error"`).
  const failure =
    status !== undefined ? failureFromHttpStatus(status) : (ASSISTANT_ERRORS[stringAt(line, 'error') ?? ''] ?? 'unknown');
  state.assistantError = { failure, message: text };
  const event: NormalizedEvent = { kind: 'error', failure, message: text };
  if (status !== undefined) event.httpStatus = status;
  return [event];
}

function assistantEvents(state: ClaudeState, line: JsonObject): NormalizedEvent[] {
  const message = objectAt(line, 'message');
  if (stringAt(line, 'error') !== undefined || stringAt(message, 'model') === '<synthetic>') {
    return assistantErrorEvents(state, line, message);
  }
  // With partial messages the text and thinking were already emitted from the stream events.
  const streamed = state.streamedMessages.has(stringAt(message, 'id') ?? '');
  const main = isMainAgent(line);
  const events: NormalizedEvent[] = [];
  for (const block of objectsAt(message, 'content')) {
    const type = stringAt(block, 'type');
    if (type === 'text' && main && !streamed) {
      beginTextBlock(state.text);
      events.push(...textDeltaEvents(state.text, stringAt(block, 'text') ?? ''));
    } else if (type === 'thinking' && main && !streamed) {
      const thinking = stringAt(block, 'thinking');
      if (thinking) events.push({ kind: 'thinking', text: thinking });
    } else if (type === 'tool_use' || type === 'server_tool_use') {
      const id = stringAt(block, 'id');
      const name = stringAt(block, 'name') ?? 'tool';
      if (id) events.push(...stepStartEvents(state, id, name, objectAt(block, 'input') ?? {}));
    }
  }
  return events;
}

function replayTexts(message: JsonObject | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  return objectsAt(message, 'content')
    .map((block) => stringAt(block, 'text') ?? '')
    .join('\n');
}

/** A replayed user message: Claude has taken these prompts (merged ones arrive in one line). */
function acknowledgeReplay(state: ClaudeState, message: JsonObject | undefined): void {
  let text = replayTexts(message);
  if (!state.initialReplaySeen && text.includes(state.prompt)) {
    state.initialReplaySeen = true;
    text = text.replace(state.prompt, '');
  }
  state.pendingSteers = state.pendingSteers.filter((steer) => {
    const at = text.indexOf(steer.text);
    if (at < 0) return true;
    text = text.slice(0, at) + text.slice(at + steer.text.length);
    return false;
  });
}

function userEvents(state: ClaudeState, line: JsonObject): NormalizedEvent[] {
  const message = objectAt(line, 'message');
  if (line.isReplay === true) {
    acknowledgeReplay(state, message);
    return [];
  }
  const events: NormalizedEvent[] = [];
  for (const block of objectsAt(message, 'content')) {
    if (stringAt(block, 'type') === 'tool_result') events.push(...toolResultEvents(state, block));
  }
  return events;
}

function sessionEvents(state: ClaudeState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'session_id');
  // Every turn of a process prints its own init line with the same id: report it once.
  if (!id || id === state.sessionId) return [];
  state.sessionId = id;
  const event: NormalizedEvent = { kind: 'session', providerSessionId: id };
  const model = stringAt(line, 'model');
  if (model) event.model = model;
  return [event];
}

function systemEvents(state: ClaudeState, line: JsonObject): NormalizedEvent[] {
  switch (stringAt(line, 'subtype')) {
    case 'init':
      return sessionEvents(state, line);
    case 'api_retry': {
      const error = stringAt(line, 'error') ?? 'error';
      const status = numberAt(line, 'error_status');
      const event: NormalizedEvent = {
        kind: 'provider_retry',
        reason: status !== undefined ? `${error} (HTTP ${status})` : error,
      };
      const attempt = numberAt(line, 'attempt');
      const delay = numberAt(line, 'retry_delay_ms');
      if (attempt !== undefined) event.attempt = attempt;
      if (delay !== undefined) event.delayMs = Math.round(delay);
      return [event];
    }
    default:
      return [];
  }
}

function rateLimitEvents(line: JsonObject): NormalizedEvent[] {
  const info = objectAt(line, 'rate_limit_info');
  if (stringAt(info, 'status') !== 'rejected') return [];
  const kind = stringAt(info, 'rateLimitType') ?? 'quota';
  return [{ kind: 'error', failure: 'rate_limit', message: `Claude usage limit reached (${kind})` }];
}

// ---------------------------------------------------------------------------------------------
// result lines

function usageEvent(state: ClaudeState, line: JsonObject): NormalizedEvent {
  const usage = objectAt(line, 'usage');
  const event: NormalizedEvent = { kind: 'usage' };
  const input = numberAt(usage, 'input_tokens');
  const output = numberAt(usage, 'output_tokens');
  const cached = numberAt(usage, 'cache_read_input_tokens');
  const totalCost = numberAt(line, 'total_cost_usd');
  if (input !== undefined) event.inputTokens = input;
  if (output !== undefined) event.outputTokens = output;
  if (cached !== undefined) event.cachedTokens = cached;
  if (totalCost !== undefined) {
    event.costUsd = Math.max(0, totalCost - state.costSoFar);
    state.costSoFar = Math.max(state.costSoFar, totalCost);
  }
  return event;
}

/** Why a turn failed: HTTP status, then the stale-resume wording, then the assistant's error field. */
function resultFailure(state: ClaudeState, line: JsonObject, message: string): FailureClass {
  const status = numberAt(line, 'api_error_status');
  if (status !== undefined) return failureFromHttpStatus(status);
  if (isStaleSessionText(message)) return 'stale_session';
  if (state.assistantError) return state.assistantError.failure;
  return failureFromText(message) ?? 'unknown';
}

function turnOutcome(state: ClaudeState, line: JsonObject): ResultEvent {
  if (line.is_error !== true) {
    const text = stringAt(line, 'result');
    return text === undefined ? { kind: 'result', ok: true } : { kind: 'result', ok: true, text };
  }
  const errors = (Array.isArray(line.errors) ? line.errors : []).filter((e): e is string => typeof e === 'string');
  const message =
    errors.join('\n') || stringAt(line, 'result') || state.assistantError?.message || stringAt(line, 'subtype') || 'error';
  return { kind: 'result', ok: false, failure: resultFailure(state, line, message), message };
}

/**
 * Without the replay echo (older CLIs), a steer written during turn N is taken by turn N+1 at the
 * latest: once a further result arrived it is no longer waiting.
 */
function dropTakenSteers(state: ClaudeState): void {
  state.pendingSteers = state.pendingSteers.filter((steer) => steer.resultsAtWrite >= state.resultsSeen - 1);
}

function finalResult(state: ClaudeState): ResultEvent {
  const last = state.lastTurn ?? { kind: 'result', ok: true };
  state.resultEmitted = true;
  if (!last.ok) return last;
  // Claude's `result` is the authoritative answer of a turn; steered runs answer in several turns.
  if (!state.sawResultText) return { kind: 'result', ok: true };
  return { kind: 'result', ok: true, text: joinTextBlocks(state.turnTexts) };
}

function resultOutput(state: ClaudeState, line: JsonObject): AdapterOutput {
  state.resultsSeen += 1;
  // No session event from here: a stale-resume result echoes the unknown id it was given.
  const events: NormalizedEvent[] = [usageEvent(state, line)];
  const outcome = turnOutcome(state, line);
  state.lastTurn = outcome;
  if (outcome.ok && outcome.text !== undefined) {
    state.sawResultText = true;
    if (outcome.text) state.turnTexts.push(outcome.text);
  }
  state.assistantError = undefined;
  dropTakenSteers(state);
  // A steer is still queued: Claude runs another turn in this process, so stdin stays open.
  if (state.pendingSteers.length > 0) return { events };
  state.stdinClosed = true;
  events.push(finalResult(state));
  return { events, closeStdin: true };
}

// ---------------------------------------------------------------------------------------------

/** `can_use_tool`: Claude Code asks whether a tool may run (only with --permission-prompt-tool stdio). */
function controlRequestEvents(state: ClaudeState, line: Record<string, unknown>): NormalizedEvent[] {
  const request = objectAt(line, 'request');
  const requestId = stringAt(line, 'request_id');
  if (!request || !requestId || stringAt(request, 'subtype') !== 'can_use_tool') return [];
  const input = objectAt(request, 'input') ?? {};
  state.permissionInputs.set(requestId, input);
  const description = stringAt(request, 'description');
  return [{ kind: 'permission_request', requestId, tool: stringAt(request, 'tool_name') ?? 'tool', input, ...(description ? { description } : {}) }];
}

function answerPermission(state: ClaudeState, requestId: string, answer: PermissionAnswer): AdapterOutput {
  const asked = state.permissionInputs.get(requestId) ?? {};
  state.permissionInputs.delete(requestId);
  // updatedInput is required with allow: the tool runs with what it carries (what it asked, unless changed)
  const response = answer.allow ? { behavior: 'allow', updatedInput: answer.input ?? asked } : { behavior: 'deny', message: answer.reason };
  return { events: [], writes: [JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } })] };
}

function parseLine(state: ClaudeState, raw: string): AdapterOutput {
  const line = parseJsonLine(raw);
  if (!line) return { events: [] };
  switch (stringAt(line, 'type')) {
    case 'control_request':
      return { events: controlRequestEvents(state, line) };
    case 'system':
      return { events: systemEvents(state, line) };
    case 'stream_event':
      return { events: streamEventEvents(state, line) };
    case 'assistant':
      return { events: assistantEvents(state, line) };
    case 'user':
      return { events: userEvents(state, line) };
    case 'rate_limit_event':
      return { events: rateLimitEvents(line) };
    case 'result':
      return resultOutput(state, line);
    default:
      return { events: [] };
  }
}

function finish(state: ClaudeState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  // The process ended while a steer was still queued: the last turn decides.
  if (state.lastTurn) {
    events.push(finalResult(state));
    return events;
  }
  events.push(resultFromExit(exit, state.assistantError));
  return events;
}

export const claudeAdapter: ProviderAdapter<ClaudeState> = {
  id: 'claude',
  displayName: 'Claude Code',
  steerMode: 'live',
  buildInvocation,
  initialState,
  start,
  parseLine,
  steer,
  answerPermission,
  finish,
};
