// Pi coding agent (`pi --print --mode json`) adapter: one JSON event per line (pi's AgentSessionEvent).
//
// Checked against the real pi 0.74.2 run against the fake model (test/fixtures/protocols/pi-*.jsonl,
// docs/protocols/pi.md). The first line is the session header `{"type":"session","id":…}`, whose id resumes
// the session with `--session <id>`. Live text comes from `message_update` events whose
// `assistantMessageEvent` is a `text_delta`; tools are `tool_execution_start`/`_end`; the assistant's
// `message_end` carries usage and, on failure, `stopReason: "error"` with `errorMessage` ("<HTTP status>
// <message>", the model SDK's wording). A failed model call ends with `agent_end` even when pi retries it
// on its own (`auto_retry_start`, a whole new `agent_start` … `agent_end`, then `auto_retry_end`), and pi
// exits 0 after the last retry failed: the outcome is only known at `auto_retry_end` or exit.
// Pi has no MCP support of its own, so `req.mcpServers` is not used; skills reach it through the
// system prompt like every provider. Pi has no permission prompts either (pi 0.74: no approval flag or
// event), so without auto-approve it runs with its reading tools only.
import type { ExitInfo, FailureClass, Invocation, InvocationRequest, NormalizedEvent, ProviderAdapter, StepKind } from '../types.ts';
import {
  beginTextBlock,
  closeOpenSteps,
  contentToText,
  createTextJoin,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isStaleSessionText,
  numberAt,
  objectAt,
  parseJsonLine,
  refuseMcpOnly,
  resultFromExit,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

export interface PiState {
  text: TextJoinState;
  thinking: string;
  steps: Map<string, OpenStep>;
  /** The last assistant message's failure, if it ended with `stopReason: "error"`. */
  failure?: { failure: FailureClass; message: string };
  resultEmitted: boolean;
}

/** Pi's built-in tools that change nothing (its own "read-only mode" in `pi --help`); bash, edit and write are left out. */
export const PI_READ_TOOLS = ['read', 'grep', 'find', 'ls'];

const STEP_OF_TOOL: Record<string, StepKind> = { bash: 'command', read: 'file', write: 'file', edit: 'file', grep: 'search', find: 'search', ls: 'file' };

function buildInvocation(req: InvocationRequest): Invocation {
  if (req.mcpOnly) refuseMcpOnly('Pi');
  const args = ['--print', '--mode', 'json'];
  // A model picked as `<profile>/<model>` (svc's Pi profiles) names Pi's provider and its model.
  if (req.model) {
    const slash = req.model.indexOf('/');
    if (slash > 0) args.push('--provider', req.model.slice(0, slash), '--model', req.model.slice(slash + 1));
    else args.push('--model', req.model);
  }
  if (req.effort) args.push('--thinking', req.effort);
  if (req.systemPrompt) args.push('--append-system-prompt', req.systemPrompt);
  if (req.resumeSessionId) args.push('--session', req.resumeSessionId);
  // Pi never asks before a tool: not auto-approving (or read-only) leaves it its reading tools only
  if (!req.autoApprove || req.readOnly) args.push('--tools', PI_READ_TOOLS.join(','));
  if (req.extraArgs) args.push(...req.extraArgs);
  // Pi reads no `--`: a prompt that starts with "-" gets a leading space so it is not taken for a flag.
  args.push(req.prompt.startsWith('-') ? ` ${req.prompt}` : req.prompt);
  return { command: req.executable, args, env: {}, stdin: 'close' };
}

function initialState(): PiState {
  return { text: createTextJoin(), thinking: '', steps: new Map(), resultEmitted: false };
}

/** Pi's model SDKs word API errors as "<status> <message>" ("500 Internal server error", "429 Rate limit …"). */
function statusOf(message: string): number | undefined {
  const leading = /^([45]\d\d)\s/.exec(message);
  return leading ? Number(leading[1]) : httpStatusFromText(message);
}

function classify(message: string): FailureClass {
  if (isStaleSessionText(message)) return 'stale_session';
  const status = statusOf(message);
  return (status ? failureFromHttpStatus(status) : undefined) ?? failureFromText(message) ?? 'unknown';
}

/** The thinking block so far, as one event (pi sends `thinking_end` only after the text that follows it). */
function flushThinking(state: PiState): NormalizedEvent[] {
  const text = state.thinking.trim();
  state.thinking = '';
  return text ? [{ kind: 'thinking', text }] : [];
}

/** pi's wording for a run it cannot start: no key for its model, or a provider its models.json lacks. */
function setupFailure(stderr: string): FailureClass | undefined {
  if (/no api key found/i.test(stderr)) return 'auth';
  if (/unknown provider|model "[^"]*" not found/i.test(stderr)) return 'invalid_request';
  return undefined;
}

function failedResult(state: PiState, message?: string): NormalizedEvent {
  state.resultEmitted = true;
  const failure = state.failure ?? { failure: message ? classify(message) : 'unknown', message: message ?? 'the model call failed' };
  return { kind: 'result', ok: false, ...failure };
}

function onAssistantEvent(state: PiState, event: JsonObject): NormalizedEvent[] {
  switch (stringAt(event, 'type')) {
    case 'text_start': {
      const thinking = flushThinking(state);
      beginTextBlock(state.text);
      return thinking;
    }
    case 'text_delta':
      return textDeltaEvents(state.text, stringAt(event, 'delta') ?? '');
    case 'thinking_delta':
      state.thinking += stringAt(event, 'delta') ?? '';
      return [];
    case 'thinking_end':
    case 'toolcall_start':
      return flushThinking(state);
    default:
      return [];
  }
}

function onMessageEnd(state: PiState, message: JsonObject | undefined): NormalizedEvent[] {
  if (stringAt(message, 'role') !== 'assistant') return [];
  const events: NormalizedEvent[] = flushThinking(state);
  const usage = objectAt(message, 'usage');
  if (usage) {
    events.push({
      kind: 'usage',
      inputTokens: numberAt(usage, 'input'),
      outputTokens: numberAt(usage, 'output'),
      cachedTokens: numberAt(usage, 'cacheRead'),
      costUsd: numberAt(objectAt(usage, 'cost'), 'total'),
    });
  }
  const stop = stringAt(message, 'stopReason');
  if (stop === 'error' || stop === 'aborted') {
    const text = stringAt(message, 'errorMessage') ?? `the model call ended with ${stop}`;
    state.failure = { failure: stop === 'aborted' ? 'unknown' : classify(text), message: text };
    events.push({ kind: 'error', failure: state.failure.failure, message: text, httpStatus: statusOf(text) });
  } else {
    state.failure = undefined;
  }
  // The text of a message that was not streamed (no deltas) still reaches the answer.
  if (!state.text.emittedText) {
    const text = contentToText(message?.content);
    if (text) events.push(...textDeltaEvents(state.text, text));
  }
  beginTextBlock(state.text);
  return events;
}

function parseLine(state: PiState, line: string) {
  const obj = parseJsonLine(line);
  if (!obj) return { events: [] };
  const events: NormalizedEvent[] = [];
  switch (stringAt(obj, 'type')) {
    case 'session': {
      const id = stringAt(obj, 'id');
      if (id) events.push({ kind: 'session', providerSessionId: id });
      break;
    }
    case 'message_update': {
      const event = objectAt(obj, 'assistantMessageEvent');
      if (event) events.push(...onAssistantEvent(state, event));
      break;
    }
    case 'message_end':
      events.push(...onMessageEnd(state, objectAt(obj, 'message')));
      break;
    case 'tool_execution_start': {
      const stepId = stringAt(obj, 'toolCallId') ?? `tool-${state.steps.size + 1}`;
      const name = stringAt(obj, 'toolName') ?? 'tool';
      state.steps.set(stepId, { name, ended: false });
      events.push({ kind: 'step_start', stepId, name, step: STEP_OF_TOOL[name] ?? 'tool', input: objectAt(obj, 'args') ?? {} });
      break;
    }
    case 'tool_execution_end': {
      const stepId = stringAt(obj, 'toolCallId') ?? '';
      const step = state.steps.get(stepId);
      if (!step || step.ended) break;
      step.ended = true;
      const output = contentToText(objectAt(obj, 'result')?.content);
      events.push({ kind: 'step_end', stepId, name: step.name, ok: obj.isError !== true, ...(output !== undefined ? { output } : {}) });
      break;
    }
    case 'auto_retry_start':
      events.push({ kind: 'provider_retry', attempt: numberAt(obj, 'attempt'), reason: stringAt(obj, 'errorMessage') ?? 'retrying', delayMs: numberAt(obj, 'delayMs') });
      break;
    case 'auto_retry_end':
      // Success: the retried call's own `agent_end` follows. Failure: this is the last line.
      if (obj.success === false && !state.resultEmitted) events.push(failedResult(state, stringAt(obj, 'finalError')));
      break;
    case 'agent_end':
      events.push(...closeOpenSteps(state.steps));
      // A failed call's result waits: pi may retry it (`auto_retry_start`), else `auto_retry_end` or the exit settles it.
      if (!state.failure) {
        state.resultEmitted = true;
        events.push({ kind: 'result', ok: true });
      }
      break;
  }
  return { events };
}

/**
 * Every `message_update` repeats the whole message so far twice (`message`, `assistantMessageEvent.partial`),
 * so a long answer would fill the trace quadratically: the trace keeps the event without them.
 */
function traceLine(line: string): string {
  const obj = parseJsonLine(line);
  const event = objectAt(obj, 'assistantMessageEvent');
  if (stringAt(obj, 'type') !== 'message_update' || !event) return line;
  const { partial: _partial, ...rest } = event;
  return JSON.stringify({ type: 'message_update', assistantMessageEvent: rest });
}

function finish(state: PiState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  // A failed run without retries, or an exit before `agent_end`.
  if (state.failure) return [...events, failedResult(state)];
  // A session of another working directory makes pi ask "Fork this session into current directory? [y/N]"
  // on stderr; with stdin closed it prints nothing and exits 0.
  // pi's own errors are the first stderr line (the lines after it point to its docs).
  const firstLine = exit.stderr.trim().split('\n')[0]!;
  if (isStaleSessionText(exit.stderr)) return [...events, { kind: 'result', ok: false, failure: 'stale_session', message: firstLine }];
  const setup = setupFailure(exit.stderr);
  return [...events, resultFromExit(exit, setup ? { failure: setup, message: firstLine } : undefined)];
}

export const piAdapter: ProviderAdapter<PiState> = {
  id: 'pi',
  displayName: 'Pi',
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState,
  parseLine,
  traceLine,
  finish,
};
