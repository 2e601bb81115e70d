// "Is this the agent of run X, or a human?" for routes that must refuse the agent something (an
// approval) or need its run (a dispatch names the session it reports to).
import type { FastifyRequest } from 'fastify';
import { RUN_TOKEN_HEADER, type Caller, type RunIdentity } from '../protocol/caller.ts';

export function callerOf(request: Pick<FastifyRequest, 'headers'>, resolve: (token: string) => RunIdentity | undefined): Caller {
  const raw = request.headers[RUN_TOKEN_HEADER];
  const token = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!token) return { kind: 'human' };
  const run = resolve(token);
  return run ? { kind: 'agent', run } : { kind: 'agent' };
}
