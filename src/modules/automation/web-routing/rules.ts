// web-routing rules: types, validation, precedence and per-request planning. Pure (no I/O).
//
// PRECEDENCE between overlapping rules (the same text is in web-routing/README.md):
//   Specificity of a rule's pattern, larger wins, compared in order (see pattern.ts):
//     1. more constraints: +1 for a method, +1 per [Header: value], +1 for a host other than `*`
//     2. fewer `*` wildcards (path `*` and host `*.`)
//     3. fewer `:name` captures
//     4. more literal characters (host + path)
//     5. the more recently added rule (higher id)
//   Every rule is matched against the ORIGINAL request (method, URL, headers), never against another rule's output.
//   How rule types combine:
//     - block, mock and redirect are TERMINAL: if any matches, the most specific terminal rule alone answers the
//       request; no rewrite or transform applies to it (a terminal rule wins over a more specific rewrite).
//     - otherwise the request is forwarded: the most specific matching REWRITE (at most one) changes its URL, then
//       EVERY matching TRANSFORM applies, least specific first, so on a conflict (same header set twice, set vs
//       remove) the most specific transform has the last word. Within one transform rule, removals run before sets.
import { z } from 'zod';
import { AppError, badRequest, type ErrorCode } from '../../../core/errors.ts';
import {
  compareSpecificity,
  compilePattern,
  type Captures,
  type CompiledPattern,
  type MatchRequest,
} from './pattern.ts';
import {
  compileJsonTemplate,
  compileStringTemplate,
  parseRequestBody,
  type CompiledJson,
  type CompiledString,
  type JsonValue,
  type TemplateContext,
} from './template.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

export const RULE_TYPES = ['redirect', 'rewrite', 'block', 'mock', 'transform'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308] as const;

export interface Edits {
  /** headers to set (name as written → value; templates allowed, no {{body}}) */
  setHeaders: Record<string, string>;
  /** header names to remove */
  removeHeaders: string[];
  /** literal text replacements in the body, every occurrence, in order */
  replace: Array<{ from: string; to: string }>;
}

export type RuleSpec =
  | { type: 'redirect'; pattern: string; target: string; status: number }
  | { type: 'rewrite'; pattern: string; target: string }
  | { type: 'block'; pattern: string; status: number; message?: string }
  | { type: 'mock'; pattern: string; status: number; headers: Record<string, string>; body: JsonValue }
  | { type: 'transform'; pattern: string; request: Edits; response: Edits };

export type Rule = RuleSpec & { id: number; createdAt: string };

// ---------------------------------------------------------------------------------------------------------------
// Input validation (structured form, e.g. the JSON body of POST /api/web-routing/rules)

const editsSchema = lazySchema(() => z
  .object({
    setHeaders: z.record(z.string(), z.string()).optional(),
    removeHeaders: z.array(z.string()).optional(),
    replace: z.array(z.object({ from: z.string().min(1), to: z.string() }).strict()).optional(),
  })
  .strict());

const patternField = lazySchema(() => z.string().min(1).max(2048));
export const ruleInputSchema = lazySchema(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('redirect'), pattern: patternField, target: z.string().min(1), status: z.number().int().optional() }).strict(),
  z.object({ type: z.literal('rewrite'), pattern: patternField, target: z.string().min(1) }).strict(),
  z.object({ type: z.literal('block'), pattern: patternField, status: z.number().int().optional(), message: z.string().max(500).optional() }).strict(),
  z
    .object({
      type: z.literal('mock'),
      pattern: patternField,
      status: z.number().int().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional(),
    })
    .strict(),
  z.object({ type: z.literal('transform'), pattern: patternField, request: editsSchema.optional(), response: editsSchema.optional() }).strict(),
]));
export type RuleInput = z.input<typeof ruleInputSchema>;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MANAGED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

function checkHeaderName(name: string, code: ErrorCode): void {
  if (!HEADER_NAME.test(name)) throw badRequest(code, `'${name}' is not a valid header name.`);
  if (MANAGED_HEADERS.has(name.toLowerCase())) {
    throw badRequest(code, `The '${name}' header is managed by the proxy and cannot be set or removed by a rule.`);
  }
}
function checkHeaderValue(name: string, value: string, code: ErrorCode): void {
  if (/[\r\n\0]/.test(value)) throw badRequest(code, `The value of header '${name}' contains a line break.`);
}

