// `/web-ai …` and `svc web-ai …`: a pure parser from command words to a typed call (bad input is a 400
// that shows the usage), the call run through any WebAiApi, and the answer rendered for a person. The
// slash command runs it on the core server; the CLI runs the same call over HTTP (and prints JSON with --json).
import { tokenizeArgs, type ArgToken } from '../../../agent/commands.ts';
import { AppError } from '../../../core/errors.ts';
import type { z } from 'zod';
import {
  CodeBody,
  ExtractBody,
  PollQuery,
  QueryBody,
  SendBody,
  StopBody,
  VendorId,
  type Answer,
  type CodeBlock,
  type CodeResult,
  type ExtractResult,
  type Profiles,
  type SavedFile,
  type SendResult,
  type Sessions,
  type Status,
  type StopResult,
  type WebAiApi,
} from './types.ts';
import { ownValue } from '../../../core/own.ts';

export const WEB_AI_USAGE: Record<string, string> = {
  query: 'query <vendor> <prompt…> [--new] [--file <path>]… [--timeout <ms>]',
  send: 'send <vendor> <prompt…> [--new] [--file <path>]…',
  poll: 'poll <session> [--timeout <ms>]',
  code: 'code <vendor> <prompt…> [--save-to <dir>] [--overwrite] [--new] [--file <path>]… [--timeout <ms>]',
  'code-extract': 'code-extract [<session>] [--tab <t1>] [--vendor <id>] [--save-to <dir>] [--overwrite]',
  stop: 'stop [<session>] [--vendor <id>]',
  status: 'status <vendor>',
  sessions: 'sessions',
  profiles: 'profiles',
};

export const WEB_AI_HELP = [
  'Ask a web chat assistant (ChatGPT, Gemini, Claude, Grok, or a profile you add) in the controlled browser:',
  ...Object.values(WEB_AI_USAGE).map((u) => `  /web-ai ${u}`),
  'Vendors: chatgpt, gemini, claude, grok (see `profiles`). Log in to them yourself in a headed browser; svc never handles credentials.',
].join('\n');

export type WebAiCall =
  | { op: 'help' }
  | { op: 'send'; body: SendBody }
  | { op: 'query'; body: QueryBody }
  | { op: 'code'; body: CodeBody }
  | { op: 'poll'; query: PollQuery }
  | { op: 'code-extract'; body: ExtractBody }
  | { op: 'stop'; body: StopBody }
  | { op: 'status'; vendor: string }
  | { op: 'sessions' }
  | { op: 'profiles' };

type FlagKind = 'bool' | 'value' | 'list';
const ASK: Record<string, FlagKind> = { new: 'bool', file: 'list' };
const FLAGS: Record<string, Record<string, FlagKind>> = {
  send: ASK,
  query: { ...ASK, timeout: 'value' },
  code: { ...ASK, timeout: 'value', 'save-to': 'value', overwrite: 'bool' },
  poll: { timeout: 'value' },
  'code-extract': { tab: 'value', vendor: 'value', 'save-to': 'value', overwrite: 'bool' },
  stop: { vendor: 'value' },
  status: {},
  sessions: {},
  profiles: {},
};

const usageError = (message: string, sub?: string) =>
  new AppError(400, 'INVALID_COMMAND_ARGS', `${message}. Usage: /web-ai ${(sub && ownValue(WEB_AI_USAGE, sub)) || '<send|poll|query|code|code-extract|stop|status|sessions|profiles> …'}`, { command: 'web-ai' });

/** Validate against the same schema the route uses, so the parser never builds what the server refuses. */
function checked<S extends z.ZodType>(schema: S, value: unknown, sub: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw usageError(`${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`, sub);
}

