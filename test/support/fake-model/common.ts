// Wire-independent core of the fake model: the normalized view of a request, the scenario logic that
// decides what to answer, and small pure helpers (ids, chunking, error texts). Everything here is pure;
// the per-API modules translate a normalized request in and an Answer out.
import { randomBytes } from 'node:crypto';

export type WireApi = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** One entry of the conversation as the model sees it. */
export type Turn =
  | { role: 'user'; text: string } // a real prompt (not a tool result)
  | { role: 'assistant' }
  | { role: 'tool'; text: string }; // a tool result sent back

export interface ToolSpec {
  name: string;
  /** `custom` = OpenAI Responses freeform tool (codex's apply_patch). */
  kind: 'function' | 'custom' | 'builtin';
  schema?: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  [k: string]: unknown;
}

export interface NormalizedRequest {
  api: WireApi;
  model: string;
  stream: boolean;
  turns: Turn[];
  tools: ToolSpec[];
  /** System prompt / instructions text (used to find the working directory). */
  system: string;
  /** Structured (JSON) output requested, e.g. gemini's auto-model router. */
  jsonSchema?: JsonSchema;
}

export type ScenarioName =
  | 'text'
  | 'thinking'
  | 'tool'
  | 'write'
  | 'error'
  | 'ratelimit'
  | 'overloaded'
  | 'flaky'
  | 'slow'
  | (string & {});

export interface ToolCallPlan {
  id: string;
  name: string;
  kind: 'function' | 'custom';
  /** JSON arguments for function tools. */
  args: Record<string, unknown>;
  /** Raw input for custom (freeform) tools. */
  input: string;
}

export type Answer =
  | { kind: 'error'; which: 'error' | 'ratelimit' | 'overloaded' }
  | {
      kind: 'message';
      thinking: string[]; // chunks, empty = no thinking block
      text: string[]; // chunks, may be empty when only a tool call
      toolCall?: ToolCallPlan;
      /** Delay before each streamed chunk, ms. */
      delayMs: number;
      /** Short description for the request log ("text", "thinking+text", "text+tool_call(...)", "json"). */
      label: string;
    };

export const TEXT_ANSWER = 'Hello from the fake model. This is a plain text answer.';
export const THINKING_TEXT = 'The user wants a short answer. I will think briefly, then reply with a greeting.';
export const THINKING_ANSWER = 'Hello after thinking. The answer is 42.';
export const TOOL_PREFACE = 'I will run a shell command.';
export const WRITE_PREFACE = 'I will write a file.';
export const TOOL_DONE_PREFIX = 'The tool finished. Its output was: ';
export const SHELL_COMMAND = 'echo hello-from-tool';
export const WRITE_FILE_NAME = 'hello-from-tool.txt';
export const WRITE_FILE_CONTENT = 'hello-from-tool\n';

/** The `mcp` scenario calls the tool of this name on an MCP server (test/fixtures/mcp/probe-server.mjs). */
export const MCP_PROBE_TOOL = 'svc_probe';
export const MCP_PROBE_TEXT = 'ping';
export const MCP_PREFACE = 'I will call the MCP tool.';

export const SHELL_TOOLS = ['Bash', 'exec_command', 'run_shell_command', 'bash', 'shell'];
export const WRITE_TOOLS = ['Write', 'apply_patch', 'write_file', 'write', 'create'];

export function hexId(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

/** Splits a text into streaming chunks of `words` words, keeping the whitespace ("Hello from the ", ...). */
export function chunkWords(text: string, words = 3): string[] {
  const parts = text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += words) out.push(parts.slice(i, i + words).join(''));
  return out;
}

/** Splits a JSON arguments string in two (after the first top-level comma), like the recordings. */
export function splitArgs(json: string): string[] {
  let depth = 0;
  let inStr = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) return [json.slice(0, i + 1), json.slice(i + 1)];
  }
  const half = Math.ceil(json.length / 2);
  return json.length > 1 ? [json.slice(0, half), json.slice(half)] : [json];
}

