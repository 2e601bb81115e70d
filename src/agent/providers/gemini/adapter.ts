// Gemini CLI adapter: headless (`gemini --prompt=… --output-format stream-json`), or over the Agent
// Client Protocol (`gemini --acp`, the shared client in ../acp/) when a person answers its permission
// requests: headless, gemini has nobody to ask and leaves out the tools that need approval.
//
// ACP mode (checked with 0.61.0, gemini-acp-permission-*.jsonl): `-m` picks the model as headless; MCP
// servers go in session/new (gemini reads them from there; a settings file would have to be root-only,
// see mcpRefusal), untrusted, so their calls are asked too; a resume is `session/load`. 0.61 loads a
// session a headless run made, but not one made over ACP ("No previous sessions found for this project.",
// although `gemini --list-sessions` lists it): the runtime then drops the id as stale and the turn starts
// a fresh session. With an MCP server running it does not exit when stdin closes (the attempt ends it once
// the answer is in). Its permission request carries no `rawInput`, the change is a diff
// content block; a reject lets the turn go on (the model reads `Tool "write_file" was canceled by the
// user.`). Usage is in the prompt answer's `_meta.quota`.
//
// Headless output:
// Every assistant `message` line is a text delta; thoughts are not printed at all in this format.
// Tool calls are `tool_use` / `tool_result` pairs. A failed run ends with `result` status "error"
// whose message often lacks the HTTP status, while the exit code is that status modulo 256
// (500→244, 429→173, 503→247), so a failed result is completed at exit, when the code is known.

import { join } from 'node:path';
import { acpMcpServers, geminiMcpServers } from '../mcp-config.ts';
import { asksPerson, initialAcpState, type AcpState } from '../acp/conversation.ts';
import { headlessOrAcp } from '../acp/mode.ts';
import { GEMINI_PROCESS_ENV } from './info.ts';

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
  isJsonObject,
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

export interface GeminiState {
  /** The conversation, when the run is driven over ACP (a person answers permission requests). */
  acp?: AcpState;
  sessionId?: string;
  /** `auto` at init means a router picks the model; the result's stats say which one answered. */
  modelIsAuto: boolean;
  text: TextJoinState;
  steps: Map<string, OpenStep>;
  resultEmitted: boolean;
  /** A `result` with status "error", finished in `finish` once the exit code is known. */
  failedResult?: { message: string; httpStatus?: number };
  /** A non-fatal `error` line (severity "error"), the hint when no result arrives. */
  lastError?: { failure: FailureClass; message: string };
}

// ---------------------------------------------------------------------------------------------
// Invocation

/**
 * Gemini has no "append to the system prompt" option: GEMINI_SYSTEM_MD replaces the whole built-in
 * prompt, which gemini assembles at run time (tool usage, workflows, safety, GEMINI.md memory
 * handling) and which a static file cannot reproduce. Replacing it would cost the agent its tool
 * guidance, and other CLIs here add to their prompt rather than replace it. So the system prompt is
 * sent as a delimited preamble of the first prompt of a session; it stays in the session history,
 * so resumed turns do not repeat it (a changed system prompt reaches gemini only in a new session).
 */
export function promptWithSystem(prompt: string, systemPrompt: string | undefined, resuming: boolean): string {
  if (!systemPrompt || resuming) return prompt;
  return `<system_instructions>\n${systemPrompt}\n</system_instructions>\n\n${prompt}`;
}

const MCP_SETTINGS_FILE = 'gemini-mcp-settings.json';
const MCP_ONLY_POLICY_FILE = 'gemini-mcp-only.toml';

/** Gemini's own tools that run commands, write files, fetch the web or start sub-agents (0.61). */
export const GEMINI_BUILTIN_WRITERS = ['run_shell_command', 'write_file', 'replace', 'web_fetch', 'google_web_search', 'invoke_agent', 'list_background_processes', 'read_background_output'];