function isJsonValue(v: unknown, depth = 0): v is JsonValue {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  if (typeof v === 'object') return Object.values(v as object).every((x) => isJsonValue(x, depth + 1));
  return false;
}

function normEdits(e: z.infer<typeof editsSchema> | undefined): Edits {
  return {
    setHeaders: { ...(e?.setHeaders ?? {}) },
    removeHeaders: [...(e?.removeHeaders ?? [])],
    replace: (e?.replace ?? []).map((r) => ({ from: r.from, to: r.to })),
  };
}

/**
 * Validates a rule given in structured form and returns it normalized (canonical pattern, defaults filled in).
 * Every problem is an AppError 400 with a stable code: INVALID_RULE, INVALID_PATTERN, INVALID_TARGET,
 * INVALID_MOCK_BODY, INVALID_HEADER, INVALID_STATUS, INVALID_TRANSFORM.
 */
export function normalizeRuleSpec(input: unknown): RuleSpec {
  const parsed = ruleInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'rule';
    const types = RULE_TYPES.join(', ');
    const typeProblem =
      input === null || typeof input !== 'object' || !RULE_TYPES.includes((input as { type?: never }).type as never);
    throw badRequest(
      'INVALID_RULE',
      typeProblem
        ? `A rule needs "type" (${types}) and "pattern", or send {"command": "/web-routing …"}.`
        : `Invalid rule: ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const r = parsed.data;
  let spec: RuleSpec;
  switch (r.type) {
    case 'redirect':
      spec = { type: 'redirect', pattern: r.pattern, target: r.target, status: r.status ?? 302 };
      break;
    case 'rewrite':
      spec = { type: 'rewrite', pattern: r.pattern, target: r.target };
      break;
    case 'block':
      spec = { type: 'block', pattern: r.pattern, status: r.status ?? 403, ...(r.message ? { message: r.message } : {}) };
      break;
    case 'mock':
      if (r.body === undefined) throw badRequest('INVALID_MOCK_BODY', 'A mock rule needs a JSON "body".');
      if (!isJsonValue(r.body)) throw badRequest('INVALID_MOCK_BODY', 'The mock body must be a JSON value.');
      spec = { type: 'mock', pattern: r.pattern, status: r.status ?? 200, headers: { ...(r.headers ?? {}) }, body: r.body };
      break;
    case 'transform':
      spec = { type: 'transform', pattern: r.pattern, request: normEdits(r.request), response: normEdits(r.response) };
      break;
  }
  // Compiling validates everything else (pattern, target, templates, headers, statuses).
  const compiled = compileRule({ ...spec, id: 0, createdAt: '' });
  spec.pattern = compiled.pattern.source;
  return spec;
}

// ---------------------------------------------------------------------------------------------------------------
// Targets of redirect and rewrite rules: an absolute http(s) URL or a path, with `:name` and `*` substitution
// in the path and query (the n-th `*` receives what the pattern's n-th `*` matched). When the target has no `?`,
// the request's own query string is kept.

interface CompiledTarget {
  absolute: boolean;
  render(req: MatchRequest, cap: Captures): string;
}

function compileTarget(target: string, pattern: CompiledPattern): CompiledTarget {
  const t = target.trim();
  const bad = (why: string) => badRequest('INVALID_TARGET', `Invalid target '${target}': ${why}`, { target });
  let origin = '';
  let rest: string;
  const abs = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(t);
  if (abs) {
    try {
      const u = new URL(`${abs[1]}://${abs[2]}/`);
      if (u.username || u.password) throw bad('credentials are not allowed');
      origin = `${u.protocol}//${u.host}`;
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw bad(`'${abs[2]}' is not a host`);
    }
    rest = abs[3] || '/';
    if (!rest.startsWith('/') && !rest.startsWith('?')) throw bad('expected a path after the host');
    if (rest.startsWith('?')) rest = '/' + rest;
  } else if (t.startsWith('/') && !t.startsWith('//')) {
    rest = t;
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(t)) {
    throw bad('only http:// and https:// targets are supported');
  } else {
    throw bad('a target is an absolute URL (https://host/path) or a path (/path)');
  }
  if (/\s/.test(rest)) throw bad('contains a space');
  if (rest.includes('#')) throw bad("a '#fragment' cannot be sent to a server");
  const parts: Array<string | { param: string } | { wild: number }> = [];
  let lit = '';
  let wild = 0;
  for (let i = 0; i < rest.length; ) {
    const c = rest[i]!;
    if (c === '\\' && (rest[i + 1] === '*' || rest[i + 1] === ':')) {
      lit += rest[i + 1];
      i += 2;
    } else if (c === '*') {
      if (wild >= pattern.wildcards) {
        throw bad(
          pattern.wildcards
            ? `it has more '*' than the pattern (${pattern.wildcards})`
            : "it uses '*' but the pattern has no '*' to take the text from (write '\\*' for a literal '*')",
        );
      }
      if (lit) parts.push(lit), (lit = '');
      parts.push({ wild: wild++ });
      while (rest[i] === '*') i++;
    } else if (c === ':' && /[A-Za-z_]/.test(rest[i + 1] ?? '')) {
      let j = i + 1;
      while (j < rest.length && /[A-Za-z0-9_]/.test(rest[j]!)) j++;
      const name = rest.slice(i + 1, j);
      if (!pattern.params.includes(name)) {
        throw bad(`the pattern has no ':${name}' capture${pattern.params.length ? ` (it has ${pattern.params.map((p) => ':' + p).join(', ')})` : ''}`);
      }
      if (lit) parts.push(lit), (lit = '');
      parts.push({ param: name });
      i = j;
    } else {
      lit += c;
      i++;
    }
  }
  if (lit) parts.push(lit);
  const hasQuery = rest.includes('?');
  return {
    absolute: Boolean(abs),
    render(req, cap) {
      let out = '';
      for (const p of parts) {
        if (typeof p === 'string') out += p;
        else if ('param' in p) out += cap.rawParams[p.param] ?? '';
        else out += cap.wildcards[p.wild] ?? '';
      }
      if (!hasQuery) out += req.search;
      return (origin || `${req.scheme}://${req.authority}`) + out;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Compiled rules

export type HeaderOp = { op: 'set'; name: string; value: string } | { op: 'remove'; name: string };

interface CompiledEdits {
  set: Array<{ name: string; value: CompiledString }>;
  remove: string[];
  replace: Array<{ from: string; to: string }>;
  empty: boolean;
}

export interface CompiledRule {
  rule: Rule;
  pattern: CompiledPattern;
  terminal: boolean;
  /** 0 = highest precedence; set by compileRuleSet */
  rank: number;
  target?: CompiledTarget;
  mockBody?: CompiledJson;
  mockHeaders?: Array<{ name: string; value: CompiledString }>;
  request?: CompiledEdits;
  response?: CompiledEdits;
}

function compileEdits(e: Edits, params: readonly string[], side: string): CompiledEdits {
  const opts = { params, allowBody: false, code: 'INVALID_HEADER' as const };
  const set = Object.entries(e.setHeaders).map(([name, value]) => {
    checkHeaderName(name, 'INVALID_HEADER');
    checkHeaderValue(name, value, 'INVALID_HEADER');
    return { name: name.toLowerCase(), value: compileStringTemplate(value, opts) };
  });
  for (const name of e.removeHeaders) checkHeaderName(name, 'INVALID_HEADER');
  for (const r of e.replace) {
    if (!r.from) throw badRequest('INVALID_TRANSFORM', `A ${side} body replacement needs non-empty text to find.`);
  }
  return {
    set,
    remove: e.removeHeaders.map((n) => n.toLowerCase()),
    replace: e.replace,
    empty: set.length === 0 && e.removeHeaders.length === 0 && e.replace.length === 0,
  };
}

export function compileRule(rule: Rule): CompiledRule {
  const pattern = compilePattern(rule.pattern);
  const base = { rule, pattern, rank: 0 };
  switch (rule.type) {
    case 'redirect':
      if (!(REDIRECT_STATUSES as readonly number[]).includes(rule.status)) {
        throw badRequest('INVALID_STATUS', `A redirect status is one of ${REDIRECT_STATUSES.join(', ')}, not ${rule.status}.`);
      }
      return { ...base, terminal: true, target: compileTarget(rule.target, pattern) };
    case 'rewrite':
      return { ...base, terminal: false, target: compileTarget(rule.target, pattern) };
    case 'block':
      if (rule.status < 400 || rule.status > 599) {
        throw badRequest('INVALID_STATUS', `A block status is 400-599, not ${rule.status}.`);
      }
      return { ...base, terminal: true };
    case 'mock': {
      if (rule.status < 200 || rule.status > 599) {
        throw badRequest('INVALID_STATUS', `A mock status is 200-599, not ${rule.status}.`);
      }
      const opts = { params: pattern.params, allowBody: true, code: 'INVALID_MOCK_BODY' as const };
      const mockBody = compileJsonTemplate(rule.body, opts);
      const mockHeaders = Object.entries(rule.headers).map(([name, value]) => {
        checkHeaderName(name, 'INVALID_HEADER');
        checkHeaderValue(name, value, 'INVALID_HEADER');
        return { name: name.toLowerCase(), value: compileStringTemplate(value, { ...opts, allowBody: false, code: 'INVALID_HEADER' }) };
      });
      return { ...base, terminal: true, mockBody, mockHeaders };
    }
    case 'transform': {
      const request = compileEdits(rule.request, pattern.params, 'request');
      const response = compileEdits(rule.response, pattern.params, 'response');
      if (request.empty && response.empty) {
        throw badRequest(
          'INVALID_TRANSFORM',
          'A transform rule must change something: --header, --remove-header, --response-header, --remove-response-header, --replace or --request-replace.',
        );
      }
      return { ...base, terminal: false, request, response };
    }
  }
}

/** Orders compiled rules: negative if a takes precedence over b. */
export function comparePrecedence(a: CompiledRule, b: CompiledRule): number {
  return -compareSpecificity(a.pattern.specificity, b.pattern.specificity) || b.rule.id - a.rule.id;
}

// ---------------------------------------------------------------------------------------------------------------
// Planning: what to do with one request

export interface AppliedRule {
  id: number;
  type: RuleType;
  pattern: string;
}

export interface BodyEdits {
  headerOps: HeaderOp[];
  replace: Array<{ from: string; to: string }>;
}

export type Plan =
  | { action: 'pass'; applied: AppliedRule[] }
  | { action: 'block'; applied: AppliedRule[]; rule: Rule; status: number; headers: Record<string, string>; body: string }
  | {
      action: 'mock';
      applied: AppliedRule[];
      rule: Rule;
      status: number;
      headers: Record<string, string>;
      /** true if the body template reads the request body: pass it to `body()` */
      needsRequestBody: boolean;
      body(requestBody?: string): string;
    }
  | { action: 'redirect'; applied: AppliedRule[]; rule: Rule; status: number; location: string }
  | {
      action: 'forward';
      applied: AppliedRule[];
      /** the absolute URL to send the request to (rewritten or the original) */
      url: string;
      rewritten: boolean;
      request: BodyEdits;
      response: BodyEdits;
    };

/** Header value listing the applied rules, e.g. "rewrite#2, transform#5". */
export const APPLIED_HEADER = 'x-web-routing';
export const appliedHeaderValue = (applied: readonly AppliedRule[]) => applied.map((a) => `${a.type}#${a.id}`).join(', ');

function urlOf(req: MatchRequest): string {
  return `${req.scheme}://${req.authority}${req.path}${req.search}`;
}

function templateContext(req: MatchRequest, cap: Captures): TemplateContext {
  let query: URLSearchParams | undefined;
  return {
    method: req.method,
    path: req.path,
    get url() {
      return urlOf(req);
    },
    host: req.authority,
    params: cap.params,
    get query() {
      return (query ??= new URLSearchParams(req.search));
    },
    headers: req.headers,
  };
}

const applied = (c: CompiledRule): AppliedRule => ({ id: c.rule.id, type: c.rule.type, pattern: c.rule.pattern });

/**
 * Answers made up by a rule (block, mock) carry CORS headers echoing the request's Origin, so a page's cross-origin
 * fetch can read them, as it could the real server's (a mock's own headers take priority).
 */
function corsHeaders(req: MatchRequest): Record<string, string> {
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return {};
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

function terminalPlan(c: CompiledRule, req: MatchRequest, cap: Captures): Plan {
  const rule = c.rule;
  switch (rule.type) {
    case 'block': {
      const message = rule.message ?? `Blocked by web-routing rule ${rule.id} (block ${rule.pattern}).`;
      return {
        action: 'block',
        applied: [applied(c)],
        rule,
        status: rule.status,
        headers: { 'content-type': 'application/json; charset=utf-8', ...corsHeaders(req) },
        body: JSON.stringify({
          error: 'BLOCKED_BY_RULE' satisfies ErrorCode,
          message,
          rule: { id: rule.id, pattern: rule.pattern },
          url: urlOf(req),
        }),
      };
    }
    case 'redirect':
      return { action: 'redirect', applied: [applied(c)], rule, status: rule.status, location: c.target!.render(req, cap) };
    case 'mock': {
      const tpl = c.mockBody!;
      const ctx = tpl.hasTemplates || c.mockHeaders!.length ? templateContext(req, cap) : null;
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...corsHeaders(req) };
      for (const h of c.mockHeaders!) headers[h.name] = h.value.render(ctx!);
      return {
        action: 'mock',
        applied: [applied(c)],
        rule,
        status: rule.status,
        headers,
        needsRequestBody: tpl.usesBody,
        body: (requestBody?: string) =>
          tpl.render(tpl.usesBody ? Object.assign(Object.create(ctx), { body: parseRequestBody(requestBody) }) : ctx!),
      };
    }
    default:
      throw new Error(`not a terminal rule: ${rule.type}`);
  }
}

function pushEdits(into: BodyEdits, e: CompiledEdits, ctx: TemplateContext | null): void {
  for (const name of e.remove) into.headerOps.push({ op: 'remove', name });
  for (const s of e.set) into.headerOps.push({ op: 'set', name: s.name, value: s.value.render(ctx!) });
  into.replace.push(...e.replace);
}

/** Applies header operations to a header record (keys lower-case); returns a new record. */
export function applyHeaderOps<T extends string | readonly string[] | undefined>(
  headers: Readonly<Record<string, T>>,
  ops: readonly HeaderOp[],
): Record<string, T | string> {
  const out: Record<string, T | string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  for (const op of ops) {
    if (op.op === 'remove') delete out[op.name];
    else out[op.name] = op.value;
  }
  return out;
}

const TEXTUAL =
  /^\s*(text\/|application\/(json|javascript|ecmascript|x-javascript|xml|xhtml\+xml|x-www-form-urlencoded|graphql|ld\+json|manifest\+json)|image\/svg\+xml|[^;\s]+\+(json|xml)\s*(;|$))/i;

/** Body replacements apply to textual UTF-8 bodies only (text/*, JSON, JavaScript, XML, SVG, forms, or no type). */
export function isTextualContentType(contentType: string | readonly string[] | undefined | null): boolean {
  const ct = typeof contentType === 'string' ? contentType : contentType?.[0];
  if (!ct) return true;
  if (!TEXTUAL.test(ct)) return false;
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(ct)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii';
}

/** Applies literal replacements (every occurrence, in order). */
export function applyReplacements(text: string, replace: ReadonlyArray<{ from: string; to: string }>): string {
  let out = text;
  for (const r of replace) out = out.split(r.from).join(r.to);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Rule sets: compiled rules indexed for fast matching.
//
// Index: host (exact map, `*.domain` suffix map, any-host) → trie of leading literal path segments → (optionally) an
// "anchor": the longest literal segment further on in the pattern, which a matching path must contain as a whole
// segment, or else the value of an exact [Header: value] constraint. A request visits only the buckets its host and path segments lead to, then runs each candidate's
// compiled checks (method, host, headers, path regex). Candidates whose rank cannot beat the best terminal already
// found are skipped.

interface TrieNode {
  children: Map<string, TrieNode> | null;
  /** rules whose literal prefix ends here */
  rules: CompiledRule[];
  /** rules whose literal prefix ends here, keyed by their anchor segment (a literal segment further on) */
  anchored: Map<string, CompiledRule[]> | null;
  /** rules without an anchor but with an exact [Header: value] constraint: header name → value → rules */
  byHeader: Map<string, Map<string, CompiledRule[]>> | null;
}

const newNode = (): TrieNode => ({ children: null, rules: [], anchored: null, byHeader: null });

function pushTo<K>(map: Map<K, CompiledRule[]>, key: K, c: CompiledRule): void {
  const list = map.get(key);
  if (list) list.push(c);
  else map.set(key, [c]);
}

function trieInsert(root: TrieNode, c: CompiledRule): void {
  let node = root;
  for (const s of c.pattern.literalSegments) {
    node.children ??= new Map();
    let next = node.children.get(s);
    if (!next) node.children.set(s, (next = newNode()));
    node = next;
  }
  const anchor = c.pattern.anchorSegment;
  const exact = c.pattern.headers.find((h) => h.value !== undefined && !h.value.includes('*'));
  if (anchor !== undefined) pushTo((node.anchored ??= new Map()), anchor, c);
  else if (exact !== undefined) {
    node.byHeader ??= new Map();
    let values = node.byHeader.get(exact.name);
    if (!values) node.byHeader.set(exact.name, (values = new Map()));
    pushTo(values, exact.value!, c);
  } else node.rules.push(c);
}

function trieCollect(root: TrieNode, req: MatchRequest, out: CompiledRule[][]): void {
  const path = req.path;
  let segs: string[] | null = null;
  const visit = (node: TrieNode, depth: number) => {
    if (node.rules.length) out.push(node.rules);
    if (node.byHeader !== null) {
      for (const [name, values] of node.byHeader) {
        const v = req.headers[name];
        if (v === undefined) continue;
        if (typeof v === 'string') {
          const list = values.get(v);
          if (list !== undefined) out.push(list);
        } else {
          for (const one of v) {
            const list = values.get(one);
            if (list !== undefined && !out.includes(list)) out.push(list);
          }
        }
      }
    }
    if (node.anchored !== null) {
      segs ??= path.split('/'); // segs[0] is '' (before the leading '/'); segs[1..depth] led to this node
      for (let i = depth + 1; i < segs.length; i++) {
        const list = node.anchored.get(segs[i]!);
        if (list !== undefined && !out.includes(list)) out.push(list);
      }
    }
  };
  let node: TrieNode | undefined = root;
  let depth = 0;
  visit(node, depth);
  let start = 1; // skip the leading '/'
  while (node.children !== null) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    node = node.children.get(path.slice(start, end));
    if (!node) return;
    visit(node, ++depth);
    if (end >= path.length) return;
    start = end + 1;
  }
}

export interface RuleSet {
  readonly rules: readonly Rule[];
  readonly compiled: readonly CompiledRule[];
  readonly size: number;
  /** some rule constrains a request header (callers may then fetch the full header set) */
  readonly hasHeaderConstraints: boolean;
  /** some rule may need the request body (mock templates with {{body}}, request replacements) */
  plan(req: MatchRequest): Plan;
  /** every matching rule, highest precedence first (for diagnostics) */
  matchAll(req: MatchRequest): Array<{ rule: Rule; captures: Captures }>;
}

export function compileRuleSet(
  rules: readonly Rule[],
  onInvalid: (rule: Rule, error: unknown) => void = (_rule, error) => {
    throw error;
  },
): RuleSet {
  const compiled: CompiledRule[] = [];
  for (const rule of rules) {
    try {
      compiled.push(compileRule(rule));
    } catch (error) {
      onInvalid(rule, error); // a stored rule that no longer compiles is skipped, not fatal to the others
    }
  }
  compiled.sort(comparePrecedence);
  compiled.forEach((c, i) => (c.rank = i));
  const anyHost = newNode();
  const byHost = new Map<string, TrieNode>();
  const bySuffix = new Map<string, TrieNode>();
  let hasHeaderConstraints = false;
  for (const c of compiled) {
    const p = c.pattern;
    if (p.headers.length) hasHeaderConstraints = true;
    let root = anyHost;
    if (p.host?.kind === 'exact') {
      root = byHost.get(p.host.host) ?? newNode();
      byHost.set(p.host.host, root);
    } else if (p.host?.kind === 'suffix') {
      root = bySuffix.get(p.host.suffix) ?? newNode();
      bySuffix.set(p.host.suffix, root);
    }
    trieInsert(root, c);
  }
  const hasExact = byHost.size > 0;
  const hasSuffix = bySuffix.size > 0;

  const candidates = (req: MatchRequest): CompiledRule[][] => {
    const lists: CompiledRule[][] = [];
    trieCollect(anyHost, req, lists);
    if (hasExact) {
      const t = byHost.get(req.hostname);
      if (t) trieCollect(t, req, lists);
    }
    if (hasSuffix) {
      const h = req.hostname;
      for (let i = h.indexOf('.'); i >= 0; i = h.indexOf('.', i + 1)) {
        const t = bySuffix.get(h.slice(i));
        if (t) trieCollect(t, req, lists);
      }
    }
    return lists;
  };

  const plan = (req: MatchRequest): Plan => {
    const lists = candidates(req);
    if (lists.length === 0) return { action: 'pass', applied: [] };
    let best: CompiledRule | null = null;
    let bestCap: Captures | null = null;
    let rewrite: CompiledRule | null = null;
    let rewriteCap: Captures | null = null;
    let transforms: Array<{ c: CompiledRule; cap: Captures }> | null = null;
    for (const list of lists) {
      for (const c of list) {
        if (c.terminal) {
          if (best !== null && c.rank > best.rank) continue;
        } else if (best !== null) continue; // a terminal rule already answers
        else if (c.rule.type === 'rewrite' && rewrite !== null && c.rank > rewrite.rank) continue;
        const cap = c.pattern.match(req);
        if (cap === null) continue;
        if (c.terminal) {
          best = c;
          bestCap = cap;
        } else if (c.rule.type === 'rewrite') {
          rewrite = c;
          rewriteCap = cap;
        } else (transforms ??= []).push({ c, cap });
      }
    }
    if (best !== null) return terminalPlan(best, req, bestCap!);
    if (rewrite === null && transforms === null) return { action: 'pass', applied: [] };
    const appliedRules: AppliedRule[] = [];
    let url = urlOf(req);
    if (rewrite !== null) {
      url = rewrite.target!.render(req, rewriteCap!);
      appliedRules.push(applied(rewrite));
    }
    const request: BodyEdits = { headerOps: [], replace: [] };
    const response: BodyEdits = { headerOps: [], replace: [] };
    if (transforms !== null) {
      transforms.sort((a, b) => b.c.rank - a.c.rank); // least specific first: the most specific has the last word
      for (const { c, cap } of transforms) {
        const needsCtx = c.request!.set.some((s) => s.value.hasTemplates) || c.response!.set.some((s) => s.value.hasTemplates);
        const ctx = needsCtx ? templateContext(req, cap) : null;
        pushEdits(request, c.request!, ctx);
        pushEdits(response, c.response!, ctx);
        appliedRules.push(applied(c));
      }
    }
    return { action: 'forward', applied: appliedRules, url, rewritten: rewrite !== null, request, response };
  };

  const matchAll = (req: MatchRequest) => {
    const found: Array<{ c: CompiledRule; captures: Captures }> = [];
    for (const list of candidates(req)) {
      for (const c of list) {
        const cap = c.pattern.match(req);
        if (cap) found.push({ c, captures: cap });
      }
    }
    return found.sort((a, b) => a.c.rank - b.c.rank).map((f) => ({ rule: f.c.rule, captures: f.captures }));
  };

  return {
    rules: compiled.map((c) => c.rule),
    compiled,
    size: compiled.length,
    hasHeaderConstraints,
    plan,
    matchAll,
  };
}

/** Something that yields the current rule set (RuleService, or a fixed set). */
export interface RuleSource {
  current(): RuleSet;
}

/** A fixed rule set from specs (ids assigned in order, so later specs count as more recent). */
export function staticRules(specs: readonly (RuleSpec | RuleInput)[]): RuleSource & { set: RuleSet } {
  const rules: Rule[] = specs.map((s, i) => ({ ...normalizeRuleSpec(s), id: i + 1, createdAt: new Date(0).toISOString() }));
  const set = compileRuleSet(rules);
  return { set, current: () => set };
}
