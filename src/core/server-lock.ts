// One core server per data directory: two servers on one home would be two writers of one
// database and one media folder. The lock file (<home>/server.lock) holds the running server's pid
// and, once it listens, its address, which is also how client commands given `--home` find it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isPidAlive } from './pid.ts';

export interface ServerLockInfo {
  pid: number;
  /** Set once the server listens: `http://…` or `https://…`. */
  url?: string;
  /** SHA-256 of the certificate an https server serves. */
  certFingerprint?: string;
  startedAt: number;
}

/** The server running on this home, if any (a lock left by a process that is gone does not count). */
export function readServerLock(path: string): ServerLockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as ServerLockInfo;
    return Number.isInteger(info.pid) && isPidAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export class HomeInUseError extends Error {
  constructor(readonly holder: ServerLockInfo) {
    super(`another svc server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}) is already using this data directory; stop it first, or give this one its own --home`);
  }
}

export interface ServerLock {
  /** Records where the server listens (and, over HTTPS, its certificate's fingerprint). */
  listening(url: string, certFingerprint?: string): void;
  release(): void;
}

/** Takes the home's lock, or throws HomeInUseError naming the server that holds it. */
export function acquireServerLock(path: string): ServerLock {
  const info: ServerLockInfo = { pid: process.pid, startedAt: Date.now() };
  const write = (flag: 'wx' | 'w') => writeFileSync(path, `${JSON.stringify(info)}\n`, { flag, mode: 0o600 });
  try {
    write('wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = readServerLock(path);
    if (holder) throw new HomeInUseError(holder);
    // left behind by a server that crashed
    write('w');
  }
  let held = true;
  return {
    listening(url, certFingerprint) {
      info.url = url;
      if (certFingerprint) info.certFingerprint = certFingerprint;
      if (held) write('w');
    },
    release() {
      if (!held) return;
      held = false;
      if (readServerLock(path)?.pid === process.pid) rmSync(path, { force: true });
    },
  };
}
