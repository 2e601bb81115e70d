// The access token: random per install, stored with mode 0600, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

/** Reads the install's token, creating it on first use. Tightens the file mode if it drifted. */
export function loadOrCreateToken(path: string): string {
  try {
    const token = readFileSync(path, 'utf8').trim();
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    if (token.length >= 32) return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/** The install's token when it has one, never creating it: what a client may read (`svc token`). */
export function readToken(path: string): string | undefined {
  try {
    const token = readFileSync(path, 'utf8').trim();
    // a shorter one is not a token: the server replaces it when it starts
    return token.length >= 32 ? token : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison; hashing first makes the lengths equal, so length is not leaked either. */
export function tokensEqual(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}
