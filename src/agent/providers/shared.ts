// Small pure helpers shared by the provider adapters. Nothing here throws on bad input: adapters
// feed it whatever a CLI printed, and a malformed line must never break a run.
// Exports are used by several adapters: keep their names and meaning stable, append new ones.

import type { InstallInfo } from '../../protocol/providers.ts';
import type { ExitInfo, FailureClass, NormalizedEvent } from './types.ts';

export type JsonObject = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// JSON lines and safe field access

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One stdout line as a JSON object, or undefined for empty lines, partial lines, non-JSON noise
 * and JSON that is not an object (every protocol handled here prints one object per line).
 */
export function parseJsonLine(line: string): JsonObject | undefined {
  const trimmed = line.trim();
  // Cheap pre-check: noise such as "Loading..." or a half line never starts and ends like an object.
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Parses a JSON text that should hold an object (e.g. accumulated tool-input deltas). */
export function parseJsonObject(text: string): JsonObject | undefined {
  // A thrown SyntaxError costs far more than the parse: plain text never starts like an object.
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function stringAt(obj: JsonObject | undefined, key: string): string | undefined {
  const value = obj?.[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberAt(obj: JsonObject | undefined, key: string): number | undefined {
  const value = obj?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function booleanAt(obj: JsonObject | undefined, key: string): boolean | undefined {
  const value = obj?.[key];
  return typeof value === 'boolean' ? value : undefined;
}

export function objectAt(obj: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = obj?.[key];
  return isJsonObject(value) ? value : undefined;
}

export function arrayAt(obj: JsonObject | undefined, key: string): unknown[] | undefined {
  const value = obj?.[key];
  return Array.isArray(value) ? value : undefined;
}

/** The objects of an array field, skipping anything else. */
export function objectsAt(obj: JsonObject | undefined, key: string): JsonObject[] {
  return (arrayAt(obj, key) ?? []).filter(isJsonObject);
}

/**
 * Tool output as text: a string as is, an array of content blocks as their joined `text` parts
 * (Anthropic tool_result shape), anything else as JSON.
 */
export function contentToText(content: unknown): string | undefined {
  if (content === undefined || content === null) return undefined;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.filter(isJsonObject).map((block) => stringAt(block, 'text'));
    return texts.filter((t): t is string => t !== undefined).join('\n');
  }
  return JSON.stringify(content);
}

// ---------------------------------------------------------------------------------------------
// Failure classification

/** The failure class for an HTTP status from a model API. */
export function failureFromHttpStatus(status: number): FailureClass {
  if (status === 429) return 'rate_limit';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 500 && status <= 599) return 'server_error';
  // 408 (request timeout) is transient on the server side, like a 5xx.
  if (status === 408) return 'server_error';
  if (status >= 400 && status <= 499) return 'invalid_request';
  return 'unknown';
}

/**
 * An HTTP status stated in an error text, when the wording makes it unambiguous
 * ("status 503", "last status: 429", "API Error: 500", "Request rejected (429)", `"code":500`).
 * Bare numbers are not trusted: a port or a token count would match.
 */
const HTTP_STATUS_PATTERNS = [
  /\bstatus(?: code)?[:=]?\s*"?([45]\d\d)\b/i,
  /\bAPI Error:\s*([45]\d\d)\b/i,
  /\bHTTP\/?[\d.]*\s+([45]\d\d)\b/i,
  /\(([45]\d\d)\)/,
  /"(?:code|status|statusCode)"\s*:\s*([45]\d\d)\b/,
  /\b([45]\d\d) (?:Too Many Requests|Service Unavailable|Internal Server Error|Bad Gateway|Gateway Timeout|Unauthorized|Forbidden|Overloaded)\b/i,
];

export function httpStatusFromText(text: string): number | undefined {
  for (const pattern of HTTP_STATUS_PATTERNS) {
    const match = pattern.exec(text);
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}

/** Wordings of the supported CLIs for a resume id they do not know (checked against real output). */
const STALE_SESSION_PATTERNS = [
  /no conversation found with session id/i, // claude
  /no rollout found/i, // codex ("no rollout found for thread id …")
  /\bthread\b[^\n]{0,80}\bnot (?:found|loaded)\b/i, // codex ("thread not found: …", "thread not loaded: …")
  /invalid session identifier/i, // gemini
  /no previous sessions found/i, // gemini
  /session[^\n]{0,40}\bnot found\b/i, // opencode / copilot style
  /no session found matching/i, // pi
  /session found in different project/i, // pi, resumed from another working directory (it asks whether to fork)
];

export function isStaleSessionText(text: string): boolean {
  return STALE_SESSION_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * Last-resort classification of free text (usually stderr), for when the CLI printed no structured
 * error. Returns undefined when nothing matches, so callers can fall back to 'crash'/'unknown'.
 */
export function failureFromText(text: string): FailureClass | undefined {
  if (!text) return undefined;
  if (isStaleSessionText(text)) return 'stale_session';
  const status = httpStatusFromText(text);
  if (status !== undefined) return failureFromHttpStatus(status);
  if (/rate.?limit|too many requests|quota|resource.?exhausted|usage limit/i.test(text)) return 'rate_limit';
  if (/overloaded|service unavailable|no capacity available|model_capacity_exhausted/i.test(text)) return 'overloaded';
  if (
    /unauthori[sz]ed|invalid (?:x-)?api[ -]?key|authentication (?:failed|error)|invalid auth method|not logged in|please (?:run \S+ )?log ?in/i.test(
      text,
    )
  )
    return 'auth';
  if (/internal server error|bad gateway|gateway timeout|server_error/i.test(text)) return 'server_error';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Text blocks

export const TEXT_BLOCK_SEPARATOR = '\n\n';

/** Joins separate text blocks of an answer the way the adapters' live deltas join them. */
export function joinTextBlocks(blocks: readonly string[]): string {
  return blocks.filter((block) => block.length > 0).join(TEXT_BLOCK_SEPARATOR);
}

/**
 * Tracks block boundaries of the live answer: after `beginTextBlock`, the next non-empty chunk is
 * preceded by a separator delta if any text was emitted before.
 */
export interface TextJoinState {
  emittedText: boolean;
  blockPending: boolean;
}

export function createTextJoin(): TextJoinState {
  return { emittedText: false, blockPending: false };
}

export function beginTextBlock(join: TextJoinState): void {
  join.blockPending = true;
}

export function textDeltaEvents(join: TextJoinState, chunk: string): NormalizedEvent[] {
  if (chunk.length === 0) return [];
  const events: NormalizedEvent[] = [];
  if (join.blockPending && join.emittedText) events.push({ kind: 'text_delta', text: TEXT_BLOCK_SEPARATOR });
  join.blockPending = false;
  join.emittedText = true;
  events.push({ kind: 'text_delta', text: chunk });
  return events;
}

// ---------------------------------------------------------------------------------------------
// Steps and exit

/** Steps an adapter has started, so it can end them once and close the rest at exit. */
export interface OpenStep {
  name: string;
  ended: boolean;
}

/** `step_end` (not ok) for every started step that never finished, e.g. when the CLI was killed. */
export function closeOpenSteps(steps: Map<string, OpenStep>): NormalizedEvent[] {
  const events: NormalizedEvent[] = [];
  for (const [stepId, step] of steps) {
    if (step.ended) continue;
    step.ended = true;
    events.push({ kind: 'step_end', stepId, name: step.name, ok: false });
  }
  return events;
}

/** The last non-empty line of a text. */
export function lastNonEmptyLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line) return line;
  }
  return undefined;
}

/**
 * The line of a stderr tail that best says what went wrong: the last line that reads like an error
 * (not a stack frame), else the last non-empty line. CLIs often print hints after the error itself.
 */
export function errorLineFrom(stderr: string): string | undefined {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('at '));
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line && /error|fail|invalid|denied|not found|refus|cannot|unable/i.test(line)) return line;
  }
  return lastNonEmptyLine(stderr);
}

