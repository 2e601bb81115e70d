// Input validation for route handlers: a zod schema in, a typed value or a 400 naming the field out.
import type { z } from 'zod';
import { badRequest } from '../core/errors.ts';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const path = [...issue.path, ...(unknownKey ? [unknownKey] : [])].map(String).join('.');
  const field = path || where;
  const message = unknownKey ? `unknown field '${field}' in ${where}` : `${where} field '${field}': ${issue.message}`;
  throw badRequest('VALIDATION_FAILED', message, { field });
}
