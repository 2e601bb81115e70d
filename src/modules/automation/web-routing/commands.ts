// The `/web-routing` slash command: a pure parser and a runner over a RuleService.
//
//   /web-routing add <pattern> -> <target_url> [--status 301|302|303|307|308]   redirect (also: redirect …)
//   /web-routing rewrite <pattern> => <new_path_or_url>                         rewrite, no redirect
//   /web-routing block <pattern> [--status 4xx|5xx] [--message "text"]
//   /web-routing mock <METHOD|ANY> <path-or-url> [Header: v]... '<json_body>' [--status N] [--header "N: v"]...
//   /web-routing transform <pattern> [--header "N: v"] [--remove-header N] [--response-header "N: v"]
//                                    [--remove-response-header N] [--replace "from" "to"] [--request-replace "from" "to"]
//   /web-routing list
//   /web-routing remove <pattern> | <id> | #<id>
//   /web-routing clear
//   /web-routing help
//
// Quoting: '…' and "…" group words ("…" understands \" and \\); [Header: value] groups are kept whole.
// The mock body is written in single quotes and may itself contain ' inside JSON strings.
import { AppError, badRequest } from '../../../core/errors.ts';
import type { SlashCommand } from '../../../agent/commands.ts';
import { canonicalPattern } from './pattern.ts';
import { normalizeRuleSpec, REDIRECT_STATUSES, type Edits, type Rule, type RuleSpec } from './rules.ts';
import type { JsonValue } from './template.ts';

export type WebRoutingCommand =
  | { kind: 'add'; rule: RuleSpec }
  | { kind: 'list' }
  | { kind: 'remove'; id: number }
  | { kind: 'remove'; pattern: string }
  | { kind: 'clear' }
  | { kind: 'help' };

export const WEB_ROUTING_USAGE = [
  'Usage: /web-routing <subcommand>',
  '  add <pattern> -> <target_url> [--status 301|302|303|307|308]   redirect matching requests',
  '  rewrite <pattern> => <new_path_or_url>                         change the URL without a redirect (:name and * carry over)',
  "  block <pattern> [--status N] [--message \"text\"]                 answer 403 {\"error\":\"BLOCKED_BY_RULE\",…}",
  "  mock <METHOD|ANY> <path> '<json_body>' [--status N] [--header \"Name: value\"]   templates: {{params.id}} {{query.x}} {{headers.x-y}} {{body.field}} {{method}}",
  '  transform <pattern> [--header "N: v"] [--remove-header N] [--response-header "N: v"] [--remove-response-header N] [--replace "from" "to"] [--request-replace "from" "to"]',
  '  list | remove <pattern|id> | clear | help',
  'Pattern: [METHOD] </path | host/path | https://*.example.com/path> [Header: value]; * glob, :name capture.',
].join('\n');

const cmdError = (message: string) => badRequest('INVALID_COMMAND', `${message}\n${WEB_ROUTING_USAGE}`);

// ---------------------------------------------------------------------------------------------------------------
// Tokenizer

interface Token {
  /** text with quotes removed */
  value: string;
  /** raw text as written */
  raw: string;
  quoted: boolean;
  start: number;
  end: number;
}

function readToken(text: string, pos: number): Token | null {
  let i = pos;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (i >= text.length) return null;
  const start = i;
  let value = '';
  let quoted = false;
  while (i < text.length && !/\s/.test(text[i]!)) {
    const c = text[i]!;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw cmdError(`Unclosed ' quote at: ${text.slice(i, i + 40)}`);
      value += text.slice(i + 1, close);
      quoted = true;
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) s += text[++j];
        else s += text[j];
      }
      if (j >= text.length) throw cmdError(`Unclosed " quote at: ${text.slice(i, i + 40)}`);
      value += s;
      quoted = true;
      i = j + 1;
    } else if (c === '[' && i === start) {
      const close = text.indexOf(']', i);
      if (close < 0) throw badRequest('INVALID_PATTERN', `Unclosed '[' in: ${text.slice(i, i + 60)}`);
      value += text.slice(i, close + 1);
      i = close + 1;
    } else {
      value += c;
      i++;
    }
  }
  return { value, raw: text.slice(start, i), quoted, start, end: i };
}

