// `svc fleet join <url> --code <code>`: this machine's new NKey, its public key presented with the invite's code
// (signed with the key) as the hub's public join user (which may do nothing else), and, once the hub has said yes,
// a first connection with the key to prove the membership works before it is kept. In a fleet whose NATS an
// operator runs (`--creds <file>`), the key is the one of the user the operator made for this machine, and the
// machine joins, and then connects, with those credentials.
import { connect, credsAuthenticator, nkeyAuthenticator, usernamePasswordAuthenticator, type Authenticator, type NatsConnection } from '@nats-io/transport-node';
import { createUser, fromSeed } from '@nats-io/nkeys';
import { sameFingerprint } from '../../core/tls.ts';
import { JoinAnswerSchema } from '../../protocol/fleet.ts';
import { pinnedTls, probeCertificate } from './tls-pin.ts';
import { writeMembership, type Membership } from './membership.ts';
import { CredsError, joinProof, machineIdOf, parseCreds } from './creds.ts';
import { JOIN_INBOX_PREFIX, JOIN_SUBJECT, JOIN_USER, machineInboxPrefix } from './subjects.ts';

export class JoinError extends Error {}

const JOIN_TIMEOUT_MS = 10_000;
/** The hub reloads its nats-server after a join: the key may be refused for a moment. */
const KEY_CHECK_MS = 10_000;

async function reach(url: string, options: Parameters<typeof connect>[0]): Promise<NatsConnection> {
  try {
    return await connect({ servers: url, timeout: JOIN_TIMEOUT_MS, ...options });
  } catch (err) {
    throw new JoinError(`cannot reach the hub at ${url}: ${(err as Error).message}`);
  }
}

/** The hub's certificate, when the invite names its fingerprint: the one it presents must be that one. */
async function pinHub(url: string, fingerprint: string | undefined): Promise<Membership['hubCertificate']> {
  if (!fingerprint) return undefined;
  let seen;
  try {
    seen = await probeCertificate(url);
  } catch (err) {
    throw new JoinError(`cannot read the hub's certificate at ${url}: ${(err as Error).message}`);
  }
  if (!sameFingerprint(seen.fingerprint, fingerprint)) {
    throw new JoinError(`the hub at ${url} presents another certificate than the invite names: it has SHA-256 ${seen.fingerprint}, the invite ${fingerprint}. Another server may hold that address; check the URL and make a new invite`);
  }
  return seen;
}

/** `creds`: the text of the credentials file the NATS operator made for this machine (an operator-owned fleet). */
export async function joinFleet(o: { url: string; code: string; name: string; home: string; fingerprint?: string; creds?: string }): Promise<Membership> {
  const creds = o.creds === undefined ? undefined : credsOf(o.creds);
  const key = creds ? fromSeed(new TextEncoder().encode(creds.seed)) : createUser();
  const hubCertificate = await pinHub(o.url, o.fingerprint);
  const tls = hubCertificate ? { tls: pinnedTls(hubCertificate.pem, hubCertificate.fingerprint) } : {};
  // with an operator's credentials the machine is already a user there, and asks from its own inbox
  const as = creds
    ? { authenticator: credsAuthenticator(new TextEncoder().encode(o.creds)), inboxPrefix: machineInboxPrefix(machineIdOf(key.getPublicKey())) }
    : { authenticator: usernamePasswordAuthenticator(JOIN_USER.user, JOIN_USER.pass), inboxPrefix: JOIN_INBOX_PREFIX };
  const asJoiner = await reach(o.url, { ...as, name: 'svc-fleet-join', ...tls });
  const signature = Buffer.from(key.sign(joinProof(o.code))).toString('base64url');
  let answer;
  try {
    const reply = await asJoiner.request(JOIN_SUBJECT, JSON.stringify({ code: o.code, publicKey: key.getPublicKey(), signature, name: o.name }), { timeout: JOIN_TIMEOUT_MS });
    answer = JoinAnswerSchema.parse(JSON.parse(reply.string()));
  } catch (err) {
    throw new JoinError(`the hub at ${o.url} did not answer the join: ${(err as Error).message}`);
  } finally {
    await asJoiner.close().catch(() => undefined);
  }
  if (!answer.ok) throw new JoinError(`the hub refused to join: ${answer.error}`);
  await checkKey(o.url, creds ? as.authenticator : nkeyAuthenticator(key.getSeed()), tls);
  const membership: Membership = { url: o.url, machineId: answer.machineId, name: answer.name, joinedAt: Date.now(), ...(hubCertificate ? { hubCertificate } : {}) };
  writeMembership(o.home, membership, key.getSeed(), o.creds);
  return membership;
}

function credsOf(text: string) {
  try {
    return parseCreds(text);
  } catch (err) {
    if (err instanceof CredsError) throw new JoinError(`the credentials file is not a NATS user's: ${err.message}`);
    throw err;
  }
}

async function checkKey(url: string, authenticator: Authenticator, tls: { tls?: ReturnType<typeof pinnedTls> }): Promise<void> {
  const end = Date.now() + KEY_CHECK_MS;
  for (;;) {
    try {
      const connection = await connect({ servers: url, authenticator, timeout: 2_000, ...tls });
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > end) throw new JoinError(`the hub accepted this machine, but its key cannot connect: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
