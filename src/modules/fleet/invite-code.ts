// Invite codes: 10 characters of Crockford's base32 (50 bits), shown as two groups of five. Pure.
import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 10;
/** 5 bits a character: the issue asks for at least 40. */
export const CODE_BITS = CODE_LENGTH * 5;

export function newInviteCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * A code as typed, read the forgiving way (lower case, spaces and dashes, O for 0, I and L for 1), or undefined
 * when it cannot be one.
 */
export function normalizeInviteCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (code.length !== CODE_LENGTH || [...code].some((c) => !ALPHABET.includes(c))) return undefined;
  return code;
}

/** What the hub keeps of a code: never the code itself. */
export const inviteCodeHash = (normalized: string) => createHash('sha256').update(`svc-fleet-invite:${normalized}`).digest('hex');