/** A policy (gemini's policy engine) denying those tools: denied tools are not offered to the model at all. */
export const mcpOnlyPolicy = () => GEMINI_BUILTIN_WRITERS.map((tool) => `[[rule]]\ntoolName = "${tool}"\ndecision = "deny"\npriority = 900\n`).join('\n');

function buildInvocation(req: InvocationRequest): Invocation {
  const acp = asksPerson(req);
  const resuming = Boolean(req.resumeSessionId);
  // `--flag=value` keeps a value that starts with "-" from being read as an option.
  const args = acp ? ['--acp'] : [`--prompt=${promptWithSystem(req.prompt, req.systemPrompt, resuming)}`, '--output-format', 'stream-json'];
  if (req.model) args.push(`--model=${req.model}`);
  // Gemini has no effort setting: `req.effort` is ignored.
  // --skip-trust: the working directory is the one the user gave svc. Untrusted, gemini silently downgrades
  // --yolo to the default mode, and without --yolo a headless run fails at once (exit 55).
  // Not auto-approving (or read-only): the default approval mode; headless, gemini leaves out the tools that
  // would need approval (edits, shell); over ACP it asks for them.
  if (req.autoApprove && !req.readOnly) args.push('--yolo', '--skip-trust');
  else args.push('--approval-mode=default', '--skip-trust');
  if (req.resumeSessionId && !acp) args.push(`--resume=${req.resumeSessionId}`);
  if (req.extraArgs) args.push(...req.extraArgs);
  const invocation: Invocation = { command: req.executable, args, env: { ...GEMINI_PROCESS_ENV }, stdin: acp ? 'interactive' : 'close' };
  const files: NonNullable<Invocation['files']> = [];
  if (req.mcpOnly) {
    const path = join(req.scratchDir, MCP_ONLY_POLICY_FILE);
    files.push({ path, content: mcpOnlyPolicy(), mode: 0o600 });
    args.push(`--policy=${path}`);
  }
  // Over ACP the run's MCP servers go in session/new (initialState).
  if (!acp) addMcpSettings(req, invocation, files);
  if (files.length) invocation.files = files;
  return invocation;
}

/**
 * Headless, the run's MCP servers as "system defaults", the lowest settings layer: `mcpServers` is merged
 * by name with the user's and project's settings, which stay untouched (and win on a name clash).
 */
function addMcpSettings(req: InvocationRequest, invocation: Invocation, files: NonNullable<Invocation['files']>): void {
  if (!req.mcpServers?.length) return;
  if (req.scratchNotRootOnly) {
    const refusal = mcpRefusal(req.mcpServers.map((s) => s.name), req.scratchNotRootOnly);
    // a run that acts only through its MCP servers could do nothing at all
    if (req.mcpOnly) throw new Error(refusal);
    invocation.notices = [{ name: 'MCP servers', message: refusal }];
    return;
  }
  const path = join(req.scratchDir, MCP_SETTINGS_FILE);
  const settings = { mcpServers: geminiMcpServers(req.mcpServers, req.autoApprove) };
  files.push({ path, content: JSON.stringify(settings), mode: 0o600 });
  invocation.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = path;
}

/**
 * Gemini would skip the settings file (a "Security Warning" on stderr, and the run goes on without the
 * servers), so svc does not write it and says why, and what does reach Gemini: its user settings, which
 * it reads from anywhere (the MCP export writes the servers there).
 */
export function mcpRefusal(names: readonly string[], reason: string): string {
  return `Gemini CLI was not given the MCP servers ${names.join(', ')}: it reads them (GEMINI_CLI_SYSTEM_DEFAULTS_PATH) only from a file that root owns in directories only root can write to, and ${reason}. `
    + 'Gemini reads the servers of its user settings from anywhere: export them into ~/.gemini/settings.json with POST /api/mcp/sync {"targets":["gemini"]} (and leave gemini out of their providers to stop this notice).';
}