/**
 * The `result` for a process that printed no terminal line: exit 0 is success; otherwise the
 * adapter's structured hint wins, then stderr text, then 'crash'.
 */
export function resultFromExit(
  exit: ExitInfo,
  hint?: { failure: FailureClass; message?: string },
): Extract<NormalizedEvent, { kind: 'result' }> {
  if (exit.code === 0 && !exit.signal) return { kind: 'result', ok: true };
  const how = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
  const detail = hint?.message ?? errorLineFrom(exit.stderr);
  return {
    kind: 'result',
    ok: false,
    failure: hint?.failure ?? failureFromText(exit.stderr) ?? 'crash',
    message: detail ? `${how}: ${detail}` : how,
  };
}

/** How to install a CLI published on npm (the data of providers/<id>/info.ts). */
export const npmInstall = (pkg: string, docs: string): InstallInfo => ({ npm: pkg, command: `npm install -g ${pkg}`, docs });

/**
 * For an adapter whose CLI takes no MCP servers: a run that acts only through them (`mcpOnly`: the executive,
 * whose tools are one) cannot run on it, as a read-only run cannot on a CLI svc cannot hold to read-only.
 */
export function refuseMcpOnly(displayName: string): never {
  throw new Error(`${displayName} takes no MCP servers, and this run acts only through them (the executive's tools are one): give it a provider that takes them, such as claude, codex, gemini, opencode or copilot`);
}