export function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The scenario named by the last `scenario:<name>` token in the user prompts (then in any turn). */
export function findScenario(turns: Turn[]): string | undefined {
  const re = /scenario:([A-Za-z][\w-]*)/g;
  const lastIn = (texts: string[]) => {
    for (let i = texts.length - 1; i >= 0; i--) {
      const m = [...texts[i]!.matchAll(re)];
      if (m.length) return m[m.length - 1]![1]!.toLowerCase();
    }
    return undefined;
  };
  const prompts = turns.flatMap((t) => (t.role === 'user' ? [t.text] : []));
  return lastIn(prompts) ?? lastIn(turns.flatMap((t) => (t.role === 'tool' ? [t.text] : [])));
}

/**
 * A user message whose whole text is one XML-like block (codex's `<environment_context>…</environment_context>`,
 * `<user_instructions>`, …) is context the CLI injected, not a prompt the user typed.
 */
export function isInjectedContext(text: string): boolean {
  const t = text.trim();
  const m = /^<([\w-]+)>[\s\S]*<\/\1>$/.exec(t);
  return m !== null || t.startsWith('# AGENTS.md instructions');
}

/** Joins the text parts of one user message, moving injected-context parts into `context`. */
export function userText(parts: string[], context: string[]): string {
  const keep: string[] = [];
  for (const p of parts) {
    if (!p.trim()) continue;
    if (isInjectedContext(p)) context.push(p);
    else keep.push(p);
  }
  return keep.join('\n');
}

/** Facts the scenario logic needs about the conversation. */
export function analyze(turns: Turn[]) {
  let last = -1;
  for (let i = turns.length - 1; i >= 0; i--) {
    if (turns[i]!.role === 'user') {
      last = i;
      break;
    }
  }
  // Earlier prompts = real user prompts that were answered (an assistant turn lies between them and
  // the last prompt). A title call that only sends two user messages is not a resumed conversation.
  const earlier: string[] = [];
  let answeredAfter = false;
  for (let i = last - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.role === 'assistant') answeredAfter = true;
    else if (t.role === 'user' && answeredAfter) earlier.unshift(t.text);
  }
  const toolResults = turns.slice(last + 1).flatMap((t) => (t.role === 'tool' ? [t.text] : []));
  return { lastPrompt: last >= 0 ? (turns[last] as { text: string }).text : '', earlier, toolResults };
}

export interface PlanContext {
  scenario: string;
  /** True for the first model call of the server (flaky). */
  firstCall: boolean;
  chunkDelayMs: number;
  slowDelayMs: number;
  slowChunks: number;
  workDir?: string;
  /** A model that never calls tools (a server without tool calling): it answers in text instead. */
  noTools?: boolean;
  /** The command the `tool` scenario runs (default SHELL_COMMAND). */
  shellCommand?: string;
}

export function pickTool(tools: ToolSpec[], names: string[]): ToolSpec | undefined {
  for (const n of names) {
    const t = tools.find((x) => x.name === n && x.kind !== 'builtin');
    if (t) return t;
  }
  return undefined;
}

/** Arguments for the CLI's own shell tool, derived from its name and schema. */
export function shellArgs(tool: ToolSpec, command = SHELL_COMMAND): Record<string, unknown> {
  const props = tool.schema?.properties ?? {};
  const required = tool.schema?.required ?? [];
  if (tool.name === 'exec_command' || ('cmd' in props && !('command' in props))) return { cmd: command };
  const cmdType = props['command']?.type;
  const args: Record<string, unknown> = {
    command: cmdType === 'array' ? ['bash', '-lc', command] : command,
  };
  // Claude's Bash and gemini's run_shell_command get a description like the recordings; otherwise only
  // when the schema requires one (copilot's bash does, opencode's does not).
  if (
    'description' in props &&
    (required.includes('description') || tool.name === 'Bash' || tool.name === 'run_shell_command')
  ) {
    args['description'] = 'Print a greeting';
  }
  return args;
}

