// GitHub Copilot CLI over the Agent Client Protocol (`copilot --acp`: JSON-RPC 2.0, one message per
// line on stdin/stdout), checked against @github/copilot 1.0.102 (test/fixtures/protocols/copilot-acp-*).
//
// Conversation: start() sends `initialize`; its answer triggers `session/new` {cwd, mcpServers: []}
// (or `session/load` {sessionId, cwd, mcpServers: []} to resume, whose history replay is muted);
// that answer triggers `session/prompt`; the `session/prompt` answer ends the turn and stdin is
// closed, on which copilot exits 0.
//
// Tool permissions: copilot asks `session/request_permission` {toolCall {toolCallId, title, kind,
// rawInput, locations}, options [{optionId, kind: allow_once|allow_always|reject_once}]} before each
// tool it is not told to allow. Auto-approving, or with nobody to ask, the adapter answers at once
// (allow once, or reject once). With askPermissions, the request becomes a `permission_request` and
// waits for the person's answer: `{outcome: {outcome: "selected", optionId}}`. ACP answers carry no
// reason: a rejected call ends copilot's turn ("Info: Operation cancelled by user", the model is not
// called again), so a deny's reason never reaches the agent (copilot-acp-write-deny.jsonl).
//
// Invocation choices (verified with 1.0.102 against a fake model API):
// - `--allow-all-tools` is accepted with `--acp` and stops tool permission requests; requests that
//   remain (paths outside the work dir) are answered with "allow once" when auto-approving.
// - `--model <m>` and `--reasoning-effort <e>` are accepted with `--acp` (both reached the model API).
// - System prompt: a `*.instructions.md` file under `<scratchDir>/copilot-instructions/instructions/`,
//   with COPILOT_CUSTOM_INSTRUCTIONS_DIRS naming that directory. Copilot adds it to its system prompt
//   next to the user's own instructions; no user or project file is touched. Caveat: a user who sets
//   COPILOT_CUSTOM_INSTRUCTIONS_DIRS for the service has it replaced on runs with a system prompt.
//
// Copilot reports model-API trouble not as JSON-RPC errors but as whole `agent_message_chunk`s
// prefixed "Info: " (a retry, a created file), "Warning: " or "Error: " ("Failed to get response
// from the AI model; retried 5 times … Last error: 500 …"), and then answers the prompt with
// `end_turn` and no usage. Such a chunk is recognised only when it starts a message and the next
// line does not continue that message, so an answer that merely begins with "Error: " stays text.
//
// Steer is live: ACP has `session/cancel`; copilot answers the running prompt with
// `stopReason: "cancelled"` within milliseconds and accepts a new `session/prompt` in the same
// process (copilot-acp-cancel.jsonl).