/** Parse command words (shell arguments, or the tokens of a slash command). Throws 400 INVALID_COMMAND_ARGS. */
export function parseWebAiArgs(tokens: readonly ArgToken[]): WebAiCall {
  const [first, ...rest] = tokens;
  const sub = first?.value.toLowerCase();
  if (!sub || sub === 'help' || sub === '--help') return { op: 'help' };
  const spec = FLAGS[sub];
  if (!spec) throw usageError(`unknown subcommand '${first!.value}'`);
  const words: string[] = [];
  const flags: Record<string, string | true | string[]> = {};
  let flagsDone = false;
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!;
    if (flagsDone || t.quoted || !t.value.startsWith('--') || t.value.length === 2) {
      if (!flagsDone && !t.quoted && t.value === '--') flagsDone = true;
      else words.push(t.value);
      continue;
    }
    const [name, inline] = t.value.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const kind = spec[name];
    if (!kind) throw usageError(`unknown option --${name}`, sub);
    if (kind === 'bool') {
      if (inline !== undefined) throw usageError(`--${name} takes no value`, sub);
      flags[name] = true;
      continue;
    }
    const value = inline ?? rest[++i]?.value;
    if (value === undefined || value === '') throw usageError(`--${name} needs a value`, sub);
    if (kind === 'list') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  const int = (name: string): number | undefined => {
    const v = flags[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !/^\d+$/.test(v)) throw usageError(`--${name} must be a whole number of milliseconds`, sub);
    return Number(v);
  };
  const str = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  const noMoreThan = (n: number) => {
    if (words.length > n) throw usageError(`unexpected '${words[n]}'`, sub);
  };
  const ask = () => {
    const [vendor, ...prompt] = words;
    if (!vendor) throw usageError(`${sub} needs a vendor and a prompt`, sub);
    if (!prompt.length) throw usageError(`${sub} needs a prompt after the vendor`, sub);
    const files = flags.file as string[] | undefined;
    return { vendor, prompt: prompt.join(' '), ...(files ? { files } : {}), ...(flags.new ? { newChat: true } : {}) };
  };
  const saving = () => ({ ...(str('save-to') ? { saveTo: str('save-to') } : {}), ...(flags.overwrite ? { overwrite: true } : {}) });
  const timeout = () => (int('timeout') !== undefined ? { timeout: int('timeout') } : {});
  switch (sub) {
    case 'send':
      return { op: 'send', body: checked(SendBody, ask(), sub) };
    case 'query':
      return { op: 'query', body: checked(QueryBody, { ...ask(), ...timeout() }, sub) };
    case 'code':
      return { op: 'code', body: checked(CodeBody, { ...ask(), ...timeout(), ...saving() }, sub) };
    case 'poll':
      noMoreThan(1);
      if (!words[0]) throw usageError('poll needs a session id (see /web-ai sessions)', sub);
      return { op: 'poll', query: checked(PollQuery, { sessionId: words[0], ...timeout() }, sub) };
    case 'code-extract':
      noMoreThan(1);
      return {
        op: 'code-extract',
        body: checked(ExtractBody, { ...(words[0] ? { sessionId: words[0] } : {}), ...(str('tab') ? { tab: str('tab') } : {}), ...(str('vendor') ? { vendor: str('vendor') } : {}), ...saving() }, sub),
      };
    case 'stop':
      noMoreThan(1);
      return { op: 'stop', body: checked(StopBody, { ...(words[0] ? { sessionId: words[0] } : {}), ...(str('vendor') ? { vendor: str('vendor') } : {}) }, sub) };
    case 'status':
      noMoreThan(1);
      if (!words[0]) throw usageError('status needs a vendor', sub);
      return { op: 'status', vendor: checked(VendorId, words[0], sub) };
    default:
      noMoreThan(0);
      return { op: sub as 'sessions' | 'profiles' };
  }
}

/** Parse `/web-ai …` text (the `/web-ai` prefix is optional). */
export function parseWebAiCommand(text: string): WebAiCall {
  const rest = text.trim().replace(/^\/?web-ai(?=\s|$)/i, '');
  const tokens = tokenizeArgs(rest);
  if (typeof tokens === 'string') throw usageError(tokens);
  return parseWebAiArgs(tokens);
}

