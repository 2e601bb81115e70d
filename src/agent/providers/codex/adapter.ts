// Codex CLI (`codex exec --json`) adapter.
//
// Codex prints whole items, no deltas: an `agent_message` item is one text block, a reasoning item
// one thinking block, and a command's call and result are the same item (`item.started` →
// `item.completed`). There is no result line: `turn.completed` / `turn.failed` end the turn.
// One process runs one turn, so a steer interrupts and resumes (`codex exec … resume <id> <prompt>`).

import { codexMcpEntries, tomlString } from '../mcp-config.ts';

export { tomlString };

import type {
  AdapterOutput,
  ExitInfo,
  FailureClass,
  Invocation,
  InvocationRequest,
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
  httpStatusFromText,
  isStaleSessionText,
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

// ---------------------------------------------------------------------------------------------
// Invocation

/** Config overrides that leave codex without its own shell, image, goal and web tools (checked with 0.169). */
export const CODEX_MCP_ONLY = ['features.shell_tool=false', 'features.unified_exec=false', 'features.view_image=false', 'features.goals=false', 'web_search="disabled"'];

function buildInvocation(req: InvocationRequest): Invocation {
  // `--skip-git-repo-check`: codex exec refuses to run outside a git repository otherwise.
  const args = ['exec', '--json', '--skip-git-repo-check'];
  // Read-only: codex's own sandbox refuses writes (file edits and shell commands alike).
  if (req.readOnly || req.mcpOnly) args.push('--sandbox', 'read-only');
  else if (req.autoApprove) args.push('--dangerously-bypass-approvals-and-sandbox');
  // MCP only: its shell, image and goal tools and web search are features it turns off; apply_patch
  // it always offers (codex 0.169), so the read-only sandbox above is what refuses its writes.
  if (req.mcpOnly) for (const off of CODEX_MCP_ONLY) args.push('-c', off);
  if (req.model) args.push(`--model=${req.model}`);
  if (req.effort) args.push('-c', `model_reasoning_effort=${tomlString(req.effort)}`);
  // `developer_instructions` adds a developer message next to codex's own instructions (checked
  // with codex 0.169 against a fake API); `instructions`/`experimental_instructions_file` would
  // replace them, and AGENTS.md would mean writing into the project.
  if (req.systemPrompt) args.push('-c', `developer_instructions=${tomlString(req.systemPrompt)}`);
  // Per-run MCP servers as config overrides: `[mcp_servers.<name>]` tables in ~/.codex stay as they are.
  for (const [key, value] of codexMcpEntries(req.mcpServers ?? [])) args.push('-c', `${key}=${value}`);
  if (req.extraArgs) args.push(...req.extraArgs);
  // Options go before `resume`; `--` keeps a prompt starting with "-" from being read as a flag.
  if (req.resumeSessionId) args.push('resume', req.resumeSessionId);
  args.push('--', req.prompt);
  return { command: req.executable, args, env: {}, stdin: 'close' };
}

function initialState(): CodexState {
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

function stepStartEvents(state: CodexState, item: JsonObject): NormalizedEvent[] {
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

function itemCompletedEvents(state: CodexState, item: JsonObject): NormalizedEvent[] {
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

function usageEvent(line: JsonObject): NormalizedEvent {
  // Reported as codex prints it. On a resumed thread codex 0.169 reports the thread's running total
  // (codex-resume.jsonl: turn 2 shows 200/40 for a single 100/20 request).
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

function errorLineEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
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

function turnFailedEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
  const raw = stringAt(objectAt(line, 'error'), 'message') ?? state.lastError?.message ?? 'turn failed';
  const { failure, message } = classifyCodexError(raw);
  state.resultEmitted = true;
  return [{ kind: 'result', ok: false, failure, message }];
}

function sessionEvents(state: CodexState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'thread_id');
  if (!id || id === state.sessionId) return [];
  state.sessionId = id;
  // codex does not print the model it uses.
  return [{ kind: 'session', providerSessionId: id }];
}

function parseLine(state: CodexState, raw: string): AdapterOutput {
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

function finish(state: CodexState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  // Failures before the thread starts (unknown resume id, bad config) are only on stderr.
  events.push(resultFromExit(exit, state.lastError));
  return events;
}

export const codexAdapter: ProviderAdapter<CodexState> = {
  id: 'codex',
  displayName: 'Codex CLI',
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState,
  parseLine,
  finish,
};
