// `session/update` notifications of the Agent Client Protocol as normalized events: message and thought
// chunks, tool calls and their updates. Shared by the CLIs svc drives over ACP; what differs between them
// is in the notes below, from their recordings (test/fixtures/protocols/{copilot-acp,gemini-acp,opencode-acp}-*).
//
// - A tool call may first appear as a `tool_call` (Copilot, OpenCode) or only as the `tool_call_update`
//   that follows its permission request (Gemini), so an update of an unknown call starts its step.
// - Copilot alone reports model-API trouble as whole `agent_message_chunk`s prefixed "Info: " (a retry, a
//   created file), "Warning: " or "Error: " ("Failed to get response from the AI model; retried 5 times …
//   Last error: 500 …"), then answers the prompt with `end_turn` and no usage. Such a chunk is recognised
//   (`notices`) only when it starts a message and the next line does not continue that message, so an
//   answer that merely begins with "Error: " stays text. Gemini and OpenCode report errors as JSON-RPC
//   errors, so their chunks are always text.

import type { FailureClass, NormalizedEvent, StepKind } from '../types.ts';
import {
  beginTextBlock,
  failureFromHttpStatus,
  failureFromText,
  httpStatusFromText,
  isJsonObject,
  numberAt,
  objectAt,
  objectsAt,
  stringAt,
  textDeltaEvents,
  type JsonObject,
  type OpenStep,
  type TextJoinState,
} from '../shared.ts';

export type AcpFailure = { failure: FailureClass; message: string; httpStatus?: number };

/** What a turn's updates have said so far. */
export interface AcpOutput {
  /** The CLI reports trouble as "Info: "/"Warning: "/"Error: " message chunks (Copilot). */
  notices: boolean;
  text: TextJoinState;
  /** The last update was a message chunk emitted as text (a chunk after it continues the message). */
  inMessage: boolean;
  /** A message-starting chunk that looks like a notice, held until the next line decides. */
  noticeCandidate?: string;
  thought: string;
  steps: Map<string, OpenStep & { output?: string }>;
  retries: number;
  /** The failure reported so far (a notice, or an error answer); decides the result. */
  failure?: AcpFailure;
}

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

/** Updates that neither end a message nor carry output. */
const INFORMATIONAL = new Set(['session_info_update', 'available_commands_update', 'config_option_update', 'current_mode_update', 'user_message_chunk']);

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

/**
 * A tool call's input: its `rawInput` when it has one, else what its first diff block says (Gemini sends
 * none): a new file as `{path, content}`, a change as `{path, oldText, newText}`.
 */
export function toolCallInput(call: JsonObject | undefined): Record<string, unknown> {
  const raw = objectAt(call, 'rawInput');
  if (raw && Object.keys(raw).length > 0) return raw;
  const diff = objectsAt(call, 'content').find((c) => c.type === 'diff');
  const path = stringAt(diff, 'path');
  const newText = stringAt(diff, 'newText');
  if (path === undefined || newText === undefined) return raw ?? {};
  const oldText = stringAt(diff, 'oldText') ?? '';
  return oldText === '' ? { path, content: newText } : { path, oldText, newText };
}

function flushThought(out: AcpOutput): NormalizedEvent[] {
  const text = out.thought;
  out.thought = '';
  return text.trim() === '' ? [] : [{ kind: 'thinking', text }];
}

function messageText(out: AcpOutput, text: string): NormalizedEvent[] {
  if (!out.inMessage) beginTextBlock(out.text);
  out.inMessage = true;
  return textDeltaEvents(out.text, text);
}

/** "Last error: 500 …" in copilot's final error notice, else any status the text states. */
function statusOfNotice(text: string): number | undefined {
  const match = /Last error:\s*([45]\d\d)\b/i.exec(text);
  return match?.[1] ? Number(match[1]) : httpStatusFromText(text);
}

function noticeEvents(out: AcpOutput, notice: string): NormalizedEvent[] {
  const [, level, message = notice] = NOTICE_RE.exec(notice) ?? [];
  if (level === 'Error') {
    const status = statusOfNotice(message);
    const failure: AcpFailure =
      status !== undefined
        ? { failure: failureFromHttpStatus(status), message, httpStatus: status }
        : { failure: failureFromText(message) ?? 'unknown', message };
    out.failure ??= failure;
    return [{ kind: 'error', ...failure }];
  }
  if (level === 'Info' && /retrying/i.test(message)) {
    out.retries += 1;
    return [{ kind: 'provider_retry', attempt: out.retries, reason: message }];
  }
  // Other notices ("Info: <path>" after a file was created, warnings) are not part of the answer.
  return [];
}

/**
 * Decides a held notice candidate once the next line is known: a chunk that continues the message
 * proves it was answer text; anything else (or the end of output) makes it a notice.
 */
function resolveCandidate(out: AcpOutput, nextContinuesMessage: boolean): NormalizedEvent[] {
  const candidate = out.noticeCandidate;
  if (candidate === undefined) return [];
  out.noticeCandidate = undefined;
  if (nextContinuesMessage) return messageText(out, candidate);
  out.inMessage = false;
  return noticeEvents(out, candidate);
}

