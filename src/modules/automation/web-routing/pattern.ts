// web-routing patterns: parse, compile, match. Pure (no I/O).
//
// SYNTAX   [METHOD ] <where> [ [Header-Name: value] ... ]
//
//   METHOD     GET HEAD POST PUT PATCH DELETE OPTIONS TRACE CONNECT (any case), or ANY / * for no constraint.
//   <where>    one of
//                /path                          path only: any scheme, host and port
//                host[:port][/path]             e.g. api.example.com/v1/*, *.example.com, localhost:5173/api/*
//                scheme://host[:port][/path]    scheme http, https or *; e.g. https://*.example.com/api/*
//              A host or URL without a path matches every path on that host.
//              Host: a literal name (case-insensitive), an IPv6 address in brackets (`[::1]`), `*` (any), or
//              `*.<domain>` = one or more labels in front of <domain> (`*.example.com` matches a.example.com and
//              a.b.example.com, NOT example.com itself).
//              Port: omitted or `:*` = any port.
//   path       matched against the whole URL path (anchored), case-sensitively, as the client sent it
//              (percent-encoded); the query string is never part of the match and a `?` in a pattern is an error.
//                *        any run of characters, `/` included, possibly empty (`/api/*` matches /api/ and /api/a/b;
//                         `**` is the same as `*`)
//                :name    one non-empty path segment (no `/`), captured as params.name (decoded);
//                         may share a segment with literals: `/files/:name.json`
//                \* \:    a literal `*` or `:`
//              A path that does not end in `/` or `*` also matches the same path with one trailing `/`.
//   [Name: value]  the request must carry header Name (case-insensitive) whose value equals `value`
//              (case-sensitive, `*` is a glob: `[Accept: *json*]`); `[Name]` only requires the header.
//              Several may be given; all must hold. A repeated header matches if any of its values does.
//
// SPECIFICITY (used by rules.ts to order overlapping rules; larger wins, compared in this order):
//   1. constraints: +1 for a method, +1 per header constraint, +1 for a host other than `*`
//   2. fewer `*` wildcards (path `*` plus host `*.`)
//   3. fewer `:name` captures
//   4. more literal characters (host + path)
//   5. (rules.ts) the more recently added rule (higher id)
import { badRequest } from '../../../core/errors.ts';
import { ownValue } from '../../../core/own.ts';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'] as const;
const METHOD_SET: ReadonlySet<string> = new Set(HTTP_METHODS);
const ANY_METHOD = new Set(['ANY', '*']);

export type HostPattern = { kind: 'exact'; host: string } | { kind: 'suffix'; suffix: string };

export interface HeaderConstraint {
  /** lower-case header name */
  name: string;
  /** as written, for display */
  displayName: string;
  /** undefined: presence only */
  value?: string;
}

export interface ParsedPattern {
  /** canonical text; two patterns with the same canonical text are the same pattern */
  source: string;
  method?: string;
  scheme?: 'http' | 'https';
  host?: HostPattern;
  port?: number;
  /** path part, always starting with `/` */
  path: string;
  headers: HeaderConstraint[];
  /** `:name` captures in order */
  params: string[];
  /** number of `*` in the path */
  wildcards: number;
}

export interface Specificity {
  constraints: number;
  wildcards: number;
  params: number;
  literal: number;
}

