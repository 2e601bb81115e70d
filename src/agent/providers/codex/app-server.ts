// Codex CLI's app server (`codex app-server`: JSON-RPC over stdio, one message per line), the mode svc
// runs codex in when a person answers its tool permissions: `codex exec` has nobody to ask and refuses
// what needs approval by itself (docs/protocols/permissions.md); the app server sends each approval to
// its client as a request and waits for the answer. Checked against codex-cli 0.169.0
// (test/fixtures/protocols/codex-app-server-*, scripts/record-codex-app-server.ts).
//
// Conversation: start() sends `initialize`; its answer: the `initialized` notification and `thread/start`
// (or `thread/resume` {threadId}: a thread is what `codex exec resume` continues, so either mode resumes
// the other's); that answer names the thread (the session id) and triggers `turn/start`; `turn/completed`
// ends the turn, stdin is closed, and codex exits 0. Codex's messages omit `"jsonrpc"`, and so do ours.
//
// Approvals: the thread runs with the approval policy `untrusted` in a `read-only` sandbox (whatever
// config.toml says), the one setting in which codex asks before every command it does not know to be
// safe and before every file change; `on-request` asks for file changes only and lets a command that the
// sandbox refuses fail unasked. An accepted call runs outside the sandbox (the file lands). The answer is
// `accept` or `decline` (never `acceptForSession`: svc's own rules remember); a declined call's item ends
// `declined` and the model reads "rejected by user" and goes on. The answer has no field for a reason, so
// a deny's reason stays with svc.
//
// Items are exec's, camelCased (with deltas besides, which svc does not read): each is turned into exec's
// shape and read by items.ts, so a message is text once complete, as in exec.

import type { AdapterOutput, ExitInfo, Invocation, InvocationRequest, NormalizedEvent, PermissionAnswer } from '../types.ts';
import { closeOpenSteps, objectAt, objectsAt, parseJsonLine, resultFromExit, stringAt, type JsonObject } from '../shared.ts';
import {
  classifyCodexError,
  errorLineEvents,
  itemCompletedEvents,
  newCodexState,
  sessionEvents,
  stepStartEvents,
  turnFailedEvents,
  usageEvent,
  type CodexState,
} from './items.ts';

type Method = 'initialize' | 'thread/start' | 'thread/resume' | 'turn/start';

export interface AppServerState extends CodexState {
  rpc: {
    prompt: string;
    cwd: string;
    model?: string;
    resumeSessionId?: string;
    nextId: number;
    /** Our requests awaiting an answer, by JSON-RPC id. */
    pending: Map<number, Method>;
    /** The changes of file-change items started, by item id: codex's approval request names only the item. */
    changes: Map<string, JsonObject[]>;
    /** Approval requests held for the person: the JSON-RPC id, by requestId (that id as a string). */
    held: Map<string, string | number>;
  };
}

const APPROVAL_POLICY = 'untrusted';
const SANDBOX = 'read-only';

export function isAppServerState(state: CodexState): state is AppServerState {
  return 'rpc' in state;
}

/** `overrides`: the `-c` settings exec gets too (effort, system prompt, MCP servers). */
export function appServerInvocation(req: InvocationRequest, overrides: string[]): Invocation {
  return { command: req.executable, args: ['app-server', ...overrides, ...(req.extraArgs ?? [])], env: {}, stdin: 'interactive' };
}

export function appServerState(req: InvocationRequest): AppServerState {
  const rpc: AppServerState['rpc'] = { prompt: req.prompt, cwd: req.cwd, nextId: 1, pending: new Map(), changes: new Map(), held: new Map() };
  if (req.model) rpc.model = req.model;
  if (req.resumeSessionId) rpc.resumeSessionId = req.resumeSessionId;
  return { ...newCodexState(), rpc };
}

function request(state: AppServerState, method: Method, params: JsonObject): string {
  const id = state.rpc.nextId++;
  state.rpc.pending.set(id, method);
  return JSON.stringify({ id, method, params });
}

export function startAppServer(state: AppServerState): AdapterOutput {
  return { events: [], writes: [request(state, 'initialize', { clientInfo: { name: 'svc', version: '0.1.0' }, capabilities: null })] };
}

// ---------------------------------------------------------------------------------------------
// Items

