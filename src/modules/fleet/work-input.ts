// A piece of work for the fleet's queue, as POST /api/dashboard/work and the executive's queue_work tool take it: one
// schema for both, built on first use (svc serve loads this module's index at start).
import { z } from 'zod';
import { PROVIDER_IDS } from '../../agent/providers/registry.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const WorkInputSchema = lazySchema(() =>
  z.strictObject({
    prompt: z.string().trim().min(1, 'the prompt is empty').max(100_000),
    provider: z.enum(PROVIDER_IDS).optional().describe("Only a machine where this provider is ready takes it; default: the machine's own."),
    model: z.string().trim().min(1).max(200).optional(),
    machine: z.string().min(1).max(64).optional().describe('A machine id (GET /api/dashboard/machines), or "any" (the default): the first machine that can run it takes it.'),
    workingDir: z.string().min(1).max(4096).regex(/^\//, 'an absolute path').optional().describe('Only a machine where this directory exists takes it; the run works there.'),
  }),
);
export type WorkInput = z.output<typeof WorkInputSchema>;
