// One turn of an Agent Client Protocol conversation (JSON-RPC 2.0, one message per line on the CLI's
// stdin/stdout), as svc drives Copilot (`copilot --acp`), Gemini CLI (`gemini --acp`) and OpenCode
// (`opencode acp`). Pure: each function takes the state and says what to emit and what to write.
//
// start() sends `initialize`; its answer triggers `session/new` {cwd, mcpServers} (or `session/load`
// {sessionId, cwd, mcpServers} to resume, whose history replay is muted); then each `session/set_config_option`
// the CLI needs (OpenCode takes its model and effort that way, not as flags), one after another; then
// `session/prompt`. The prompt's answer ends the turn and stdin is closed, on which each CLI exits 0.
//
// Tool permissions: the CLI asks `session/request_permission` {toolCall, options [{optionId, kind:
// allow_once|allow_always|reject_once}]} before each tool it is not told to allow. Auto-approving, or with
// nobody to ask, it is answered at once (allow once, or reject once). With a person to ask, the request
// becomes a `permission_request` and waits for the answer: `{outcome: {outcome: "selected", optionId}}`.
// ACP answers carry no reason, so a deny's reason never reaches the agent.
//
// Steer: `session/cancel` makes the running prompt answer `stopReason: "cancelled"` (copilot within
// milliseconds, copilot-acp-cancel.jsonl); a new `session/prompt` follows in the same process. Requests
// still held are answered `cancelled`, as ACP requires.

import type { AdapterOutput, ExitInfo, InvocationRequest, NormalizedEvent, PermissionAnswer } from '../types.ts';
import {
  closeOpenSteps,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isStaleSessionText,
  numberAt,
  objectAt,
  objectsAt,
  parseJsonLine,
  resultFromExit,
  stringAt,
  type JsonObject,
} from '../shared.ts';
import { chooseOption, permissionAnswer, permissionRequestEvent } from './permissions.ts';
import { messageBoundary, promptUsage, updateEvents, type AcpFailure, type AcpOutput } from './updates.ts';

type Method = 'initialize' | 'session/new' | 'session/load' | 'session/set_config_option' | 'session/prompt';
type Phase = 'initializing' | 'opening' | 'configuring' | 'prompting' | 'done';
type HeldPermission = { rpcId: string | number; options: JsonObject[] };
type ConfigOption = { configId: string; value: string };

/** How a CLI's conversation differs: what its adapter passes in. */
export interface AcpSetup {
  /** The CLI as messages name it ("copilot exited before answering the prompt"). */
  cli: string;
  /** The first prompt's text (Gemini's carries the system prompt). */
  prompt: string;
  /** ACP `McpServer`s for session/new and session/load (CLIs given theirs another way get none). */
  mcpServers?: JsonObject[];
  /** Session settings made with `session/set_config_option` before the prompt. */
  configOptions?: ConfigOption[];
  /** The CLI reports trouble as notice chunks (updates.ts). */
  notices?: boolean;
}

export interface AcpState extends AcpOutput {
  cli: string;
  prompt: string;
  cwd: string;
  resumeSessionId?: string;
  mcpServers: JsonObject[];
  /** Settings still to make, in order. */
  configOptions: ConfigOption[];
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
  resultEmitted: boolean;
}

/** ACP error codes: -32000 authentication required, -32002 resource (session) not found. */
const ACP_AUTH_REQUIRED = -32000;
const ACP_NOT_FOUND = -32002;

export const autoApproves = (req: InvocationRequest) => req.autoApprove && !req.readOnly;

/** A person answers the CLI's permission requests: neither auto-approving nor read-only, and someone to ask. */
export const asksPerson = (req: InvocationRequest) => !req.autoApprove && !req.readOnly && req.askPermissions === true;