/** An app-server item in the shape `codex exec --json` prints it (items.ts reads that shape). */
export function execItem(item: JsonObject): JsonObject | undefined {
  const id = item.id;
  const status = item.status;
  switch (stringAt(item, 'type')) {
    case 'agentMessage':
      return { type: 'agent_message', id, text: item.text };
    case 'reasoning': {
      const parts = (key: string) => (Array.isArray(item[key]) ? (item[key] as unknown[]).filter((p) => typeof p === 'string') : []);
      return { type: 'reasoning', id, text: [...parts('summary'), ...parts('content')].join('\n\n') };
    }
    case 'commandExecution':
      return { type: 'command_execution', id, status, command: item.command, aggregated_output: item.aggregatedOutput, exit_code: item.exitCode };
    case 'fileChange':
      return { type: 'file_change', id, status, changes: objectsAt(item, 'changes').map((c) => ({ path: c.path, kind: stringAt(objectAt(c, 'kind'), 'type') })) };
    case 'mcpToolCall': {
      const result = objectAt(item, 'result');
      return {
        type: 'mcp_tool_call', id, status, server: item.server, tool: item.tool, arguments: item.arguments, error: item.error,
        result: result && { content: result.content, structured_content: result.structuredContent },
      };
    }
    case 'webSearch':
      return { type: 'web_search', id, query: item.query, action: item.action };
    case 'collabAgentToolCall':
      return { type: 'collab_tool_call', id, status, tool: item.tool, prompt: item.prompt };
    default:
      return undefined;
  }
}

function itemStarted(state: AppServerState, item: JsonObject): NormalizedEvent[] {
  const id = stringAt(item, 'id');
  if (id && item.type === 'fileChange') state.rpc.changes.set(id, objectsAt(item, 'changes'));
  const shaped = execItem(item);
  return shaped ? stepStartEvents(state, shaped) : [];
}

function itemCompleted(state: AppServerState, item: JsonObject): NormalizedEvent[] {
  state.rpc.changes.delete(stringAt(item, 'id') ?? '');
  const shaped = execItem(item);
  return shaped ? itemCompletedEvents(state, shaped) : [];
}

/** `last` is the usage of the model call just made (`total` the thread's, earlier runs included). */
function usageEvents(params: JsonObject): NormalizedEvent[] {
  const last = objectAt(objectAt(params, 'tokenUsage'), 'last');
  if (!last) return [];
  const { inputTokens, cachedInputTokens, outputTokens, reasoningOutputTokens } = last;
  return [usageEvent({ usage: { input_tokens: inputTokens, cached_input_tokens: cachedInputTokens, output_tokens: outputTokens, reasoning_output_tokens: reasoningOutputTokens } })];
}

function turnCompleted(state: AppServerState, params: JsonObject): AdapterOutput {
  const turn = objectAt(params, 'turn') ?? {};
  const status = stringAt(turn, 'status');
  if (status === 'failed') return { events: turnFailedEvents(state, turn), closeStdin: true };
  state.resultEmitted = true;
  const result: NormalizedEvent = status === 'completed' ? { kind: 'result', ok: true } : { kind: 'result', ok: false, failure: 'unknown', message: `codex ended the turn ${status ?? 'without a status'}` };
  return { events: [result], closeStdin: true };
}

function notification(state: AppServerState, method: string, params: JsonObject): AdapterOutput {
  // another thread's (a sub-agent's) turn is not this run's
  const thread = stringAt(params, 'threadId');
  if (thread && state.sessionId && thread !== state.sessionId) return { events: [] };
  const item = objectAt(params, 'item');
  switch (method) {
    case 'item/started':
      return { events: item ? itemStarted(state, item) : [] };
    case 'item/completed':
      return { events: item ? itemCompleted(state, item) : [] };
    case 'thread/tokenUsage/updated':
      return { events: usageEvents(params) };
    case 'error':
      // the same error exec prints as an `error` line ("Reconnecting... 1/5 …" included)
      return { events: errorLineEvents(state, { message: stringAt(objectAt(params, 'error'), 'message') ?? 'error' }) };
    case 'turn/completed':
      return turnCompleted(state, params);
    default:
      return { events: [] };
  }
}

// ---------------------------------------------------------------------------------------------
// Approval requests

/** The file change as a person reads it (summary.ts): one file's path and its content or diff, or every change. */
function fileChangeInput(changes: JsonObject[]): JsonObject {
  const [only] = changes;
  if (changes.length !== 1 || !only) return { changes };
  const kind = stringAt(objectAt(only, 'kind'), 'type');
  // for a new file codex's `diff` is its content
  return { path: only.path, kind, [kind === 'add' ? 'content' : 'diff']: only.diff };
}

/**
 * The request as a permission_request. The tool is the item's step name (`command_execution`,
 * `file_change`), so a remembered rule reads `command_execution(/bin/bash -lc 'npm test')`.
 */