/** What a pattern is matched against. Build it with `toMatchRequest`. */
export interface MatchRequest {
  /** upper case */
  method: string;
  /** 'http' | 'https' (no colon) */
  scheme: string;
  /** lower-case host name, IPv6 in brackets, no port */
  hostname: string;
  /** effective port (80/443 when the URL has none) */
  port: number;
  /** host[:port] as in the URL */
  authority: string;
  /** URL path, percent-encoded as sent, no query */
  path: string;
  /** '' or '?…' */
  search: string;
  /** lower-case names */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

export interface Captures {
  /** `:name` values, percent-decoded */
  params: Record<string, string>;
  /** `:name` values as they appear in the URL (for substitution into targets) */
  rawParams: Record<string, string>;
  /** what each path `*` matched, in order, as it appears in the URL */
  wildcards: string[];
}

export interface CompiledPattern extends ParsedPattern {
  specificity: Specificity;
  /** leading path segments that are pure literals (used to index rules in a segment trie) */
  literalSegments: string[];
  /** a later literal segment that every matching path contains as a whole segment (second index key) */
  anchorSegment?: string;
  /** true if some check beyond the path regex is needed */
  match(req: MatchRequest): Captures | null;
  /** path check only (cheap pre-filter is done by the caller) */
  matchPath(path: string): Captures | null;
  matchHost(hostname: string, port: number, scheme: string): boolean;
  matchHeaders(headers: MatchRequest['headers']): boolean;
}

const invalid = (pattern: string, why: string) =>
  badRequest('INVALID_PATTERN', `Invalid pattern '${pattern}': ${why}`, { pattern });

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;
const HOST_LABELS = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/;
/** an IPv6 host literal: hex digits, dots and at least one colon, in brackets */
const IPV6 = /^\[[0-9a-f.]*:[0-9a-f:.]*\]$/i;
const MAX_PATTERN_LENGTH = 2048;

/** True where a host goes: at the start, after `scheme://`, or after the method alone. */
function isHostPosition(before: string): boolean {
  const lead = before.trimEnd();
  return lead === '' || lead.endsWith('://') || METHOD_SET.has(lead.toUpperCase()) || ANY_METHOD.has(lead.toUpperCase());
}

/** Splits the trailing `[Header: value]` groups off a (trimmed) pattern. */
function splitHeaders(original: string): { rest: string; headers: HeaderConstraint[] } {
  const headers: HeaderConstraint[] = [];
  let rest = original;
  while (rest.endsWith(']')) {
    const open = rest.lastIndexOf('[');
    if (open < 0) throw invalid(original, "a ']' without its '['");
    // `http://[::1]` and `GET [::1]` end in the host, not in a header constraint.
    if (isHostPosition(rest.slice(0, open)) && IPV6.test(rest.slice(open))) break;
    const inner = rest.slice(open + 1, -1).trim();
    // `[` must start a new token: `/a[b]` is not a header constraint.
    if (open > 0 && !/\s/.test(rest[open - 1]!)) {
      throw invalid(original, `a header constraint must be separated by a space: '${rest.slice(open)}'`);
    }
    rest = rest.slice(0, open).trimEnd();
    const colon = inner.indexOf(':');
    const name = (colon < 0 ? inner : inner.slice(0, colon)).trim();
    if (!name || !HEADER_NAME.test(name)) {
      throw invalid(original, `'[${inner}]' is not a header constraint; write [Header-Name: value] or [Header-Name]`);
    }
    const value = colon < 0 ? undefined : inner.slice(colon + 1).trim();
    if (value === '') {
      throw invalid(original, `header constraint '[${inner}]' has an empty value; write [${name}] to require only presence`);
    }
    headers.unshift({ name: name.toLowerCase(), displayName: name, value });
  }
  const withoutIpv6 = rest.replace(/(^|\s|:\/\/)\[[0-9A-Fa-f:.]+\]/, '$1');
  if (withoutIpv6.includes('[') || withoutIpv6.includes(']')) {
    throw invalid(original, "unbalanced '[' or ']'; header constraints go at the end: /path [Header: value]");
  }
  return { rest, headers };
}

function parseHost(raw: string, original: string): { host?: HostPattern; port?: number } {
  let hostText = raw;
  let port: number | undefined;
  const portMatch = /^(.*?):([^:\]]*)$/.exec(raw);
  // (a bracketed IPv6 host without a port never matches: its last ':' is followed by ']')
  if (portMatch) {
    hostText = portMatch[1]!;
    const p = portMatch[2]!;
    if (p !== '*') {
      if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) {
        throw invalid(original, `'${p}' is not a port (1-65535 or *)`);
      }
      port = Number(p);
    }
  }
  const lower = hostText.toLowerCase();
  if (lower === '' ) throw invalid(original, 'the host is empty');
  if (lower === '*') return { port };
  if (lower.startsWith('*.')) {
    const domain = lower.slice(2);
    if (domain.includes('*') || !HOST_LABELS.test(domain)) {
      throw invalid(original, `'${hostText}': only a leading '*.' wildcard is allowed in a host, followed by a domain`);
    }
    return { host: { kind: 'suffix', suffix: '.' + domain.replace(/\.$/, '') }, port };
  }
  if (lower.includes('*')) {
    throw invalid(original, `'${hostText}': only a leading '*.' wildcard is allowed in a host (e.g. *.example.com)`);
  }
  if (!HOST_LABELS.test(lower) && !IPV6.test(lower)) {
    throw invalid(original, `'${hostText}' is not a host name`);
  }
  return { host: { kind: 'exact', host: lower.replace(/\.$/, '') }, port };
}

