// A NATS credentials file (`.creds`, as `nsc` writes it): a user's JWT, signed by its account, and the user's
// NKey seed. The fleet uses one when the hub connects to a NATS its operator runs (`--nats-url … --nats-creds`),
// and a machine joins such a fleet with the one its operator made for it. Pure: parsing, and the machine id a
// user's public key gives (the operator writes the machine's subjects into that user's permissions before it
// joins, so the id must be known from the key alone).
import { fromSeed } from '@nats-io/nkeys';

export interface Creds {
  /** The user's JWT. */
  jwt: string;
  /** The user's NKey seed (`SU…`): it signs the server's nonce, and a machine's join. */
  seed: string;
  /** The user's public key (`U…`), from the seed. */
  publicKey: string;
}

export class CredsError extends Error {}

const block = (text: string, label: string): string | undefined => {
  const match = new RegExp(`-{3,}BEGIN ${label}-{3,}\\s*\\n\\s*(\\S+)\\s*\\n\\s*-{3,}END ${label}-{3,}`).exec(text);
  return match?.[1];
};

/** The JWT and seed of a credentials file's text; a CredsError says what is missing. */
export function parseCreds(text: string): Creds {
  const jwt = block(text, 'NATS USER JWT');
  const seed = block(text, 'USER NKEY SEED');
  if (!jwt || jwt.split('.').length !== 3) throw new CredsError('it has no user JWT (a "-----BEGIN NATS USER JWT-----" block)');
  if (!seed) throw new CredsError('it has no user seed (a "-----BEGIN USER NKEY SEED-----" block)');
  let publicKey: string;
  try {
    publicKey = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  } catch {
    throw new CredsError('its seed is not an NKey seed');
  }
  if (!publicKey.startsWith('U')) throw new CredsError('its seed is not a user\'s (it starts SU)');
  return { jwt, seed, publicKey };
}

/**
 * A machine's id from its user's public key: `m_` and 20 characters of the key (100 bits), lower-cased. The
 * same key always gives the same id, so `svc fleet permissions <key>` can print a machine's subjects before it
 * joins, and a machine's subjects never depend on what the hub chose.
 */
export const machineIdOf = (publicKey: string): string => `m_${publicKey.slice(1, 21).toLowerCase()}`;

/** What a machine signs to show the hub it holds the key it presents: the invite code, for this purpose only. */
export const joinProof = (code: string): Uint8Array => new TextEncoder().encode(`svc-fleet-join\n${code}`);
