// A machine's membership of a fleet, in its home: `fleet/membership.json` (the hub's URL, this machine's id and
// name) and `fleet/machine.nk` (its NKey seed, mode 0600, never sent anywhere); in a fleet whose NATS an operator
// runs, also `fleet/machine.creds` (the user the operator made for it, mode 0600), which it connects with.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { credsAuthenticator, nkeyAuthenticator, type Authenticator } from '@nats-io/transport-node';
import { z } from 'zod';
import { homePaths } from '../../core/home.ts';
import { readSeed, writeSeed } from './keys.ts';

const MembershipSchema = z.object({
  url: z.string(),
  machineId: z.string(),
  name: z.string(),
  joinedAt: z.number(),
  /** The hub's certificate (PEM) and its SHA-256, pinned at join time, when the hub serves TLS. */
  hubCertificate: z.object({ pem: z.string(), fingerprint: z.string() }).optional(),
});
export type Membership = z.infer<typeof MembershipSchema>;

const membershipFile = (home: string) => homePaths(home).fleetMembership;
const machineKeyFile = (home: string) => homePaths(home).fleetKey;

/** The membership kept in `home`, or undefined when this machine has not joined (or the file is damaged). */
export function readMembership(home: string): Membership | undefined {
  const file = membershipFile(home);
  if (!existsSync(file) || !existsSync(machineKeyFile(home))) return undefined;
  const parsed = MembershipSchema.safeParse((() => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  })());
  return parsed.success ? parsed.data : undefined;
}

export function writeMembership(home: string, membership: Membership, seed: Uint8Array, creds?: string): void {
  writeSeed(machineKeyFile(home), seed);
  if (creds !== undefined) writeFileSync(homePaths(home).fleetCreds, creds, { mode: 0o600 });
  writeFileSync(membershipFile(home), `${JSON.stringify(membership, null, 2)}\n`, { mode: 0o600 });
}

export const readMachineSeed = (home: string): Uint8Array => readSeed(machineKeyFile(home));

/** How this machine proves itself to the hub's NATS: the operator's credentials when it has them, else its NKey. */
export function machineAuthenticator(home: string): Authenticator {
  const creds = homePaths(home).fleetCreds;
  return existsSync(creds) ? credsAuthenticator(new Uint8Array(readFileSync(creds))) : nkeyAuthenticator(readMachineSeed(home));
}