interface PathCompile {
  regexSource: string;
  params: string[];
  wildcards: number;
  literal: number;
  literalSegments: string[];
  anchorSegment?: string;
  /** group index → capture */
  groups: Array<{ kind: 'param'; name: string } | { kind: 'wild' }>;
}

/** Compiles a path (the callers hand it over starting with '/'). */
function compilePath(path: string, original: string): PathCompile {
  if (path.includes('?')) {
    throw invalid(original, "query strings are not matched; remove the '?…' part (the path match ignores the query)");
  }
  if (path.includes('#')) throw invalid(original, "a '#fragment' is never sent to a server; remove it");
  let re = '^';
  const params: string[] = [];
  const groups: PathCompile['groups'] = [];
  let wildcards = 0;
  let literal = 0;
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '\\') {
      const next = path[i + 1];
      if (next !== '*' && next !== ':' && next !== '\\') {
        throw invalid(original, "'\\' escapes only '*', ':' or '\\' in a path");
      }
      re += escapeRegex(next);
      literal++;
      i += 2;
    } else if (c === '*') {
      while (path[i] === '*') i++;
      re += '(.*)';
      groups.push({ kind: 'wild' });
      wildcards++;
    } else if (c === ':' && IDENT_START.test(path[i + 1] ?? '')) {
      let j = i + 1;
      while (j < path.length && IDENT_CHAR.test(path[j]!)) j++;
      const name = path.slice(i + 1, j);
      if (params.includes(name)) throw invalid(original, `the capture ':${name}' appears twice`);
      params.push(name);
      groups.push({ kind: 'param', name });
      re += '([^/]+?)';
      i = j;
    } else if (c === ':') {
      throw invalid(original, "':' in a path starts a capture (':name'); write '\\:' for a literal colon");
    } else {
      re += escapeRegex(c);
      literal++;
      i++;
    }
  }
  // One optional trailing '/' (a trailing '*' takes it anyway, being greedy).
  if (!path.endsWith('/')) re += '/?';
  re += '$';

  // Leading segments that contain no wildcard, capture or escape: the trie key.
  const literalSegments: string[] = [];
  const segs = path.slice(1).split('/');
  for (let s = 0; s < segs.length; s++) {
    const seg = segs[s]!;
    if (seg.includes('*') || seg.includes(':') || seg.includes('\\')) break;
    // The last segment is only a trie key if the pattern fully ends there (it may also match with a '/').
    literalSegments.push(seg);
  }
  // A trailing empty segment ('/api/') is not a key the request path must contain as a segment boundary
  // reliably, so drop empties at the end.
  while (literalSegments.length && literalSegments[literalSegments.length - 1] === '') literalSegments.pop();
  // The longest fully literal segment after that prefix: it is bounded by literal '/' on both sides in the pattern,
  // so a matching request path must contain it as a whole segment (a second index key).
  let anchorSegment: string | undefined;
  for (const seg of segs.slice(literalSegments.length + 1)) {
    if (!seg || seg.includes('*') || seg.includes(':') || seg.includes('\\')) continue;
    if (anchorSegment === undefined || seg.length > anchorSegment.length) anchorSegment = seg;
  }
  return { regexSource: re, params, wildcards, literal, literalSegments, anchorSegment, groups };
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}