function permissionEvent(state: AppServerState, requestId: string, method: string, params: JsonObject): NormalizedEvent {
  const reason = stringAt(params, 'reason');
  const description = reason ? { description: reason } : {};
  if (method === 'item/commandExecution/requestApproval') {
    return { kind: 'permission_request', requestId, tool: 'command_execution', input: { command: params.command, cwd: params.cwd }, ...description };
  }
  const changes = state.rpc.changes.get(stringAt(params, 'itemId') ?? '') ?? [];
  return { kind: 'permission_request', requestId, tool: 'file_change', input: fileChangeInput(changes), ...description };
}

const APPROVALS = ['item/commandExecution/requestApproval', 'item/fileChange/requestApproval'];

function serverRequest(state: AppServerState, id: string | number, method: string, params: JsonObject): AdapterOutput {
  if (!APPROVALS.includes(method)) {
    // svc answers no other question (user input, MCP elicitations, auth refreshes): codex goes on without
    return { events: [], writes: [JSON.stringify({ id, error: { code: -32601, message: `svc does not handle ${method}` } })] };
  }
  const requestId = String(id);
  state.rpc.held.set(requestId, id);
  return { events: [permissionEvent(state, requestId, method, params)] };
}

export function answerAppServerPermission(state: AppServerState, requestId: string, answer: PermissionAnswer): AdapterOutput {
  const id = state.rpc.held.get(requestId);
  if (id === undefined) return { events: [] };
  state.rpc.held.delete(requestId);
  return { events: [], writes: [JSON.stringify({ id, result: { decision: answer.allow ? 'accept' : 'decline' } })] };
}

// ---------------------------------------------------------------------------------------------
// Answers to our requests

/** A setup request failed (an unknown thread to resume, a bad config): the run ends, stdin closed. */
function failRun(state: AppServerState, method: Method, error: JsonObject | undefined): AdapterOutput {
  const classified = classifyCodexError(stringAt(error, 'message') ?? `${method} failed`);
  state.lastError = { failure: classified.failure, message: classified.message };
  state.resultEmitted = true;
  return { events: [{ kind: 'error', ...classified }, { kind: 'result', ok: false, failure: classified.failure, message: classified.message }], closeStdin: true };
}

function threadParams(state: AppServerState): JsonObject {
  const { cwd, model } = state.rpc;
  return { cwd, approvalPolicy: APPROVAL_POLICY, sandbox: SANDBOX, ...(model ? { model } : {}) };
}

function response(state: AppServerState, message: JsonObject): AdapterOutput {
  const id = message.id;
  const method = typeof id === 'number' ? state.rpc.pending.get(id) : undefined;
  if (typeof id !== 'number' || !method) return { events: [] };
  state.rpc.pending.delete(id);
  if (message.error !== undefined) return failRun(state, method, objectAt(message, 'error'));
  const { resumeSessionId, prompt } = state.rpc;
  switch (method) {
    case 'initialize': {
      const open = resumeSessionId
        ? request(state, 'thread/resume', { threadId: resumeSessionId, ...threadParams(state) })
        : request(state, 'thread/start', threadParams(state));
      return { events: [], writes: [JSON.stringify({ method: 'initialized' }), open] };
    }
    case 'thread/start':
    case 'thread/resume': {
      const threadId = stringAt(objectAt(objectAt(message, 'result'), 'thread'), 'id');
      if (!threadId) return failRun(state, method, { message: `${method} returned no thread id` });
      const turn = request(state, 'turn/start', { threadId, input: [{ type: 'text', text: prompt, text_elements: [] }] });
      return { events: sessionEvents(state, { thread_id: threadId }), writes: [turn] };
    }
    case 'turn/start':
      return { events: [] };
  }
}

export function parseAppServerLine(state: AppServerState, line: string): AdapterOutput {
  const message = parseJsonLine(line);
  if (!message) return { events: [] };
  const id = message.id;
  const hasId = typeof id === 'number' || typeof id === 'string';
  const method = stringAt(message, 'method');
  const params = objectAt(message, 'params') ?? {};
  if (method && hasId) return serverRequest(state, id, method, params);
  if (method) return notification(state, method, params);
  return hasId ? response(state, message) : { events: [] };
}

export function finishAppServer(state: AppServerState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  const result = resultFromExit(exit, state.lastError);
  // the turn's end is `turn/completed`: an exit before it is a failure even with status 0
  events.push(result.ok ? { kind: 'result', ok: false, failure: 'crash', message: 'codex exited before the turn ended' } : result);
  return events;
}