import { join } from 'node:path';
import { copilotMcpServers } from '../mcp-config.ts';
import type {
  AdapterOutput,
  ExitInfo,
  FailureClass,
  Invocation,
  InvocationRequest,
  NormalizedEvent,
  PermissionAnswer,
  ProviderAdapter,
  StepKind,
} from '../types.ts';
import {
  beginTextBlock,
  closeOpenSteps,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isJsonObject,
  isStaleSessionText,
  numberAt,
  objectAt,
  objectsAt,
  parseJsonLine,
  resultFromExit,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

type Method = 'initialize' | 'session/new' | 'session/load' | 'session/prompt';
type Phase = 'initializing' | 'opening' | 'prompting' | 'done';
type Failure = { failure: FailureClass; message: string; httpStatus?: number };
type HeldPermission = { rpcId: string | number; options: JsonObject[] };

export interface CopilotState {
  prompt: string;
  cwd: string;
  resumeSessionId?: string;
  autoApprove: boolean;
  /** A person answers permission requests (askPermissions, neither auto-approving nor read-only). */
  askPermissions: boolean;
  /** Permission requests held for the person, by requestId (the JSON-RPC id as a string). */
  heldPermissions: Map<string, HeldPermission>;
  phase: Phase;
  nextId: number;
  /** Our requests awaiting an answer, by JSON-RPC id. */
  pending: Map<number, Method>;
  sessionId?: string;
  /** The `session/prompt` whose answer ends the turn (a steer supersedes the previous one). */
  activePromptId?: number;
  /** Steer prompts that arrived before the first `session/prompt` was sent. */
  queuedPrompts: string[];
  /** True while `session/load` replays the history: those updates are not this run's output. */
  muted: boolean;
  text: TextJoinState;
  /** The last update was a message chunk emitted as text (a chunk after it continues the message). */
  inMessage: boolean;
  /** A message-starting chunk that looks like a copilot notice, held until the next line decides. */
  noticeCandidate?: string;
  thought: string;
  steps: Map<string, OpenStep & { output?: string }>;
  retries: number;
  /** The failure reported so far (a notice, or an error answer); decides the result. */
  failure?: Failure;
  resultEmitted: boolean;
}

const MCP_CONFIG_FILE = 'mcp-config.json';

const TOOL_KIND_STEPS: Record<string, StepKind> = {
  execute: 'command',
  edit: 'file',
  delete: 'file',
  move: 'file',
  search: 'search',
  fetch: 'search',
  think: 'thinking',
};

const NOTICE_RE = /^(Info|Warning|Error): (.+)$/s;

/** ACP error codes: -32000 authentication required, -32002 resource (session) not found. */
const ACP_AUTH_REQUIRED = -32000;
const ACP_NOT_FOUND = -32002;

/** The directory named by COPILOT_CUSTOM_INSTRUCTIONS_DIRS, inside the runner-owned scratch dir. */
export const INSTRUCTIONS_DIR = 'copilot-instructions';
export const SYSTEM_PROMPT_FILE = join('instructions', 'svc-system-prompt.instructions.md');

// ---------------------------------------------------------------------------------------------
// Invocation and JSON-RPC messages

/** Copilot CLI's tools that run commands, write files or start sub-agents. */
export const COPILOT_BUILTIN_WRITERS = ['bash', 'read_bash', 'write_bash', 'stop_bash', 'list_bash', 'create', 'edit', 'write_agent', 'task'];

const autoApproves = (req: InvocationRequest) => req.autoApprove && !req.readOnly;

function buildInvocation(req: InvocationRequest): Invocation {
  const args = ['--acp'];
  // Read-only: no tool is pre-allowed and every permission request copilot sends is declined.
  if (autoApproves(req)) args.push('--allow-all-tools');
  if (req.model) args.push('--model', req.model);
  if (req.effort) args.push('--reasoning-effort', req.effort);
  const files: NonNullable<Invocation['files']> = [];
  // `--additional-mcp-config @file` augments ~/.copilot/mcp-config.json for this session only.
  if (req.mcpServers?.length) {
    const path = join(req.scratchDir, MCP_CONFIG_FILE);
    files.push({ path, content: JSON.stringify({ mcpServers: copilotMcpServers(req.mcpServers) }), mode: 0o600 });
    args.push('--additional-mcp-config', `@${path}`);
  }
  // MCP only: its shell, file-writing and sub-agent tools are not offered at all (checked with copilot's --help and a fake model)
  if (req.mcpOnly) args.push(`--excluded-tools=${COPILOT_BUILTIN_WRITERS.join(',')}`);
  args.push(...(req.extraArgs ?? []));
  // COPILOT_ALLOW_ALL in the service's environment would allow every tool as --allow-all-tools does
  const env: Invocation['env'] = autoApproves(req) ? {} : { COPILOT_ALLOW_ALL: undefined };
  const invocation: Invocation = { command: req.executable, args, env, stdin: 'interactive', ...(files.length ? { files } : {}) };
  if (req.systemPrompt) {
    const dir = join(req.scratchDir, INSTRUCTIONS_DIR);
    invocation.files = [...files, { path: join(dir, SYSTEM_PROMPT_FILE), content: req.systemPrompt, mode: 0o600 }];
    invocation.env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS = dir;
  }
  return invocation;
}

function initialState(req: InvocationRequest): CopilotState {
  const state: CopilotState = {
    prompt: req.prompt,
    cwd: req.cwd,
    autoApprove: autoApproves(req),
    askPermissions: !req.autoApprove && !req.readOnly && req.askPermissions === true,
    heldPermissions: new Map(),
    phase: 'initializing',
    nextId: 1,
    pending: new Map(),
    queuedPrompts: [],
    muted: false,
    text: createTextJoin(),
    inMessage: false,
    thought: '',
    steps: new Map(),
    retries: 0,
    resultEmitted: false,
  };
  if (req.resumeSessionId) state.resumeSessionId = req.resumeSessionId;
  return state;
}

function request(state: CopilotState, method: Method, params: JsonObject): string {
  const id = state.nextId++;
  state.pending.set(id, method);
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

function promptRequest(state: CopilotState, texts: string[]): string {
  const line = request(state, 'session/prompt', {
    sessionId: state.sessionId,
    prompt: texts.map((text) => ({ type: 'text', text })),
  });
  state.activePromptId = state.nextId - 1;
  state.phase = 'prompting';
  // A new prompt starts a new block of the answer.
  state.inMessage = false;
  return line;
}

function start(state: CopilotState): AdapterOutput {
  const init = request(state, 'initialize', {
    protocolVersion: 1,
    // We serve no files or terminals: copilot uses its own tools for both.
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'svc', version: '0.1.0' },
  });
  return { events: [], writes: [init] };
}

// ---------------------------------------------------------------------------------------------
// Session updates

/**
 * The text of ACP content: a string, a `{type:'text'}` block, or an array of blocks and
 * `{type:'content', content:{type:'text'}}` wrappers (diffs and other kinds carry no text).
 */
export function acpContentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map(acpContentText).filter((t): t is string => t !== undefined);
    return texts.length > 0 ? texts.join('\n') : undefined;
  }
  if (!isJsonObject(content)) return undefined;
  if (content.type === 'text') return stringAt(content, 'text');
  if (content.type === 'content') return acpContentText(content.content);
  return undefined;
}