function tokenize(text: string, pos = 0): Token[] {
  const out: Token[] = [];
  for (let t = readToken(text, pos); t; t = readToken(text, t.end)) out.push(t);
  return out;
}

const isFlag = (t: Token) => !t.quoted && t.value.startsWith('--');

/** Reads pattern tokens from `tokens[i]` until a stop token; returns the pattern text and the next index. */
function readPattern(tokens: Token[], i: number, stop: (t: Token) => boolean, what: string): { pattern: string; next: number } {
  const parts: string[] = [];
  let j = i;
  while (j < tokens.length && !stop(tokens[j]!)) parts.push(tokens[j++]!.value);
  if (!parts.length) throw cmdError(`Missing <pattern> ${what}.`);
  return { pattern: parts.join(' '), next: j };
}

// Flags ---------------------------------------------------------------------------------------------------------

type FlagSpec = Record<string, { args: number; repeat?: boolean }>;

function readFlags(tokens: Token[], i: number, spec: FlagSpec, sub: string): Map<string, string[][]> {
  const flags = new Map<string, string[][]>();
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (!isFlag(t)) throw cmdError(`Unexpected '${t.raw}' in '${sub}'.`);
    const eq = t.value.indexOf('=');
    const name = eq > 0 ? t.value.slice(0, eq) : t.value;
    const s = spec[name];
    if (!s) {
      const known = Object.keys(spec);
      throw badRequest(
        'INVALID_OPTION',
        `Unknown option '${name}' for '${sub}'${known.length ? ` (known: ${known.join(', ')})` : ' (it takes none)'}.`,
      );
    }
    const args: string[] = [];
    if (eq > 0) args.push(t.value.slice(eq + 1));
    i++;
    while (args.length < s.args) {
      const a = tokens[i];
      if (!a || isFlag(a)) throw badRequest('INVALID_OPTION', `Option '${name}' needs ${s.args} value${s.args > 1 ? 's' : ''}.`);
      args.push(a.value);
      i++;
    }
    const list = flags.get(name) ?? [];
    if (list.length && !s.repeat) throw badRequest('INVALID_OPTION', `Option '${name}' is given twice.`);
    list.push(args);
    flags.set(name, list);
  }
  return flags;
}

function statusFlag(flags: Map<string, string[][]>): number | undefined {
  const v = flags.get('--status')?.[0]?.[0];
  if (v === undefined) return undefined;
  if (!/^\d{3}$/.test(v)) throw badRequest('INVALID_STATUS', `--status takes a 3-digit HTTP status, not '${v}'.`);
  return Number(v);
}

