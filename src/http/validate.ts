// Input validation for route handlers: a zod schema in, a typed value or a 400 naming the field out;
// and the kit's rule that no input string carries a control character (applied by defineRoutes to
// every route's params, query and JSON body, declared or not).
import type { z } from 'zod';
import { badRequest } from '../core/errors.ts';

export type InputPart = 'body' | 'query' | 'params';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: InputPart): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const path = [...issue.path, ...(unknownKey ? [unknownKey] : [])].map(String).join('.');
  const field = path || where;
  const message = unknownKey ? `unknown field '${field}' in ${where}` : `${where} field '${field}': ${issue.message}`;
  throw badRequest('VALIDATION_FAILED', message, { field });
}

/** Path and query values: no control character at all. */
const CONTROL = /[\u0000-\u001F\u007F]/;
/** Body text (prompts, Markdown, code) keeps its tabs and line breaks; NUL, escapes and the rest are refused. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * Refuses (400 VALIDATION_FAILED, naming the field) any string, or object key, in the input that
 * holds a control character: NUL reaches SQLite, file paths and child processes as a truncation
 * or an error, and no field of any route needs one. Walks the value without recursion, so a deeply
 * nested body cannot exhaust the stack. Pure.
 */
export function refuseControlCharacters(value: unknown, where: InputPart): void {
  const forbidden = where === 'body' ? CONTROL_IN_TEXT : CONTROL;
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      if (forbidden.test(item)) {
        const field = path || where;
        throw badRequest('VALIDATION_FAILED', `${where} field '${field}': control characters (NUL, escape, …) are not accepted`, { field });
      }
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => pending.push([element, path ? `${path}.${index}` : String(index)]));
    } else if (item !== null && typeof item === 'object' && !Buffer.isBuffer(item)) {
      for (const [key, element] of Object.entries(item)) {
        const keyPath = path ? `${path}.${key}` : key;
        if (forbidden.test(key)) pending.push([key, keyPath]);
        pending.push([element, keyPath]);
      }
    }
  }
}