function initialState(req: InvocationRequest): GeminiState {
  const state: GeminiState = { modelIsAuto: false, text: createTextJoin(), steps: new Map(), resultEmitted: false };
  if (asksPerson(req)) {
    const prompt = promptWithSystem(req.prompt, req.systemPrompt, Boolean(req.resumeSessionId));
    state.acp = initialAcpState(req, { cli: 'gemini', prompt, mcpServers: acpMcpServers(req.mcpServers ?? []) });
  }
  return state;
}

// ---------------------------------------------------------------------------------------------
// Failure classification

/** gemini exits with the HTTP status modulo 256 after an API error (0.61.0). */
const EXIT_CODE_HTTP_STATUS: Record<number, number> = {
  144: 400,
  145: 401,
  147: 403,
  148: 404,
  173: 429,
  244: 500,
  246: 502,
  247: 503,
  248: 504,
  17: 529,
};

/** gemini's own fatal exit codes (FatalAuthenticationError and friends). */
const EXIT_CODE_FAILURE: Record<number, FailureClass> = {
  41: 'auth',
  42: 'invalid_request', // bad input, e.g. an unknown --resume id (stderr tells it apart below)
  52: 'invalid_request', // configuration error
};

function failedResultEvent(failed: { message: string; httpStatus?: number }, exit: ExitInfo): NormalizedEvent {
  const status = failed.httpStatus ?? (exit.code !== null ? EXIT_CODE_HTTP_STATUS[exit.code] : undefined);
  const failure: FailureClass =
    status !== undefined ? failureFromHttpStatus(status) : (failureFromText(failed.message) ?? 'unknown');
  return { kind: 'result', ok: false, failure, message: failed.message };
}

function exitFailureHint(exit: ExitInfo, state: GeminiState): { failure: FailureClass; message?: string } | undefined {
  if (state.lastError) return state.lastError;
  // stderr is more specific than the exit code (42 covers both a stale resume id and other input errors).
  const fromText = failureFromText(exit.stderr);
  if (fromText) return { failure: fromText };
  const byCode = exit.code !== null ? EXIT_CODE_FAILURE[exit.code] : undefined;
  return byCode ? { failure: byCode } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Lines

export function geminiStepKind(toolName: string): StepKind {
  switch (toolName) {
    case 'run_shell_command':
      return 'command';
    case 'write_file':
    case 'replace':
    case 'edit':
      return 'file';
    case 'google_web_search':
    case 'web_fetch':
      return 'search';
    case 'invoke_agent':
    case 'codebase_investigator':
      return 'subagent';
    default:
      return 'tool';
  }
}

function initEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'session_id');
  if (!id || id === state.sessionId) return [];
  state.sessionId = id;
  const model = stringAt(line, 'model');
  state.modelIsAuto = model === 'auto';
  const event: NormalizedEvent = { kind: 'session', providerSessionId: id };
  if (model && !state.modelIsAuto) event.model = model;
  return [event];
}

function messageEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  // The user's own prompt is echoed as a message too.
  if (stringAt(line, 'role') !== 'assistant') return [];
  return textDeltaEvents(state.text, stringAt(line, 'content') ?? '');
}

function toolUseEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'tool_id');
  const name = stringAt(line, 'tool_name') ?? 'tool';
  // Text after a tool call is a new block of the answer.
  beginTextBlock(state.text);
  if (!id || state.steps.has(id)) return [];
  state.steps.set(id, { name, ended: false });
  return [{ kind: 'step_start', stepId: id, name, step: geminiStepKind(name), input: objectAt(line, 'parameters') ?? {} }];
}

function toolResultEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  const id = stringAt(line, 'tool_id');
  const step = id ? state.steps.get(id) : undefined;
  if (!id || !step || step.ended) return [];
  step.ended = true;
  const end: NormalizedEvent = { kind: 'step_end', stepId: id, name: step.name, ok: stringAt(line, 'status') === 'success' };
  const output = stringAt(line, 'output') ?? stringAt(objectAt(line, 'error'), 'message');
  if (output !== undefined) end.output = output;
  return [end];
}

function errorEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  const message = stringAt(line, 'message') ?? 'error';
  // Warnings (e.g. a blocked agent action) do not end the run; severity "error" lines usually do.
  const failure = failureFromText(message) ?? 'unknown';
  if (stringAt(line, 'severity') === 'error') state.lastError = { failure, message };
  return [{ kind: 'error', failure, message }];
}

/** With model `auto`, the model that answered is the one with most tokens in the stats. */
function routedModel(stats: JsonObject | undefined): string | undefined {
  const models = objectAt(stats, 'models');
  let best: { name: string; tokens: number } | undefined;
  for (const [name, value] of Object.entries(models ?? {})) {
    const tokens = isJsonObject(value) ? (numberAt(value, 'total_tokens') ?? 0) : 0;
    if (!best || tokens > best.tokens) best = { name, tokens };
  }
  return best?.name;
}

function usageEvent(stats: JsonObject | undefined): NormalizedEvent {
  const event: NormalizedEvent = { kind: 'usage' };
  const input = numberAt(stats, 'input_tokens');
  const output = numberAt(stats, 'output_tokens');
  const cached = numberAt(stats, 'cached');
  if (input !== undefined) event.inputTokens = input;
  if (output !== undefined) event.outputTokens = output;
  if (cached !== undefined) event.cachedTokens = cached;
  return event;
}

function resultEvents(state: GeminiState, line: JsonObject): NormalizedEvent[] {
  const stats = objectAt(line, 'stats');
  const events: NormalizedEvent[] = [];
  const model = state.modelIsAuto ? routedModel(stats) : undefined;
  if (model && state.sessionId) events.push({ kind: 'session', providerSessionId: state.sessionId, model });
  events.push(usageEvent(stats));
  if (stringAt(line, 'status') === 'success') {
    state.resultEmitted = true;
    // No final text in gemini's result: the answer is the concatenated deltas.
    events.push({ kind: 'result', ok: true });
    return events;
  }
  const message = stringAt(objectAt(line, 'error'), 'message') ?? 'error';
  const httpStatus = httpStatusFromText(message);
  state.failedResult = httpStatus !== undefined ? { message, httpStatus } : { message };
  // Announce the failure now; its class may still be refined by the exit code in `finish`.
  const error: NormalizedEvent = { kind: 'error', failure: failureFromText(message) ?? 'unknown', message };
  if (httpStatus !== undefined) {
    error.failure = failureFromHttpStatus(httpStatus);
    error.httpStatus = httpStatus;
  }
  events.push(error);
  return events;
}

function parseLine(state: GeminiState, raw: string): AdapterOutput {
  const line = parseJsonLine(raw);
  if (!line) return { events: [] };
  switch (stringAt(line, 'type')) {
    case 'init':
      return { events: initEvents(state, line) };
    case 'message':
      return { events: messageEvents(state, line) };
    case 'tool_use':
      return { events: toolUseEvents(state, line) };
    case 'tool_result':
      return { events: toolResultEvents(state, line) };
    case 'error':
      return { events: errorEvents(state, line) };
    case 'result':
      return { events: resultEvents(state, line) };
    default:
      return { events: [] };
  }
}

function finish(state: GeminiState, exit: ExitInfo): NormalizedEvent[] {
  const events = closeOpenSteps(state.steps);
  if (state.resultEmitted) return events;
  if (state.failedResult) {
    events.push(failedResultEvent(state.failedResult, exit));
    return events;
  }
  // Fatal startup errors (unknown resume id, auth, config) are only on stderr.
  events.push(resultFromExit(exit, exitFailureHint(exit, state)));
  return events;
}

export const geminiAdapter: ProviderAdapter<GeminiState> = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState,
  ...headlessOrAcp({ parseLine, finish }),
};