function headerPair(text: string, flag: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw badRequest('INVALID_HEADER', `${flag} takes "Name: value", got '${text}'.`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

// Mock body ------------------------------------------------------------------------------------------------------

/**
 * Reads the JSON body of a mock starting at `pos` (at its opening ' or at { / [). The closing quote is the first
 * ' (followed by a space or the end) that makes the text valid JSON, so ' inside JSON strings needs no escaping.
 */
function readMockBody(text: string, pos: number): { body: JsonValue; end: number } {
  const quote = text[pos] === "'" || text[pos] === '"' ? text[pos]! : null;
  const from = quote ? pos + 1 : pos;
  const closers = quote ? [quote] : ['}', ']'];
  let lastError = 'no closing quote';
  let lastCandidate = '';
  for (let j = from; j < text.length; j++) {
    if (!closers.includes(text[j]!)) continue;
    const after = text[j + 1];
    if (after !== undefined && !/\s/.test(after)) continue;
    const candidate = quote ? text.slice(from, j) : text.slice(from, j + 1);
    const src = quote === '"' ? candidate.replace(/\\(["\\])/g, '$1') : candidate;
    try {
      return { body: JSON.parse(src) as JsonValue, end: j + 1 };
    } catch (e) {
      lastError = (e as Error).message;
      lastCandidate = src;
    }
  }
  const shown = lastCandidate || text.slice(from);
  throw badRequest(
    'INVALID_MOCK_BODY',
    `The mock body is not valid JSON (${lastError}): ${shown.length > 80 ? shown.slice(0, 80) + '…' : shown}. ` +
      `Write it in single quotes, e.g. '{"id": "{{params.id}}"}'.`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Parser

/** Parses one `/web-routing …` command (the `/web-routing` prefix is optional). Throws AppError 400 on error. */
export function parseWebRoutingCommand(input: string): WebRoutingCommand {
  let text = String(input ?? '').trim();
  const prefix = /^\/?web-routing\b/i.exec(text);
  if (prefix) text = text.slice(prefix[0].length);
  const first = readToken(text, 0);
  if (!first) return { kind: 'help' };
  const sub = first.value.toLowerCase();
  // The mock body is read from the raw text (it may hold quotes), so tokenize lazily.
  let cached: Token[] | null = null;
  const all = (): Token[] => (cached ??= tokenize(text, first.end));

  switch (sub) {
    case 'help':
      return { kind: 'help' };
    case 'list':
    case 'ls':
      if (all().length) throw cmdError(`'list' takes no arguments.`);
      return { kind: 'list' };
    case 'clear':
      if (all().length) throw cmdError(`'clear' takes no arguments.`);
      return { kind: 'clear' };
    case 'remove':
    case 'rm':
    case 'delete': {
      const tokens = all();
      if (!tokens.length) throw cmdError('Missing <pattern> or rule id to remove.');
      const joined = tokens.map((t) => t.value).join(' ');
      const id = /^#?(\d+)$/.exec(joined);
      if (id) return { kind: 'remove', id: Number(id[1]) };
      return { kind: 'remove', pattern: canonicalPattern(joined) };
    }
    case 'add':
    case 'redirect': {
      const tokens = all();
      const arrow = tokens.findIndex((t) => !t.quoted && t.value === '->');
      if (arrow < 0) {
        const fat = tokens.some((t) => t.value === '=>');
        throw cmdError(fat ? `'${sub}' redirects with '->'; for a rewrite use '/web-routing rewrite <pattern> => <path>'.` : `Missing '-> <target_url>'.`);
      }
      const { pattern } = readPattern(tokens, 0, (t) => t === tokens[arrow], `before '->'`);
      const target = tokens[arrow + 1];
      if (!target || isFlag(target)) throw cmdError(`Missing <target_url> after '->'.`);
      const flags = readFlags(tokens, arrow + 2, { '--status': { args: 1 } }, sub);
      const status = statusFlag(flags);
      if (status !== undefined && !(REDIRECT_STATUSES as readonly number[]).includes(status)) {
        throw badRequest('INVALID_STATUS', `A redirect status is one of ${REDIRECT_STATUSES.join(', ')}, not ${status}.`);
      }
      return { kind: 'add', rule: normalizeRuleSpec({ type: 'redirect', pattern, target: target.value, status }) };
    }
    case 'rewrite': {
      const tokens = all();
      const arrow = tokens.findIndex((t) => !t.quoted && (t.value === '=>' || t.value === '->'));
      if (arrow < 0) throw cmdError(`Missing '=> <new_path>'.`);
      if (tokens[arrow]!.value === '->') {
        throw cmdError(`'rewrite' uses '=>' ('->' is a redirect: /web-routing add <pattern> -> <url>).`);
      }
      const { pattern } = readPattern(tokens, 0, (t) => t === tokens[arrow], `before '=>'`);
      const target = tokens[arrow + 1];
      if (!target || isFlag(target)) throw cmdError(`Missing <new_path> after '=>'.`);
      readFlags(tokens, arrow + 2, {}, sub);
      return { kind: 'add', rule: normalizeRuleSpec({ type: 'rewrite', pattern, target: target.value }) };
    }
    case 'block': {
      const tokens = all();
      const { pattern, next } = readPattern(tokens, 0, isFlag, '');
      const flags = readFlags(tokens, next, { '--status': { args: 1 }, '--message': { args: 1 } }, sub);
      const message = flags.get('--message')?.[0]?.[0];
      return { kind: 'add', rule: normalizeRuleSpec({ type: 'block', pattern, status: statusFlag(flags), message }) };
    }
    case 'mock': {
      // mock <METHOD> <path> [Header: v]... '<json>' [flags]. The body is found in the raw text, not via tokens.
      const method = readToken(text, first.end);
      if (!method || isFlag(method)) throw cmdError(`Missing <METHOD> <path> '<json_body>'.`);
      if (!/^[A-Za-z]+$|^\*$/.test(method.value)) {
        throw cmdError(`'mock' starts with a method (GET, POST, … or ANY), not '${method.value}'.`);
      }
      const parts: string[] = [method.value];
      let pos = method.end;
      let bodyStart = -1;
      for (;;) {
        while (pos < text.length && /\s/.test(text[pos]!)) pos++;
        const c = text[pos];
        if (c === undefined) break;
        if (c === "'" || c === '"' || c === '{' || (c === '[' && parts.length > 1 && !/^\[[!#$%&'*+.^_`|~0-9A-Za-z-]+(:|\])/.test(text.slice(pos)))) {
          bodyStart = pos;
          break;
        }
        if (text.startsWith('--', pos)) break;
        const t = readToken(text, pos)!;
        parts.push(t.value);
        pos = t.end;
      }
      if (parts.length < 2) throw cmdError(`Missing <path> after '${method.value}'.`);
      if (bodyStart < 0) throw badRequest('INVALID_MOCK_BODY', `Missing the JSON body: /web-routing mock ${parts.join(' ')} '{"ok": true}'.`);
      const { body, end } = readMockBody(text, bodyStart);
      const flags = readFlags(tokenize(text, end), 0, { '--status': { args: 1 }, '--header': { args: 1, repeat: true } }, sub);
      const headers: Record<string, string> = {};
      for (const [h] of flags.get('--header') ?? []) {
        const [n, v] = headerPair(h!, '--header');
        headers[n] = v;
      }
      const pattern = parts.join(' ');
      return { kind: 'add', rule: normalizeRuleSpec({ type: 'mock', pattern, status: statusFlag(flags), headers, body }) };
    }
    case 'transform': {
      const tokens = all();
      const { pattern, next } = readPattern(tokens, 0, isFlag, '');
      const flags = readFlags(
        tokens,
        next,
        {
          '--header': { args: 1, repeat: true },
          '--remove-header': { args: 1, repeat: true },
          '--response-header': { args: 1, repeat: true },
          '--remove-response-header': { args: 1, repeat: true },
          '--replace': { args: 2, repeat: true },
          '--request-replace': { args: 2, repeat: true },
        },
        sub,
      );
      const request: Edits = { setHeaders: {}, removeHeaders: [], replace: [] };
      const response: Edits = { setHeaders: {}, removeHeaders: [], replace: [] };
      for (const [h] of flags.get('--header') ?? []) {
        const [n, v] = headerPair(h!, '--header');
        request.setHeaders[n] = v;
      }
      for (const [h] of flags.get('--response-header') ?? []) {
        const [n, v] = headerPair(h!, '--response-header');
        response.setHeaders[n] = v;
      }
      for (const [n] of flags.get('--remove-header') ?? []) request.removeHeaders.push(n!);
      for (const [n] of flags.get('--remove-response-header') ?? []) response.removeHeaders.push(n!);
      for (const [from, to] of flags.get('--replace') ?? []) response.replace.push({ from: from!, to: to! });
      for (const [from, to] of flags.get('--request-replace') ?? []) request.replace.push({ from: from!, to: to! });
      return { kind: 'add', rule: normalizeRuleSpec({ type: 'transform', pattern, request, response }) };
    }
    default:
      throw cmdError(`Unknown subcommand '${first.value}'.`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Runner

/** What the runner needs from the rule service. */
export interface RuleCommandTarget {
  list(): Rule[];
  add(spec: RuleSpec): Rule;
  remove(id: number): Rule;
  removeByPattern(pattern: string): Rule[];
  clear(): number;
}

export function describeRule(r: Rule): string {
  switch (r.type) {
    case 'redirect':
      return `#${r.id} redirect ${r.pattern} -> ${r.target}${r.status !== 302 ? ` --status ${r.status}` : ''}`;
    case 'rewrite':
      return `#${r.id} rewrite ${r.pattern} => ${r.target}`;
    case 'block':
      return `#${r.id} block ${r.pattern}${r.status !== 403 ? ` --status ${r.status}` : ''}${r.message ? ` --message ${JSON.stringify(r.message)}` : ''}`;
    case 'mock':
      return (
        `#${r.id} mock ${r.pattern} ${JSON.stringify(r.body)}${r.status !== 200 ? ` --status ${r.status}` : ''}` +
        Object.entries(r.headers).map(([n, v]) => ` --header "${n}: ${v}"`).join('')
      );
    case 'transform': {
      const bits: string[] = [];
      for (const [n, v] of Object.entries(r.request.setHeaders)) bits.push(`--header "${n}: ${v}"`);
      for (const n of r.request.removeHeaders) bits.push(`--remove-header ${n}`);
      for (const x of r.request.replace) bits.push(`--request-replace ${JSON.stringify(x.from)} ${JSON.stringify(x.to)}`);
      for (const [n, v] of Object.entries(r.response.setHeaders)) bits.push(`--response-header "${n}: ${v}"`);
      for (const n of r.response.removeHeaders) bits.push(`--remove-response-header ${n}`);
      for (const x of r.response.replace) bits.push(`--replace ${JSON.stringify(x.from)} ${JSON.stringify(x.to)}`);
      return `#${r.id} transform ${r.pattern} ${bits.join(' ')}`;
    }
  }
}

export async function runWebRoutingCommand(
  text: string,
  service: RuleCommandTarget,
): Promise<{ text: string; data?: unknown }> {
  const cmd = parseWebRoutingCommand(text);
  switch (cmd.kind) {
    case 'help':
      return { text: WEB_ROUTING_USAGE };
    case 'list': {
      const rules = service.list();
      return {
        text: rules.length ? `${rules.length} rule${rules.length > 1 ? 's' : ''}:\n${rules.map(describeRule).join('\n')}` : 'No web-routing rules.',
        data: { rules },
      };
    }
    case 'add': {
      const rule = service.add(cmd.rule);
      return { text: `Added ${describeRule(rule)}`, data: { rule } };
    }
    case 'remove': {
      if ('id' in cmd) {
        const rule = service.remove(cmd.id);
        return { text: `Removed ${describeRule(rule)}`, data: { removed: [rule] } };
      }
      const removed = service.removeByPattern(cmd.pattern);
      if (!removed.length) throw new AppError(404, 'NOT_FOUND', `No web-routing rule has the pattern '${cmd.pattern}'. See /web-routing list.`);
      return { text: `Removed ${removed.length} rule${removed.length > 1 ? 's' : ''}:\n${removed.map(describeRule).join('\n')}`, data: { removed } };
    }
    case 'clear': {
      const n = service.clear();
      return { text: `Removed all ${n} web-routing rule${n === 1 ? '' : 's'}.`, data: { removed: n } };
    }
  }
}

/** `/web-routing …`: the rules as a slash command. */
export function webRoutingCommand(rules: RuleCommandTarget): SlashCommand {
  return {
    name: 'web-routing',
    usage: '/web-routing <add|rewrite|block|mock|transform|list|remove|clear> ...',
    // registered before the proxy starts, so the port named here is the default
    description: 'Intercept HTTP requests with rules (the local proxy, by default on 127.0.0.1:3458, and the controlled browser).',
    run: async (args) => (await runWebRoutingCommand(args, rules)).text,
  };
}
