// NKey seeds on disk: mode 0600, never sent anywhere (only the public key leaves the machine). The hub's key and
// a joined machine's key are both kept this way.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createUser, fromSeed, type KeyPair } from '@nats-io/nkeys';

export function readSeed(file: string): Uint8Array {
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

export function writeSeed(file: string, seed: Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${new TextDecoder().decode(seed)}\n`, { mode: 0o600 });
}

/** The key pair kept in `file`, made there first if it is missing. */
export function loadOrCreateUserKey(file: string): KeyPair {
  if (existsSync(file)) return fromSeed(readSeed(file));
  const pair = createUser();
  writeSeed(file, pair.getSeed());
  return pair;
}
