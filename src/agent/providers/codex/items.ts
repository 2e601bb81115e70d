// What `codex exec --json` and `codex app-server` share: codex's items (a message, a reasoning block, a
// command, a file change, an MCP call…) as normalized events, its usage, and its error texts. The exec
// adapter reads items as exec prints them; the app server's are turned into that shape first
// (app-server.ts), so both read a command or a file change the same way.

import type { FailureClass, NormalizedEvent, StepKind } from '../types.ts';
import {
  beginTextBlock,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isStaleSessionText,
  numberAt,
  objectAt,
  objectsAt,
  parseJsonObject,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

export interface CodexState {
  sessionId?: string;
  text: TextJoinState;
  steps: Map<string, OpenStep>;
  resultEmitted: boolean;
  /** The last fatal `error` line, the structured hint if the process dies before `turn.failed`. */
  lastError?: { failure: FailureClass; message: string };
  /** How many times codex said it is waiting for the network (it does not count them itself). */
  networkWaits: number;
}

export function newCodexState(): CodexState {
  return { text: createTextJoin(), steps: new Map(), resultEmitted: false, networkWaits: 0 };
}

// ---------------------------------------------------------------------------------------------
// Failure classification

/** codex sometimes wraps the API's JSON error body in the message: use its inner message. */
function unwrapMessage(message: string): string {
  const inner = parseJsonObject(message.trim());
  if (!inner) return message;
  return stringAt(objectAt(inner, 'error'), 'message') ?? stringAt(inner, 'message') ?? message;
}

/**
 * codex's error texts (0.169): HTTP 500 → "We’re currently experiencing high demand, …";
 * 429 → "exceeded retry limit, last status: 429 Too Many Requests, …"; 503 → "unexpected status 503
 * Service Unavailable: …"; unknown resume id → "no rollout found for thread id …".
 */
export function classifyCodexError(raw: string): { failure: FailureClass; message: string; httpStatus?: number } {
  const message = unwrapMessage(raw);
  if (isStaleSessionText(message)) return { failure: 'stale_session', message };
  const status = httpStatusFromText(raw);
  if (status !== undefined) return { failure: failureFromHttpStatus(status), message, httpStatus: status };
  // codex's own wording for an HTTP 500 from the model API.
  if (/experiencing high demand/i.test(message)) return { failure: 'server_error', message };
  if (/context window|context_length_exceeded/i.test(message)) return { failure: 'invalid_request', message };
  return { failure: failureFromText(message) ?? 'unknown', message };
}

// ---------------------------------------------------------------------------------------------
// Items

function stepKindOf(itemType: string): StepKind {
  switch (itemType) {
    case 'command_execution':
      return 'command';
    case 'file_change':
      return 'file';
    case 'web_search':
      return 'search';
    case 'collab_tool_call':
      return 'subagent';
    default:
      return 'tool';
  }
}

/** Step name and input of a tool-like item, or undefined for items that are not steps. */
function stepOf(item: JsonObject): { name: string; input: JsonObject } | undefined {
  switch (stringAt(item, 'type')) {
    case 'command_execution':
      return { name: 'command_execution', input: { command: item.command ?? '' } };
    case 'file_change':
      return { name: 'file_change', input: { changes: item.changes ?? [] } };
    case 'web_search':
      return { name: 'web_search', input: { query: item.query ?? '', action: item.action ?? {} } };
    case 'mcp_tool_call':
      return {
        name: `${stringAt(item, 'server') ?? 'mcp'}.${stringAt(item, 'tool') ?? 'tool'}`,
        input: objectAt(item, 'arguments') ?? {},
      };
    case 'collab_tool_call':
      return { name: stringAt(item, 'tool') ?? 'collab_tool_call', input: { prompt: item.prompt ?? '' } };
    default:
      return undefined;
  }
}

export function stepStartEvents(state: CodexState, item: JsonObject): NormalizedEvent[] {
  const id = stringAt(item, 'id');
  const step = stepOf(item);
  if (!id || !step || state.steps.has(id)) return [];
  state.steps.set(id, { name: step.name, ended: false });
  return [{ kind: 'step_start', stepId: id, name: step.name, step: stepKindOf(stringAt(item, 'type') ?? ''), input: step.input }];
}

function fileChangeSummary(item: JsonObject): string {
  return objectsAt(item, 'changes')
    .map((change) => `${stringAt(change, 'kind') ?? 'change'} ${stringAt(change, 'path') ?? ''}`.trim())
    .join('\n');
}

function mcpOutput(item: JsonObject): string | undefined {
  const error = stringAt(objectAt(item, 'error'), 'message');
  if (error) return error;
  const result = objectAt(item, 'result');
  if (!result) return undefined;
  const texts = objectsAt(result, 'content').map((block) => stringAt(block, 'text') ?? '');
  return texts.join('\n') || JSON.stringify(result.structured_content ?? result);
}

function stepEndEvents(state: CodexState, item: JsonObject): NormalizedEvent[] {
  const events = stepStartEvents(state, item);
  const id = stringAt(item, 'id') ?? '';
  const step = state.steps.get(id);
  if (!step || step.ended) return events;
  step.ended = true;
  const status = stringAt(item, 'status');
  const end: NormalizedEvent = { kind: 'step_end', stepId: id, name: step.name, ok: status !== 'failed' && status !== 'declined' };
  switch (stringAt(item, 'type')) {
    case 'command_execution': {
      const exitCode = numberAt(item, 'exit_code');
      if (exitCode !== undefined) end.exitCode = exitCode;
      end.ok = end.ok && (exitCode === undefined || exitCode === 0);
      end.output = stringAt(item, 'aggregated_output') ?? '';
      break;
    }
    case 'file_change':
      end.output = fileChangeSummary(item);
      break;
    case 'mcp_tool_call': {
      const output = mcpOutput(item);
      if (output !== undefined) end.output = output;
      end.ok = end.ok && objectAt(item, 'error') === undefined;
      break;
    }
  }
  events.push(end);
  return events;
}

export function itemCompletedEvents(state: CodexState, item: JsonObject): NormalizedEvent[] {
  switch (stringAt(item, 'type')) {
    case 'agent_message':
      // Each message item is its own text block (e.g. before and after a command).
      beginTextBlock(state.text);
      return textDeltaEvents(state.text, stringAt(item, 'text') ?? '');
    case 'reasoning': {
      const text = stringAt(item, 'text');
      return text ? [{ kind: 'thinking', text }] : [];
    }
    case 'error': {
      // A non-fatal notice (e.g. "Model metadata for … not found"); the turn goes on.
      const message = stringAt(item, 'message') ?? 'error';
      return [{ kind: 'error', failure: classifyCodexError(message).failure, message }];
    }
    default:
      return stepEndEvents(state, item);
  }
}

// ---------------------------------------------------------------------------------------------
// Turn lines

export function usageEvent(line: JsonObject): NormalizedEvent {
  // Reported as codex prints it. On a resumed thread, exec's turn.completed (codex 0.169) reports the
  // thread's running total (codex-resume.jsonl: turn 2 shows 200/40 for a single 100/20 request).
  const usage = objectAt(line, 'usage');
  const event: NormalizedEvent = { kind: 'usage' };
  const input = numberAt(usage, 'input_tokens');
  const cached = numberAt(usage, 'cached_input_tokens');
  const output = numberAt(usage, 'output_tokens');
  const reasoning = numberAt(usage, 'reasoning_output_tokens');
  if (input !== undefined) event.inputTokens = input;
  if (cached !== undefined) event.cachedTokens = cached;
  if (output !== undefined) event.outputTokens = output;
  if (reasoning !== undefined) event.reasoningTokens = reasoning;
  return event;
}

/** "Reconnecting... 1/5 (why)" after a broken stream; "Reconnecting... waiting for network (why)" while offline. */
const RECONNECTING = /^Reconnecting\.\.\.\s*(?:(\d+)\/(\d+)|(waiting for network))\s*(?:\((.*)\))?\s*$/s;

export function errorLineEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
  const message = stringAt(line, 'message') ?? 'error';
  const retry = RECONNECTING.exec(message);
  if (retry) {
    const why = retry[4] ?? message;
    // it waits for as long as the network is down: the runner bounds that wait (`offline`)
    if (retry[3]) return [{ kind: 'provider_retry', attempt: ++state.networkWaits, reason: `waiting for the network: ${why}`, offline: true }];
    return [{ kind: 'provider_retry', attempt: Number(retry[1]), reason: why }];
  }
  const classified = classifyCodexError(message);
  state.lastError = { failure: classified.failure, message: classified.message };
  return [{ kind: 'error', ...classified }];
}

export function turnFailedEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
  const raw = stringAt(objectAt(line, 'error'), 'message') ?? state.lastError?.message ?? 'turn failed';
  const { failure, message } = classifyCodexError(raw);
  state.resultEmitted = true;
  return [{ kind: 'result', ok: false, failure, message }];
}

export function sessionEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'thread_id');
  if (!id || id === state.sessionId) return [];
  state.sessionId = id;
  // codex does not print the model it uses.
  return [{ kind: 'session', providerSessionId: id }];
}