// ---- run and render --------------------------------------------------------------------------------

export async function runWebAiCall(call: WebAiCall, api: WebAiApi): Promise<{ text: string; data?: unknown }> {
  const done = <T>(data: T, render: (d: T) => string) => ({ data, text: render(data) });
  switch (call.op) {
    case 'help':
      return { text: WEB_AI_HELP };
    case 'send':
      return done(await api.send(call.body), renderSent);
    case 'query':
      return done(await api.query(call.body), renderAnswer);
    case 'poll':
      return done(await api.poll(call.query), renderAnswer);
    case 'code':
      return done(await api.code(call.body), renderCode);
    case 'code-extract':
      return done(await api.extract(call.body), renderBlocks);
    case 'stop':
      return done(await api.stop(call.body), renderStop);
    case 'status':
      return done(await api.status(call.vendor), renderStatus);
    case 'sessions':
      return done(await api.sessions(), renderSessions);
    case 'profiles':
      return done(await api.profiles(), renderProfiles);
  }
}

const renderSent = (r: SendResult) => `Sent to ${r.vendor} (session ${r.sessionId}, tab ${r.tab}). Read the answer with: svc web-ai poll ${r.sessionId} --timeout 60000`;

function renderAnswer(a: Answer): string {
  const tail =
    a.state === 'complete'
      ? `[${a.vendor}, session ${a.sessionId}: complete]`
      : a.state === 'stopped'
        ? `[${a.vendor}, session ${a.sessionId}: stopped]`
        : `[${a.vendor}, session ${a.sessionId}: still writing, ${a.chars} characters so far; poll again]`;
  return `${a.text || '(no text yet)'}\n\n${tail}`;
}

function renderBlockList(blocks: CodeBlock[], saved?: SavedFile[]): string {
  const parts = blocks.map((b, i) => `${b.filename ? `${b.filename}:\n` : ''}\`\`\`${b.language}\n${b.code}\n\`\`\`${saved?.[i] ? `\n(saved to ${saved[i].path})` : ''}`);
  return parts.join('\n\n');
}

function renderCode(r: CodeResult): string {
  if (!r.blocks.length) return `The answer has no code blocks (session ${r.sessionId}):\n\n${r.text}`;
  return `${renderBlockList(r.blocks, r.saved)}\n\n[${r.vendor}, session ${r.sessionId}: ${r.blocks.length} code block${r.blocks.length === 1 ? '' : 's'}]`;
}

function renderBlocks(r: ExtractResult): string {
  if (!r.blocks.length) return `No code blocks in the latest answer (tab ${r.tab}).`;
  return renderBlockList(r.blocks, r.saved);
}

const renderStop = (r: StopResult) =>
  r.stopped ? `Stopped ${r.vendor}'s answer${r.sessionId ? ` (session ${r.sessionId})` : ''}.` : `Nothing was being written on ${r.vendor}.`;

function renderStatus(s: Status): string {
  const lines = s.checks.map((c) => `  ${c.found ? '✓' : '✗'} ${c.check}${c.detail ? `: ${c.detail}` : ''}${c.found ? '' : ` (tried ${c.tried.join(', ') || 'nothing'})`}`);
  return [`${s.label}: ${s.state.replace('_', ' ')}${s.writing ? ', writing an answer' : ''} — ${s.url} (tab ${s.tab})`, ...lines].join('\n');
}

function renderSessions(r: Sessions): string {
  if (!r.sessions.length) return 'No web-ai sessions yet.';
  return r.sessions.map((s) => `${s.sessionId}  ${s.vendor}  ${s.state}  ${s.chars} chars  "${s.prompt}"`).join('\n');
}

const renderProfiles = (r: Profiles) =>
  [...r.profiles.map((p) => `${p.id}  ${p.label}  ${p.url ?? '(no url)'}${p.source === 'builtin' ? '' : `  (${p.source})`}`), `Profile file: ${r.file}`].join('\n');