export function applyPatchInput(): string {
  return `*** Begin Patch\n*** Add File: ${WRITE_FILE_NAME}\n+hello-from-tool\n*** End Patch\n`;
}

/** Arguments for the CLI's own file-write tool. */
export function writeArgs(tool: ToolSpec, workDir: string | undefined): Record<string, unknown> {
  const props = tool.schema?.properties ?? {};
  const path = workDir ? `${workDir.replace(/\/+$/, '')}/${WRITE_FILE_NAME}` : WRITE_FILE_NAME;
  if (tool.name === 'apply_patch') return { input: applyPatchInput() };
  const pathKey =
    ['file_path', 'filePath', 'path', 'absolute_path', 'filename'].find((k) => k in props) ??
    (tool.name === 'write' ? 'filePath' : tool.name === 'create' ? 'path' : 'file_path');
  const contentKey =
    ['content', 'file_text', 'contents', 'text'].find((k) => k in props) ??
    (tool.name === 'create' ? 'file_text' : 'content');
  return { [pathKey]: path, [contentKey]: WRITE_FILE_CONTENT };
}

/** Finds the session's working directory in the system prompt / first messages. */
export function findWorkDir(req: NormalizedRequest): string | undefined {
  const texts = [req.system, ...req.turns.flatMap((t) => (t.role === 'user' ? [t.text] : []))];
  const patterns = [
    /<cwd>\s*([^<\s]+)\s*<\/cwd>/,
    /Primary working directory:\s*(\/\S+)/i,
    /Workspace Directories:\**\s*\n\s*-\s*(\/\S+)/i,
    /current working directory(?: is)?:?\s*[`'"]?(\/[^\s`'"<]+)/i,
    /working directory(?: is)?:?\s*[`'"]?(\/[^\s`'"<]+)/i,
    /working in the directory:?\s*[`'"]?(\/[^\s`'"<]+)/i,
    /\bcwd:?\s*[`'"]?(\/[^\s`'"<]+)/i,
  ];
  for (const re of patterns) {
    for (const t of texts) {
      const m = re.exec(t);
      if (m) return m[1]!.replace(/[.,;:)]+$/, '');
    }
  }
  return undefined;
}

/** Builds a JSON value matching a (simple) JSON schema; knows gemini's router schema. */
export function jsonForSchema(schema: JsonSchema | undefined): unknown {
  const props = schema?.properties ?? {};
  if ('complexity_score' in props) {
    return { complexity_reasoning: 'A simple request (fake model).', complexity_score: 1 };
  }
  const build = (s: JsonSchema | undefined, key: string): unknown => {
    const type = Array.isArray(s?.type) ? s?.type[0] : s?.type;
    if (s?.enum?.length) return s.enum[0];
    switch (String(type ?? 'string').toLowerCase()) {
      case 'object': {
        const o: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(s?.properties ?? {})) o[k] = build(v, k);
        return o;
      }
      case 'array':
        return [];
      case 'integer':
      case 'number':
        return 1;
      case 'boolean':
        return false;
      default:
        return `fake ${key}`;
    }
  };
  return build(schema ?? { type: 'object' }, 'value');
}

/** Decides the answer for one model call. */
export function planAnswer(req: NormalizedRequest, ctx: PlanContext): Answer {
  const { scenario } = ctx;
  if (scenario === 'error' || scenario === 'ratelimit' || scenario === 'overloaded') {
    return { kind: 'error', which: scenario };
  }
  if (scenario === 'flaky' && ctx.firstCall) return { kind: 'error', which: 'error' };
  const delayMs = ctx.chunkDelayMs;
  const msg = (text: string, label: string, extra: Partial<Extract<Answer, { kind: 'message' }>> = {}) =>
    ({ kind: 'message', thinking: [], text: text ? chunkWords(text) : [], delayMs, label, ...extra }) as Answer;

  if (req.jsonSchema) return msg('', 'json', { text: [JSON.stringify(jsonForSchema(req.jsonSchema))] });

  const { earlier, toolResults } = analyze(req.turns);
  if (toolResults.length > 0) {
    const result = collapse(toolResults[toolResults.length - 1]!);
    return msg('', 'text', { text: [...chunkWords(TOOL_DONE_PREFIX), ...chunkWords(result)] });
  }
  // Scripted turns (tests that need a given answer or command): `say64:<base64url>` answers that text,
  // `sh64:<base64url>` runs that shell command, read from the last prompt only.
  const say = scriptedToken(req.turns, 'say64');
  if (say !== undefined) return msg(say, 'text say64');
  const sh = scriptedToken(req.turns, 'sh64');
  const shellTool = sh !== undefined ? pickTool(req.tools, SHELL_TOOLS) : undefined;
  if (sh !== undefined && shellTool) {
    const args = shellArgs(shellTool, sh);
    return msg(TOOL_PREFACE, `text+tool_call(${shellTool.name} sh64)`, { toolCall: { id: hexId(), name: shellTool.name, kind: 'function', args, input: JSON.stringify(args) } });
  }
  // `mcp64:<base64url of {"tool","args"}>` calls the MCP tool whose name ends with `tool` (any CLI prefix).
  const mcp = scriptedToken(req.turns, 'mcp64');
  const mcpCall = mcp !== undefined ? (JSON.parse(mcp) as { tool: string; args: Record<string, unknown> }) : undefined;
  const mcpTool = mcpCall ? req.tools.find((t) => t.name.endsWith(mcpCall.tool)) : undefined;
  if (mcpCall && mcpTool) {
    return msg(MCP_PREFACE, `text+tool_call(${mcpTool.name} mcp64)`, { toolCall: { id: hexId(), name: mcpTool.name, kind: 'function', args: mcpCall.args, input: JSON.stringify(mcpCall.args) } });
  }
  // "Call the tool <name> …" with that tool offered: a model that follows the instruction calls it, with arguments
  // made from its schema (svc's endpoint probe asks this); one without tool calling answers in words
  const asked = /\bCall the tool (\S+)/.exec(analyze(req.turns).lastPrompt)?.[1];
  const askedTool = asked ? req.tools.find((t) => t.name === asked) : undefined;
  if (askedTool && ctx.noTools) return msg(`I cannot call ${askedTool.name}.`, 'text (no tools)');
  if (askedTool) {
    const args = jsonForSchema(askedTool.schema ?? { type: 'object' }) as Record<string, unknown>;
    return msg('', `tool_call(${askedTool.name})`, { toolCall: { id: hexId(), name: askedTool.name, kind: 'function', args, input: JSON.stringify(args) } });
  }
  if (earlier.length > 0) {
    const prev = collapse(earlier[earlier.length - 1]!);
    return msg(
      `Hello again from the fake model. I can see ${earlier.length} earlier prompt(s) in this conversation; ` +
        `the previous one was: "${prev}"`,
      'text',
    );
  }
  if (scenario === 'thinking') {
    return msg(THINKING_ANSWER, 'thinking+text', { thinking: chunkWords(THINKING_TEXT) });
  }
  if (scenario === 'slow') {
    const n = Math.max(1, ctx.slowChunks);
    const text = Array.from({ length: n }, (_, i) => `chunk ${i + 1}/${n}.${i + 1 < n ? ' ' : ''}`);
    return { kind: 'message', thinking: [], text, delayMs: ctx.slowDelayMs, label: `slow(${n}x${ctx.slowDelayMs}ms)` };
  }
  if (scenario === 'mcp') {
    // An MCP server's tool, whatever prefix the CLI gives it (`mcp__probe__svc_probe`, `probe__svc_probe`, …).
    const tool = req.tools.find((t) => t.name.endsWith(MCP_PROBE_TOOL));
    if (!tool) return msg(TEXT_ANSWER, 'text side=nomcp');
    const args = { text: MCP_PROBE_TEXT };
    const toolCall: ToolCallPlan = { id: hexId(), name: tool.name, kind: 'function', args, input: JSON.stringify(args) };
    return msg(MCP_PREFACE, `text+tool_call(${tool.name} ${toolCall.input})`, { toolCall });
  }
  if (scenario === 'tool' || scenario === 'write') {
    const tool = pickTool(req.tools, scenario === 'tool' ? SHELL_TOOLS : WRITE_TOOLS);
    if (!tool) return msg(TEXT_ANSWER, 'text side=notools');
    const custom = tool.kind === 'custom';
    const args =
      scenario === 'tool' ? shellArgs(tool, ctx.shellCommand) : writeArgs(tool, ctx.workDir ?? findWorkDir(req));
    const input = custom ? applyPatchInput() : JSON.stringify(args);
    const toolCall: ToolCallPlan = {
      id: hexId(),
      name: tool.name,
      kind: custom ? 'custom' : 'function',
      args: custom ? {} : args,
      input,
    };
    const label = `text+tool_call(${tool.name} ${custom ? JSON.stringify(input) : input})`;
    return msg(scenario === 'tool' ? TOOL_PREFACE : WRITE_PREFACE, label, { toolCall });
  }
  return msg(TEXT_ANSWER, 'text');
}

/** Status codes and error bodies, as each provider sends them. */
export function errorStatus(api: WireApi, which: 'error' | 'ratelimit' | 'overloaded'): number {
  if (which === 'error') return 500;
  if (which === 'ratelimit') return 429;
  return api === 'anthropic' ? 529 : 503;
}

export function errorBody(api: WireApi, which: 'error' | 'ratelimit' | 'overloaded'): unknown {
  switch (api) {
    case 'anthropic': {
      const [type, message] =
        which === 'error'
          ? ['api_error', 'Fake internal server error']
          : which === 'ratelimit'
            ? ['rate_limit_error', 'Fake rate limit: number of requests exceeded']
            : ['overloaded_error', 'Overloaded'];
      return { type: 'error', error: { type, message } };
    }
    case 'gemini': {
      const [code, message, status] =
        which === 'error'
          ? [500, 'Fake internal error', 'INTERNAL']
          : which === 'ratelimit'
            ? [429, 'Fake quota exceeded (resource exhausted)', 'RESOURCE_EXHAUSTED']
            : [503, 'Fake model overloaded', 'UNAVAILABLE'];
      return { error: { code, message, status } };
    }
    default: {
      const [message, type] =
        which === 'error'
          ? ['Fake internal server error', 'server_error']
          : which === 'ratelimit'
            ? ['Fake rate limit reached. Please try again later.', 'rate_limit_exceeded']
            : ['Fake server overloaded', 'server_overloaded'];
      return { error: { message, type, param: null, code: type } };
    }
  }
}

/** Extracts plain text from the many content shapes (string, [{type:'text', text}], ...). */
export function textOf(content: unknown): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).filter(Boolean).join('\n');
  if (typeof content === 'object') {
    const o = content as Record<string, unknown>;
    if (typeof o['text'] === 'string') return o['text'];
    if (o['content'] !== undefined) return textOf(o['content']);
    if (typeof o['output'] === 'string') return o['output'];
  }
  return '';
}

/** One SSE frame; `chunk` frames are preceded by the answer's per-chunk delay. */
export interface SseFrame {
  event?: string;
  data: unknown;
  chunk?: boolean;
}

/** The decoded value of `<name>:<base64url>` in the last user prompt. */
export function scriptedToken(turns: Turn[], name: string): string | undefined {
  const prompts = turns.filter((t) => t.role === 'user');
  const last = prompts[prompts.length - 1]?.text ?? '';
  const m = new RegExp(`\\b${name}:([A-Za-z0-9_-]+)`).exec(last);
  return m ? Buffer.from(m[1]!, 'base64url').toString('utf8') : undefined;
}

/** `<name>:<base64url of text>`, the token scriptedToken reads. */
export const scriptToken = (name: 'say64' | 'sh64' | 'mcp64', text: string) => `${name}:${Buffer.from(text).toString('base64url')}`;