function flushThought(state: CopilotState): NormalizedEvent[] {
  const text = state.thought;
  state.thought = '';
  return text.trim() === '' ? [] : [{ kind: 'thinking', text }];
}

function messageText(state: CopilotState, text: string): NormalizedEvent[] {
  if (!state.inMessage) beginTextBlock(state.text);
  state.inMessage = true;
  return textDeltaEvents(state.text, text);
}

/** "Last error: 500 …" in copilot's final error notice, else any status the text states. */
function statusOfNotice(text: string): number | undefined {
  const match = /Last error:\s*([45]\d\d)\b/i.exec(text);
  return match?.[1] ? Number(match[1]) : httpStatusFromText(text);
}

function noticeEvents(state: CopilotState, notice: string): NormalizedEvent[] {
  const [, level, message = notice] = NOTICE_RE.exec(notice) ?? [];
  if (level === 'Error') {
    const status = statusOfNotice(message);
    const failure: Failure =
      status !== undefined
        ? { failure: failureFromHttpStatus(status), message, httpStatus: status }
        : { failure: failureFromText(message) ?? 'unknown', message };
    state.failure ??= failure;
    return [{ kind: 'error', ...failure }];
  }
  if (level === 'Info' && /retrying/i.test(message)) {
    state.retries += 1;
    return [{ kind: 'provider_retry', attempt: state.retries, reason: message }];
  }
  // Other notices ("Info: <path>" after a file was created, warnings) are not part of the answer.
  return [];
}

/**
 * Decides a held notice candidate once the next line is known: a chunk that continues the message
 * proves it was answer text; anything else (or the end of output) makes it a notice.
 */
function resolveCandidate(state: CopilotState, nextContinuesMessage: boolean): NormalizedEvent[] {
  const candidate = state.noticeCandidate;
  if (candidate === undefined) return [];
  state.noticeCandidate = undefined;
  if (nextContinuesMessage) return messageText(state, candidate);
  state.inMessage = false;
  return noticeEvents(state, candidate);
}

function messageChunkEvents(state: CopilotState, update: JsonObject): NormalizedEvent[] {
  const text = acpContentText(update.content);
  const events = flushThought(state);
  if (text === undefined || text === '') return events;
  const looksLikeNotice = NOTICE_RE.test(text);
  events.push(...resolveCandidate(state, !looksLikeNotice));
  if (!state.inMessage && looksLikeNotice) {
    state.noticeCandidate = text;
    return events;
  }
  events.push(...messageText(state, text));
  return events;
}

function stepKindOf(update: JsonObject, name: string): StepKind {
  const input = objectAt(update, 'rawInput');
  const agentType = stringAt(input, 'agent_type') ?? stringAt(input, 'agentType') ?? stringAt(input, 'subagent_type');
  if (agentType !== undefined || name === 'task') return 'subagent';
  return TOOL_KIND_STEPS[stringAt(update, 'kind') ?? ''] ?? 'tool';
}

function stepStart(state: CopilotState, stepId: string, update: JsonObject): NormalizedEvent {
  // ACP v1 has no tool name: the title ("Print a greeting", "Creating …/x.txt") names the step.
  const name = stringAt(update, 'name') ?? stringAt(update, 'title') ?? stringAt(update, 'kind') ?? 'tool';
  state.steps.set(stepId, { name, ended: false });
  return { kind: 'step_start', stepId, name, step: stepKindOf(update, name), input: objectAt(update, 'rawInput') ?? {} };
}