export function initialAcpState(req: InvocationRequest, setup: AcpSetup): AcpState {
  const state: AcpState = {
    cli: setup.cli,
    prompt: setup.prompt,
    cwd: req.cwd,
    mcpServers: setup.mcpServers ?? [],
    configOptions: setup.configOptions ?? [],
    autoApprove: autoApproves(req),
    askPermissions: asksPerson(req),
    heldPermissions: new Map(),
    phase: 'initializing',
    nextId: 1,
    pending: new Map(),
    queuedPrompts: [],
    muted: false,
    notices: setup.notices ?? false,
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

function request(state: AcpState, method: Method, params: JsonObject): string {
  const id = state.nextId++;
  state.pending.set(id, method);
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

function promptRequest(state: AcpState, texts: string[]): string {
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

export function acpStart(state: AcpState): AdapterOutput {
  const init = request(state, 'initialize', {
    protocolVersion: 1,
    // We serve no files or terminals: the CLI uses its own tools for both.
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'svc', version: '0.1.0' },
  });
  return { events: [], writes: [init] };
}

// ---------------------------------------------------------------------------------------------
// Requests from the agent

function permissionRequest(state: AcpState, message: JsonObject): AdapterOutput {
  const id = message.id as string | number;
  const params = objectAt(message, 'params');
  const options = objectsAt(params, 'options');
  if (!state.askPermissions) return { events: [], writes: [permissionAnswer(id, chooseOption(options, state.autoApprove))] };
  const requestId = String(id);
  state.heldPermissions.set(requestId, { rpcId: id, options });
  // The message before the request is complete: what the model says after it is a new block.
  return { events: [...messageBoundary(state), permissionRequestEvent(requestId, params)] };
}

function agentRequest(state: AcpState, message: JsonObject): AdapterOutput {
  if (message.method === 'session/request_permission') return permissionRequest(state, message);
  // We announced no fs/terminal capabilities; anything else is unknown to us. (OpenCode asks
  // `fs/write_text_file` regardless, and writes the file itself on this answer.)
  return { events: [], writes: [JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })] };
}

/**
 * The person's answer: the option of the matching kind ("allow once": svc's own rules remember, not
 * the CLI). ACP can neither change the tool's input nor carry a deny's reason, so both stay with svc.
 * A request no longer held (cancelled by a steer) gets no answer.
 */
export function acpAnswerPermission(state: AcpState, requestId: string, answer: PermissionAnswer): AdapterOutput {
  const held = state.heldPermissions.get(requestId);
  if (!held) return { events: [] };
  state.heldPermissions.delete(requestId);
  return { events: [], writes: [permissionAnswer(held.rpcId, chooseOption(held.options, answer.allow))] };
}

/** ACP: after `session/cancel`, every request still pending is answered `cancelled`. */
function cancelHeldPermissions(state: AcpState): string[] {
  const writes = [...state.heldPermissions.values()].map((held) => permissionAnswer(held.rpcId, undefined));
  state.heldPermissions.clear();
  return writes;
}

// ---------------------------------------------------------------------------------------------
// Answers to our requests

/**
 * An error answer's failure. Its `data` is read too: Gemini says why only there (`{details: "Invalid
 * session identifier …"}`), OpenCode names the failing service (`{service: "session"}` for an unknown id).
 */
export function classifyRpcError(error: JsonObject | undefined, method: Method): AcpFailure {
  const code = numberAt(error, 'code');
  const details = stringAt(objectAt(error, 'data'), 'details');
  const message = [stringAt(error, 'message') ?? `${method} failed`, details].filter(Boolean).join(': ');
  const unknownSession = stringAt(objectAt(error, 'data'), 'service') === 'session';
  if (method === 'session/load' && (code === ACP_NOT_FOUND || unknownSession || isStaleSessionText(message))) {
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

function failedResult(failure: AcpFailure): NormalizedEvent {
  return { kind: 'result', ok: false, failure: failure.failure, message: failure.message };
}

/** Ends the run early (the setup failed): error, result, and stdin closed so the CLI exits. */
function failRun(state: AcpState, failure: AcpFailure): AdapterOutput {
  state.failure ??= failure;
  state.phase = 'done';
  state.resultEmitted = true;
  return { events: [{ kind: 'error', ...failure }, failedResult(failure)], closeStdin: true };
}

/** The next session setting, or the prompt once there is none left. */
function nextSetup(state: AcpState): string {
  const option = state.configOptions.shift();
  if (!option) {
    const texts = [state.prompt, ...state.queuedPrompts];
    state.queuedPrompts = [];
    return promptRequest(state, texts);
  }
  state.phase = 'configuring';
  return request(state, 'session/set_config_option', { sessionId: state.sessionId, ...option });
}

function sessionOpened(state: AcpState, sessionId: string): AdapterOutput {
  state.sessionId = sessionId;
  state.muted = false;
  return { events: [{ kind: 'session', providerSessionId: sessionId }], writes: [nextSetup(state)] };
}

function stopResult(state: AcpState, stopReason: string | undefined): NormalizedEvent {
  if (state.failure) return failedResult(state.failure);
  if (stopReason === 'cancelled') return { kind: 'result', ok: false, failure: 'unknown', message: 'cancelled' };
  if (stopReason === 'refusal') return { kind: 'result', ok: false, failure: 'unknown', message: 'the model refused' };
  // end_turn, max_tokens, max_turn_requests: the turn is over and its text is the answer.
  return { kind: 'result', ok: true };
}

function promptAnswered(state: AcpState, id: number, message: JsonObject): AdapterOutput {
  const result = objectAt(message, 'result');
  // Tools still open will not report any more (a cancelled tool never runs): end them as not ok.
  const events = [...messageBoundary(state), ...closeOpenSteps(state.steps), ...promptUsage(result)];
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

function responseOutput(state: AcpState, message: JsonObject): AdapterOutput {
  const id = message.id;
  const method = typeof id === 'number' ? state.pending.get(id) : undefined;
  if (typeof id !== 'number' || !method) return { events: [] };
  state.pending.delete(id);
  if (method === 'session/prompt') return promptAnswered(state, id, message);
  if (message.error !== undefined) return failRun(state, classifyRpcError(objectAt(message, 'error'), method));
  if (method === 'session/set_config_option') return { events: [], writes: [nextSetup(state)] };
  if (method === 'initialize') {
    state.phase = 'opening';
    const params = { cwd: state.cwd, mcpServers: state.mcpServers };
    if (!state.resumeSessionId) return { events: [], writes: [request(state, 'session/new', params)] };
    // The load replays the whole history as updates before answering: mute them.
    state.muted = true;
    return { events: [], writes: [request(state, 'session/load', { sessionId: state.resumeSessionId, ...params })] };
  }
  const sessionId = method === 'session/load' ? state.resumeSessionId : stringAt(objectAt(message, 'result'), 'sessionId');
  if (!sessionId) return failRun(state, { failure: 'unknown', message: `${method} returned no sessionId` });
  return sessionOpened(state, sessionId);
}

// ---------------------------------------------------------------------------------------------
// Entry points

export function acpParseLine(state: AcpState, line: string): AdapterOutput {
  const message = parseJsonLine(line);
  if (!message) return { events: [] };
  const hasId = typeof message.id === 'number' || typeof message.id === 'string';
  if (typeof message.method === 'string' && hasId) return agentRequest(state, message);
  if (message.method === 'session/update') {
    const update = objectAt(objectAt(message, 'params'), 'update');
    if (!update || state.muted || state.phase === 'done') return { events: [] };
    return { events: updateEvents(state, update) };
  }
  if (hasId && message.method === undefined) return responseOutput(state, message);
  return { events: [] };
}

export function acpSteer(state: AcpState, prompt: string): AdapterOutput {
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

export function acpFinish(state: AcpState, exit: ExitInfo): NormalizedEvent[] {
  const events = [...messageBoundary(state), ...closeOpenSteps(state.steps)];
  if (state.resultEmitted) return events;
  if (state.failure) return [...events, failedResult(state.failure)];
  // ACP success is the prompt's answer; an exit before it is a failure even with status 0.
  const result = resultFromExit(exit);
  events.push(result.ok ? { kind: 'result', ok: false, failure: 'crash', message: `${state.cli} exited before answering the prompt` } : result);
  return events;
}
