// The argument hash a confirmation is bound to: computed by the server from the action and its
// arguments, so a confirmation for "stop A" can never authorize "stop B" or "restart A".
import { createHash } from 'node:crypto';

export const DEFAULT_CONFIRMATION_TTL_MS = 120_000;
export const MAX_CONFIRMATION_TTL_MS = 600_000;

export function argsHash(action: string, args: Record<string, string>): string {
  const canonical = JSON.stringify([action, Object.keys(args).sort().map((k) => [k, args[k]])]);
  return createHash('sha256').update(canonical).digest('hex');
}