/** The tool's output: its text content, else copilot's `rawOutput.content` (e.g. for a diff). */
function toolOutput(update: JsonObject): string | undefined {
  const text = acpContentText(update.content);
  if (text !== undefined) return text;
  const raw = update.rawOutput;
  return typeof raw === 'string' ? raw : stringAt(isJsonObject(raw) ? raw : undefined, 'content');
}

/** Copilot's shell tool reports `rawOutput.contents[{type:'shell_exit', exitCode}]`. */
function shellExitCode(update: JsonObject): number | undefined {
  const raw = objectAt(update, 'rawOutput');
  const exit = objectsAt(raw, 'contents').find((c) => c.type === 'shell_exit');
  return numberAt(exit, 'exitCode');
}

function toolEvents(state: CopilotState, update: JsonObject): NormalizedEvent[] {
  const stepId = stringAt(update, 'toolCallId');
  if (!stepId) return [];
  const events: NormalizedEvent[] = [];
  const known = state.steps.get(stepId);
  if (!known) events.push(stepStart(state, stepId, update));
  const step = state.steps.get(stepId);
  if (!step || step.ended) return events;
  const output = toolOutput(update);
  if (output !== undefined) step.output = output;
  const status = stringAt(update, 'status');
  if (status !== 'completed' && status !== 'failed') return events;
  step.ended = true;
  const exitCode = shellExitCode(update);
  const end: NormalizedEvent = {
    kind: 'step_end',
    stepId,
    name: step.name,
    ok: status === 'completed' && (exitCode === undefined || exitCode === 0),
  };
  if (step.output !== undefined) end.output = step.output;
  if (exitCode !== undefined) end.exitCode = exitCode;
  events.push(end);
  return events;
}

function updateEvents(state: CopilotState, update: JsonObject): NormalizedEvent[] {
  const kind = stringAt(update, 'sessionUpdate');
  if (kind === 'agent_message_chunk') return messageChunkEvents(state, update);
  // Informational updates neither end a message nor carry output.
  if (
    kind === 'session_info_update' ||
    kind === 'available_commands_update' ||
    kind === 'config_option_update' ||
    kind === 'current_mode_update' ||
    kind === 'user_message_chunk'
  ) {
    return [];
  }
  const events = resolveCandidate(state, false);
  state.inMessage = false;
  if (kind === 'agent_thought_chunk') {
    state.thought += acpContentText(update.content) ?? '';
    return events;
  }
  events.push(...flushThought(state));
  if (kind === 'tool_call' || kind === 'tool_call_update') events.push(...toolEvents(state, update));
  // `usage_update` (context window fill) and `plan` only mark a boundary between messages.
  return events;
}

// ---------------------------------------------------------------------------------------------
// Requests from the agent

function chooseOption(options: JsonObject[], allow: boolean): string | undefined {
  // "allow once" before "always": an "always" answer may be remembered by copilot beyond this run.
  const preference = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of preference) {
    const option = options.find((o) => o.kind === kind);
    const id = stringAt(option, 'optionId');
    if (id) return id;
  }
  const word = allow ? /allow|approve|yes/i : /reject|deny|no\b/i;
  return stringAt(
    options.find((o) => word.test(`${stringAt(o, 'optionId') ?? ''} ${stringAt(o, 'name') ?? ''}`)),
    'optionId',
  );
}

function permissionAnswer(id: unknown, optionId: string | undefined): string {
  const outcome = optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' };
  return JSON.stringify({ jsonrpc: '2.0', id, result: { outcome } });
}

/**
 * A held request as a person reads it. ACP v1 names no tool: its `kind` (execute, edit, delete, move,
 * read, search, fetch, other) is the tool, stable across calls, so remembered rules read `execute(npm test)`
 * or `edit(<path>)`; the title ("Create file", the model's description of a command) is the description.
 * `rawInput` is copilot's own: `{command, commands}` for a shell, `{fileName, diff}` for a file.
 */
function permissionRequestEvent(requestId: string, params: JsonObject | undefined): NormalizedEvent {
  const call = objectAt(params, 'toolCall');
  const title = stringAt(call, 'title');
  return {
    kind: 'permission_request',
    requestId,
    tool: stringAt(call, 'kind') ?? 'other',
    input: objectAt(call, 'rawInput') ?? {},
    ...(title ? { description: title } : {}),
  };
}