/** The end of a message (a tool call, a permission request, the turn's end): what was pending in it. */
export function messageBoundary(out: AcpOutput): NormalizedEvent[] {
  const events = [...resolveCandidate(out, false), ...flushThought(out)];
  out.inMessage = false;
  return events;
}

function messageChunkEvents(out: AcpOutput, update: JsonObject): NormalizedEvent[] {
  const text = acpContentText(update.content);
  const events = flushThought(out);
  if (text === undefined || text === '') return events;
  const looksLikeNotice = out.notices && NOTICE_RE.test(text);
  events.push(...resolveCandidate(out, !looksLikeNotice));
  if (!out.inMessage && looksLikeNotice) {
    out.noticeCandidate = text;
    return events;
  }
  events.push(...messageText(out, text));
  return events;
}

function stepKindOf(update: JsonObject, name: string): StepKind {
  const input = objectAt(update, 'rawInput');
  const agentType = stringAt(input, 'agent_type') ?? stringAt(input, 'agentType') ?? stringAt(input, 'subagent_type');
  if (agentType !== undefined || name === 'task') return 'subagent';
  return TOOL_KIND_STEPS[stringAt(update, 'kind') ?? ''] ?? 'tool';
}

function stepStart(out: AcpOutput, stepId: string, update: JsonObject): NormalizedEvent {
  // ACP v1 has no tool name: the title ("Print a greeting", "Creating …/x.txt") names the step.
  const name = stringAt(update, 'name') ?? stringAt(update, 'title') ?? stringAt(update, 'kind') ?? 'tool';
  out.steps.set(stepId, { name, ended: false });
  return { kind: 'step_start', stepId, name, step: stepKindOf(update, name), input: toolCallInput(update) };
}

/** The tool's output: its text content, else `rawOutput` (Copilot's `content`, OpenCode's `output`/`error`). */
function toolOutput(update: JsonObject): string | undefined {
  const text = acpContentText(update.content);
  if (text !== undefined) return text;
  const raw = update.rawOutput;
  if (typeof raw === 'string') return raw;
  const rawObject = isJsonObject(raw) ? raw : undefined;
  return stringAt(rawObject, 'content') ?? stringAt(rawObject, 'output') ?? stringAt(rawObject, 'error');
}

/** Copilot's shell tool reports `rawOutput.contents[{type:'shell_exit', exitCode}]`. */
function shellExitCode(update: JsonObject): number | undefined {
  const exit = objectsAt(objectAt(update, 'rawOutput'), 'contents').find((c) => c.type === 'shell_exit');
  return numberAt(exit, 'exitCode');
}

function toolEvents(out: AcpOutput, update: JsonObject): NormalizedEvent[] {
  const stepId = stringAt(update, 'toolCallId');
  if (!stepId) return [];
  const events: NormalizedEvent[] = [];
  if (!out.steps.has(stepId)) events.push(stepStart(out, stepId, update));
  const step = out.steps.get(stepId);
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

export function updateEvents(out: AcpOutput, update: JsonObject): NormalizedEvent[] {
  const kind = stringAt(update, 'sessionUpdate');
  if (kind === 'agent_message_chunk') return messageChunkEvents(out, update);
  if (INFORMATIONAL.has(kind ?? '')) return [];
  if (kind === 'agent_thought_chunk') {
    const events = resolveCandidate(out, false);
    out.inMessage = false;
    out.thought += acpContentText(update.content) ?? '';
    return events;
  }
  const events = messageBoundary(out);
  if (kind === 'tool_call' || kind === 'tool_call_update') events.push(...toolEvents(out, update));
  // `usage_update` (context window fill) and `plan` only mark a boundary between messages.
  return events;
}

/**
 * The usage in a `session/prompt` answer: ACP's `usage` (Copilot, OpenCode), or Gemini's
 * `_meta.quota.token_count` {input_tokens, output_tokens}.
 */
export function promptUsage(result: JsonObject | undefined): NormalizedEvent[] {
  const usage = objectAt(result, 'usage');
  const quota = objectAt(objectAt(objectAt(result, '_meta'), 'quota'), 'token_count');
  if (!usage && !quota) return [];
  const event: Extract<NormalizedEvent, { kind: 'usage' }> = { kind: 'usage' };
  const input = numberAt(usage, 'inputTokens') ?? numberAt(quota, 'input_tokens');
  const output = numberAt(usage, 'outputTokens') ?? numberAt(quota, 'output_tokens');
  const cached = numberAt(usage, 'cachedReadTokens');
  const reasoning = numberAt(usage, 'thoughtTokens');
  if (input !== undefined) event.inputTokens = input;
  if (output !== undefined) event.outputTokens = output;
  if (cached !== undefined) event.cachedTokens = cached;
  if (reasoning !== undefined) event.reasoningTokens = reasoning;
  return [event];
}
