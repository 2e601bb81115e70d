import { randomBytes } from 'node:crypto';

/** Short random ids with a readable prefix, e.g. `ses_3kF9aQ2mX0bR`. */
export function newId(prefix: string, bytes = 9): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
