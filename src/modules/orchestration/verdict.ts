// Reads a worker's structured verdict from the end of its answer: the last ```json fenced block, or
// else the whole answer, must be one JSON object that the schema accepts. Nothing is read from prose:
// an answer without such an object is a schema error, which fails the gate it was meant for.
import type { z } from 'zod';
import { AuditOutputSchema, VerificationOutputSchema } from '../../protocol/orchestration.ts';

export type VerdictResult<T> = { ok: true; value: T } | { ok: false; error: string };

const FENCE = /```(?:json)?\s*\n([\s\S]*?)\n?```/g;

export function parseVerdict<S extends z.ZodType>(text: string, schema: S): VerdictResult<z.output<S>> {
  const blocks = [...text.matchAll(FENCE)].map((m) => m[1]!);
  const candidate = (blocks.at(-1) ?? text).trim();
  let json: unknown;
  try {
    json = JSON.parse(candidate);
  } catch {
    return { ok: false, error: 'the answer does not end with a JSON verdict object (a ```json block or the whole answer)' };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `the verdict object is invalid at '${issue.path.join('.') || '(root)'}': ${issue.message}` };
  }
  return { ok: true, value: parsed.data };
}

export const parseAudit = (text: string) => parseVerdict(text, AuditOutputSchema);
export const parseVerification = (text: string) => parseVerdict(text, VerificationOutputSchema);
