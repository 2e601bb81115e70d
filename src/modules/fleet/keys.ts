// NKey seeds on disk: made once, mode 0600, never sent anywhere (only the public key leaves the machine).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createUser, fromSeed, type KeyPair } from '@nats-io/nkeys';

/** The key pair kept in `file`, made there first if it is missing. */
export function loadOrCreateUserKey(file: string): KeyPair {
  if (existsSync(file)) return fromSeed(new TextEncoder().encode(readFileSync(file, 'utf8').trim()));
  return writeNewUserKey(file);
}

/** A new key pair, written over `file`. */
export function writeNewUserKey(file: string): KeyPair {
  const pair = createUser();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${new TextDecoder().decode(pair.getSeed())}\n`, { mode: 0o600 });
  return pair;
}