function permissionRequest(state: CopilotState, message: JsonObject): AdapterOutput {
  const id = message.id as string | number;
  const params = objectAt(message, 'params');
  const options = objectsAt(params, 'options');
  if (!state.askPermissions) return { events: [], writes: [permissionAnswer(id, chooseOption(options, state.autoApprove))] };
  const requestId = String(id);
  state.heldPermissions.set(requestId, { rpcId: id, options });
  return { events: [permissionRequestEvent(requestId, params)] };
}

function requestAnswer(state: CopilotState, message: JsonObject): AdapterOutput {
  if (message.method === 'session/request_permission') return permissionRequest(state, message);
  // We announced no fs/terminal capabilities; anything else is unknown to us.
  return { events: [], writes: [JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })] };
}

/**
 * The person's answer: the option of the matching kind ("allow once": svc's own rules remember, not
 * copilot). ACP can neither change the tool's input nor carry a deny's reason, so both stay with svc.
 * A request no longer held (cancelled by a steer) gets no answer.
 */
function answerPermission(state: CopilotState, requestId: string, answer: PermissionAnswer): AdapterOutput {
  const held = state.heldPermissions.get(requestId);
  if (!held) return { events: [] };
  state.heldPermissions.delete(requestId);
  return { events: [], writes: [permissionAnswer(held.rpcId, chooseOption(held.options, answer.allow))] };
}

/** ACP: after `session/cancel`, every request still pending is answered `cancelled`. */
function cancelHeldPermissions(state: CopilotState): string[] {
  const writes = [...state.heldPermissions.values()].map((held) => permissionAnswer(held.rpcId, undefined));
  state.heldPermissions.clear();
  return writes;
}

// ---------------------------------------------------------------------------------------------
// Answers to our requests

export function classifyRpcError(error: JsonObject | undefined, method: Method): Failure {
  const code = numberAt(error, 'code');
  const message = stringAt(error, 'message') ?? `${method} failed`;
  if (method === 'session/load' && (code === ACP_NOT_FOUND || isStaleSessionText(message))) {
    return { failure: 'stale_session', message };
  }
  const status = httpStatusFromText(message);
  if (status !== undefined) return { failure: failureFromHttpStatus(status), message, httpStatus: status };
  if (code === ACP_AUTH_REQUIRED) return { failure: 'auth', message };
  const fromText = failureFromText(message);
  if (fromText) return { failure: fromText, message };
  if (code === -32600 || code === -32601 || code === -32602) return { failure: 'invalid_request', message };
  return { failure: 'unknown', message };
}

function failedResult(failure: Failure): NormalizedEvent {
  return { kind: 'result', ok: false, failure: failure.failure, message: failure.message };
}

/** Ends the run early (the setup failed): error, result, and stdin closed so copilot exits. */
function failRun(state: CopilotState, failure: Failure): AdapterOutput {
  state.failure ??= failure;
  state.phase = 'done';
  state.resultEmitted = true;
  return {
    events: [{ kind: 'error', ...failure }, failedResult(failure)],
    closeStdin: true,
  };
}

function sessionOpened(state: CopilotState, sessionId: string): AdapterOutput {
  state.sessionId = sessionId;
  state.muted = false;
  const texts = [state.prompt, ...state.queuedPrompts];
  state.queuedPrompts = [];
  return {
    events: [{ kind: 'session', providerSessionId: sessionId }],
    writes: [promptRequest(state, texts)],
  };
}

function usageEvents(result: JsonObject | undefined): NormalizedEvent[] {
  const usage = objectAt(result, 'usage');
  if (!usage) return [];
  const event: Extract<NormalizedEvent, { kind: 'usage' }> = { kind: 'usage' };
  const input = numberAt(usage, 'inputTokens');
  const output = numberAt(usage, 'outputTokens');
  const cached = numberAt(usage, 'cachedReadTokens');
  const reasoning = numberAt(usage, 'thoughtTokens');
  if (input !== undefined) event.inputTokens = input;
  if (output !== undefined) event.outputTokens = output;
  if (cached !== undefined) event.cachedTokens = cached;
  if (reasoning !== undefined) event.reasoningTokens = reasoning;
  return [event];
}

function stopResult(state: CopilotState, stopReason: string | undefined): NormalizedEvent {
  if (state.failure) return failedResult(state.failure);
  if (stopReason === 'cancelled') return { kind: 'result', ok: false, failure: 'unknown', message: 'cancelled' };
  if (stopReason === 'refusal') return { kind: 'result', ok: false, failure: 'unknown', message: 'the model refused' };
  // end_turn, max_tokens, max_turn_requests: the turn is over and its text is the answer.
  return { kind: 'result', ok: true };
}