function globToRegex(glob: string): RegExp {
  let re = '^';
  for (const c of glob) re += c === '*' ? '.*' : escapeRegex(c);
  return new RegExp(re + '$', 's');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Parses, validates and compiles a pattern. Throws AppError 400 INVALID_PATTERN naming the problem. */
export function compilePattern(text: string): CompiledPattern {
  const original = text.trim();
  if (!original) throw invalid(text, 'the pattern is empty');
  if (original.length > MAX_PATTERN_LENGTH) throw invalid(original.slice(0, 40) + '…', `longer than ${MAX_PATTERN_LENGTH} characters`);
  const { rest, headers } = splitHeaders(original);

  let method: string | undefined;
  let where = rest;
  const sp = /^(\S+)\s+(\S.*)$/.exec(rest);
  if (sp) {
    const word = sp[1]!.toUpperCase();
    if (METHOD_SET.has(word)) method = word;
    else if (!ANY_METHOD.has(word)) {
      throw invalid(
        original,
        /^[A-Za-z]+$/.test(sp[1]!)
          ? `unknown method '${sp[1]}' (use ${HTTP_METHODS.join(', ')} or ANY)`
          : `unexpected text '${sp[2]}' after '${sp[1]}' (a pattern is [METHOD] <path-or-url> [Header: value]...)`,
      );
    }
    where = sp[2]!;
  }
  if (/\s/.test(where)) throw invalid(original, `unexpected space in '${where}'`);
  if (!where) throw invalid(original, 'no path or URL');

  let scheme: 'http' | 'https' | undefined;
  let hostPart: string | undefined;
  let path: string;
  const urlMatch = /^([A-Za-z*][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(where);
  if (urlMatch) {
    const s = urlMatch[1]!.toLowerCase();
    if (s === 'http' || s === 'https') scheme = s;
    else if (s !== '*') throw invalid(original, `unsupported scheme '${urlMatch[1]}' (http, https or *)`);
    ({ hostPart, path } = splitHostAndPath(urlMatch[2]!));
    if (hostPart.includes('@')) throw invalid(original, 'credentials (user@host) are not allowed in a pattern');
  } else if (where.startsWith('/')) {
    path = where;
  } else {
    ({ hostPart, path } = splitHostAndPath(where));
    if (hostPart.includes('?')) throw invalid(original, "query strings are not matched; remove the '?…' part");
    if (!/^[A-Za-z0-9*[]/.test(hostPart) || (!hostPart.includes('.') && !/^localhost(:|$)/i.test(hostPart) && hostPart !== '*' && !hostPart.startsWith('['))) {
      throw invalid(original, "a pattern is a path ('/api/*'), a host ('*.example.com/api/*') or a URL ('https://example.com/*')");
    }
  }
  const { host, port } = hostPart === undefined ? {} : parseHost(hostPart, original);
  const compiled = compilePath(path, original);

  const whereCanonical =
    hostPart === undefined ? path : `${urlMatch ? `${scheme ?? '*'}://` : ''}${hostCanonical(host, port)}${path}`;
  const source = [
    method ?? '',
    whereCanonical,
    ...headers.map((h) => (h.value === undefined ? `[${h.displayName}]` : `[${h.displayName}: ${h.value}]`)),
  ]
    .filter(Boolean)
    .join(' ');

  const specificity: Specificity = {
    constraints: (method ? 1 : 0) + headers.length + (host ? 1 : 0),
    wildcards: compiled.wildcards + (host?.kind === 'suffix' ? 1 : 0),
    params: compiled.params.length,
    literal: compiled.literal + (host ? (host.kind === 'exact' ? host.host.length : host.suffix.length) : 0),
  };

  const regex = new RegExp(compiled.regexSource);
  const groups = compiled.groups;
  const headerChecks = headers.map((h) => ({
    name: h.name,
    test: h.value === undefined ? null : h.value.includes('*') ? globToRegex(h.value) : h.value,
  }));

  const matchPath = (p: string): Captures | null => {
    const m = regex.exec(p);
    if (!m) return null;
    const params: Record<string, string> = {};
    const rawParams: Record<string, string> = {};
    const wildcards: string[] = [];
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      const v = m[g + 1]!; // every group takes part in a match (no alternation, no optional group)
      if (group.kind === 'wild') wildcards.push(v);
      else {
        rawParams[group.name] = v;
        params[group.name] = safeDecode(v);
      }
    }
    return { params, rawParams, wildcards };
  };
  const matchHost = (hostname: string, p: number, s: string): boolean => {
    if (scheme !== undefined && s !== scheme) return false;
    if (port !== undefined && p !== port) return false;
    if (host === undefined) return true;
    if (host.kind === 'exact') return hostname === host.host;
    return hostname.length > host.suffix.length && hostname.endsWith(host.suffix);
  };
  const matchHeaders = (h: MatchRequest['headers']): boolean => {
    for (let i = 0; i < headerChecks.length; i++) {
      const check = headerChecks[i]!;
      const v = h[check.name];
      if (v === undefined) return false;
      const test = check.test;
      if (test === null) continue;
      if (typeof v === 'string') {
        if (typeof test === 'string' ? v !== test : !test.test(v)) return false;
        continue;
      }
      let ok = false;
      for (let j = 0; j < v.length && !ok; j++) ok = typeof test === 'string' ? v[j] === test : test.test(v[j]!);
      if (!ok) return false;
    }
    return true;
  };

  return {
    source,
    method,
    scheme,
    host,
    port,
    path,
    headers,
    params: compiled.params,
    wildcards: compiled.wildcards,
    specificity,
    literalSegments: compiled.literalSegments,
    anchorSegment: compiled.anchorSegment,
    matchPath,
    matchHost,
    matchHeaders,
    match(req) {
      if (method !== undefined && req.method !== method) return null;
      if (!matchHost(req.hostname, req.port, req.scheme)) return null;
      if (!matchHeaders(req.headers)) return null;
      return matchPath(req.path);
    },
  };
}

/** `host/path` → the host and the path; no path means every path. */
function splitHostAndPath(text: string): { hostPart: string; path: string } {
  const slash = text.indexOf('/');
  return slash < 0 ? { hostPart: text, path: '/*' } : { hostPart: text.slice(0, slash), path: text.slice(slash) };
}

function hostCanonical(host: HostPattern | undefined, port: number | undefined): string {
  const h = host === undefined ? '*' : host.kind === 'exact' ? host.host : '*' + host.suffix;
  return port === undefined ? h : `${h}:${port}`;
}

/** Canonical text of a pattern (throws INVALID_PATTERN). */
export function canonicalPattern(text: string): string {
  return compilePattern(text).source;
}

/** Compares specificity: > 0 if a is more specific than b. */
export function compareSpecificity(a: Specificity, b: Specificity): number {
  return (
    a.constraints - b.constraints ||
    b.wildcards - a.wildcards ||
    b.params - a.params ||
    a.literal - b.literal
  );
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443 };

/** Builds a MatchRequest from a method, an absolute URL and headers (names any case). */
export function toMatchRequest(
  method: string,
  url: string | URL,
  headers: Record<string, string | readonly string[] | undefined> = {},
): MatchRequest {
  const u = typeof url === 'string' ? new URL(url) : url;
  const scheme = u.protocol.slice(0, -1);
  let lower = headers;
  for (const k in headers) {
    if (k !== k.toLowerCase()) {
      lower = {};
      for (const [name, v] of Object.entries(headers)) (lower as Record<string, unknown>)[name.toLowerCase()] = v;
      break;
    }
  }
  return {
    method: method.toUpperCase(),
    scheme,
    hostname: u.hostname.toLowerCase(),
    port: u.port ? Number(u.port) : (ownValue(DEFAULT_PORTS, scheme) ?? 0),
    authority: u.host,
    path: u.pathname || '/',
    search: u.search,
    headers: lower,
  };
}
