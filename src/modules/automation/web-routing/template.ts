// Templates for mock bodies and header values. Pure.
//
//   {{method}} {{path}} {{url}} {{host}}     the request's method, path (no query), full URL, host[:port]
//   {{params.NAME}}                          a `:NAME` capture of the rule's pattern (percent-decoded)
//   {{query.NAME}}                           a query-string parameter (first value)
//   {{headers.NAME}}                         a request header (name case-insensitive)
//   {{body}} {{body.a.b.0}}                  the request body parsed as JSON (or its text if it is not JSON),
//                                            and a path into it (mock bodies only)
//   {{… | number}}                           converts the value to a number (null if it is not one)
//
// In a JSON mock body, a string that is exactly one template ("{{body.user}}", "{{params.id|number}}") is
// replaced by the value itself, keeping its JSON type; templates inside a longer string are interpolated as text.
// A missing value is null when it is the whole string and '' when interpolated. Unknown variables and captures
// that the pattern does not define are rejected when the rule is added.
import { badRequest, type ErrorCode } from '../../../core/errors.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface TemplateContext {
  method: string;
  path: string;
  url: string;
  host: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** parsed JSON body, or raw text, or undefined when there is no body */
  body?: unknown;
}

type Getter = (ctx: TemplateContext) => unknown;

interface Expr {
  get: Getter;
  number: boolean;
  usesBody: boolean;
}

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

export interface TemplateOptions {
  /** captures the pattern defines */
  params: readonly string[];
  allowBody: boolean;
  /** error code for problems (INVALID_MOCK_BODY, INVALID_HEADER, …) */
  code: ErrorCode;
}

function compileExpr(text: string, opts: TemplateOptions): Expr {
  const [exprText, ...filters] = text.split('|').map((s) => s.trim());
  let number = false;
  for (const f of filters) {
    if (f === 'number') number = true;
    else throw badRequest(opts.code, `Unknown template filter '${f}' in '{{${text}}}' (only '| number').`);
  }
  const expr = exprText ?? '';
  const [root, ...rest] = expr.split('.');
  const key = rest.join('.');
  const bad = (why: string) => badRequest(opts.code, `Template '{{${text}}}': ${why}`);
  switch (root) {
    case 'method':
    case 'path':
    case 'url':
    case 'host':
      if (rest.length) throw bad(`'${root}' has no fields`);
      return { get: (c) => c[root], number, usesBody: false };
    case 'params':
      if (!key) throw bad('name the capture, e.g. {{params.id}}');
      if (!opts.params.includes(key)) {
        throw bad(
          opts.params.length
            ? `the pattern has no ':${key}' capture (it has ${opts.params.map((p) => ':' + p).join(', ')})`
            : `the pattern has no ':${key}' capture (it has none)`,
        );
      }
      return { get: (c) => c.params[key], number, usesBody: false };
    case 'query':
      if (!key) throw bad('name the parameter, e.g. {{query.page}}');
      return { get: (c) => c.query.get(key) ?? undefined, number, usesBody: false };
    case 'headers': {
      if (!key) throw bad('name the header, e.g. {{headers.x-user}}');
      const name = key.toLowerCase();
      return {
        get: (c) => {
          const v = c.headers[name];
          return typeof v === 'string' ? v : v?.[0];
        },
        number,
        usesBody: false,
      };
    }
    case 'body': {
      if (!opts.allowBody) throw bad('the request body is available only in mock bodies');
      const steps = rest;
      return {
        get: (c) => {
          let v: unknown = c.body;
          for (const s of steps) {
            if (v === null || typeof v !== 'object') return undefined;
            v = (v as Record<string, unknown>)[s];
          }
          return v;
        },
        number,
        usesBody: true,
      };
    }
    default:
      throw bad(`unknown variable '${root}' (use method, path, url, host, params.*, query.*, headers.*, body.*)`);
  }
}

function finish(v: unknown, number: boolean): unknown {
  if (!number) return v;
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export interface CompiledString {
  hasTemplates: boolean;
  usesBody: boolean;
  render(ctx: TemplateContext): string;
}

/** A string with `{{…}}` interpolations (header values, whole non-JSON bodies). */
export function compileStringTemplate(text: string, opts: TemplateOptions): CompiledString {
  const parts: Array<string | Expr> = [];
  let last = 0;
  let usesBody = false;
  for (const m of text.matchAll(TEMPLATE)) {
    if (m.index! > last) parts.push(text.slice(last, m.index));
    const e = compileExpr(m[1]!, opts);
    usesBody ||= e.usesBody;
    parts.push(e);
    last = m.index! + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  if (!parts.some((p) => typeof p !== 'string')) {
    return { hasTemplates: false, usesBody: false, render: () => text };
  }
  return {
    hasTemplates: true,
    usesBody,
    render: (ctx) => parts.map((p) => (typeof p === 'string' ? p : asText(finish(p.get(ctx), p.number)))).join(''),
  };
}

export interface CompiledJson {
  hasTemplates: boolean;
  usesBody: boolean;
  /** the JSON text to send */
  render(ctx: TemplateContext): string;
}

/** A JSON value whose strings may hold templates. */
export function compileJsonTemplate(value: JsonValue, opts: TemplateOptions): CompiledJson {
  let usesBody = false;
  let hasTemplates = false;
  const build = (v: JsonValue): ((ctx: TemplateContext) => unknown) => {
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v);
      if (whole) {
        const e = compileExpr(whole[1]!, opts);
        usesBody ||= e.usesBody;
        hasTemplates = true;
        return (ctx) => {
          const r = finish(e.get(ctx), e.number);
          return r === undefined ? null : r;
        };
      }
      const s = compileStringTemplate(v, opts);
      if (!s.hasTemplates) return () => v;
      usesBody ||= s.usesBody;
      hasTemplates = true;
      return s.render;
    }
    if (Array.isArray(v)) {
      const items = v.map(build);
      return (ctx) => items.map((f) => f(ctx));
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).map(([k, x]) => [k, build(x)] as const);
      return (ctx) => {
        const o: Record<string, unknown> = {};
        for (const [k, f] of entries) o[k] = f(ctx);
        return o;
      };
    }
    return () => v;
  };
  const fn = build(value);
  const fixed = JSON.stringify(value);
  return {
    hasTemplates,
    usesBody,
    render: hasTemplates ? (ctx) => JSON.stringify(fn(ctx)) : () => fixed,
  };
}

/** Parses a request body for `{{body…}}`: JSON if it parses, else the text; undefined if empty. */
export function parseRequestBody(text: string | undefined | null): unknown {
  if (text === undefined || text === null || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