function promptAnswered(state: CopilotState, id: number, message: JsonObject): AdapterOutput {
  const result = objectAt(message, 'result');
  // Tools still open will not report any more (a cancelled tool never runs): end them as not ok.
  const events = [
    ...resolveCandidate(state, false),
    ...flushThought(state),
    ...closeOpenSteps(state.steps),
    ...usageEvents(result),
  ];
  state.inMessage = false;
  // The answer to a prompt that a steer replaced (`cancelled`, with the usage so far): the turn goes
  // on with the new prompt, so no result and stdin stays open.
  if (id !== state.activePromptId) return { events };
  if (message.error !== undefined) {
    const failure = classifyRpcError(objectAt(message, 'error'), 'session/prompt');
    state.failure ??= failure;
    events.push({ kind: 'error', ...failure });
  }
  events.push(stopResult(state, stringAt(result, 'stopReason')));
  state.phase = 'done';
  state.resultEmitted = true;
  return { events, closeStdin: true };
}

function responseOutput(state: CopilotState, message: JsonObject): AdapterOutput {
  const id = message.id;
  const method = typeof id === 'number' ? state.pending.get(id) : undefined;
  if (typeof id !== 'number' || !method) return { events: [] };
  state.pending.delete(id);
  if (method === 'session/prompt') return promptAnswered(state, id, message);
  if (message.error !== undefined) return failRun(state, classifyRpcError(objectAt(message, 'error'), method));
  if (method === 'initialize') {
    state.phase = 'opening';
    const params = { cwd: state.cwd, mcpServers: [] };
    if (!state.resumeSessionId) return { events: [], writes: [request(state, 'session/new', params)] };
    // The load replays the whole history as updates before answering: mute them.
    state.muted = true;
    return {
      events: [],
      writes: [request(state, 'session/load', { sessionId: state.resumeSessionId, ...params })],
    };
  }
  const sessionId =
    method === 'session/load' ? state.resumeSessionId : stringAt(objectAt(message, 'result'), 'sessionId');
  if (!sessionId) return failRun(state, { failure: 'unknown', message: `${method} returned no sessionId` });
  return sessionOpened(state, sessionId);
}

// ---------------------------------------------------------------------------------------------
// Adapter entry points

function parseLine(state: CopilotState, line: string): AdapterOutput {
  const message = parseJsonLine(line);
  if (!message) return { events: [] };
  const hasId = typeof message.id === 'number' || typeof message.id === 'string';
  if (typeof message.method === 'string' && hasId) return requestAnswer(state, message);
  if (message.method === 'session/update') {
    const update = objectAt(objectAt(message, 'params'), 'update');
    if (!update || state.muted || state.phase === 'done') return { events: [] };
    return { events: updateEvents(state, update) };
  }
  if (hasId && message.method === undefined) return responseOutput(state, message);
  return { events: [] };
}

function steer(state: CopilotState, prompt: string): AdapterOutput {
  // Too late: the turn ended and stdin is closed; the runner starts a new turn instead.
  if (state.phase === 'done') return { events: [] };
  // The first prompt is not sent yet: the steer goes with it.
  if (state.activePromptId === undefined || !state.sessionId) {
    state.queuedPrompts.push(prompt);
    return { events: [] };
  }
  const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: state.sessionId } });
  return { events: [], writes: [cancel, ...cancelHeldPermissions(state), promptRequest(state, [prompt])] };
}

function finish(state: CopilotState, exit: ExitInfo): NormalizedEvent[] {
  const events = [...resolveCandidate(state, false), ...flushThought(state), ...closeOpenSteps(state.steps)];
  if (state.resultEmitted) return events;
  if (state.failure) return [...events, failedResult(state.failure)];
  // ACP success is the prompt's answer; an exit before it is a failure even with status 0.
  const result = resultFromExit(exit);
  events.push(
    result.ok
      ? { kind: 'result', ok: false, failure: 'crash', message: 'copilot exited before answering the prompt' }
      : result,
  );
  return events;
}

export const copilotAdapter: ProviderAdapter<CopilotState> = {
  id: 'copilot',
  displayName: 'GitHub Copilot',
  steerMode: 'live',
  buildInvocation,
  initialState,
  start,
  parseLine,
  steer,
  answerPermission,
  finish,
};
