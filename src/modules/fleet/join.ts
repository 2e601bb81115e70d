// `svc fleet join <url> --code <code>`: this machine's new NKey, its public key presented with the invite's code
// as the hub's public join user (which may do nothing else), and, once the hub has said yes, a first connection
// with the key to prove the membership works before it is kept.
import { connect, nkeyAuthenticator, usernamePasswordAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { createUser } from '@nats-io/nkeys';
import { sameFingerprint } from '../../core/tls.ts';
import { JoinAnswerSchema } from '../../protocol/fleet.ts';
import { pinnedTls, probeCertificate } from './tls-pin.ts';
import { writeMembership, type Membership } from './membership.ts';
import { JOIN_INBOX_PREFIX, JOIN_SUBJECT, JOIN_USER } from './subjects.ts';

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

export async function joinFleet(o: { url: string; code: string; name: string; home: string; fingerprint?: string }): Promise<Membership> {
  const key = createUser();
  const hubCertificate = await pinHub(o.url, o.fingerprint);
  const tls = hubCertificate ? { tls: pinnedTls(hubCertificate.pem, hubCertificate.fingerprint) } : {};
  const asJoiner = await reach(o.url, { authenticator: usernamePasswordAuthenticator(JOIN_USER.user, JOIN_USER.pass), inboxPrefix: JOIN_INBOX_PREFIX, name: 'svc-fleet-join', ...tls });
  let answer;
  try {
    const reply = await asJoiner.request(JOIN_SUBJECT, JSON.stringify({ code: o.code, publicKey: key.getPublicKey(), name: o.name }), { timeout: JOIN_TIMEOUT_MS });
    answer = JoinAnswerSchema.parse(JSON.parse(reply.string()));
  } catch (err) {
    throw new JoinError(`the hub at ${o.url} did not answer the join: ${(err as Error).message}`);
  } finally {
    await asJoiner.close().catch(() => undefined);
  }
  if (!answer.ok) throw new JoinError(`the hub refused to join: ${answer.error}`);
  await checkKey(o.url, key.getSeed(), tls);
  const membership: Membership = { url: o.url, machineId: answer.machineId, name: answer.name, joinedAt: Date.now(), ...(hubCertificate ? { hubCertificate } : {}) };
  writeMembership(o.home, membership, key.getSeed());
  return membership;
}

async function checkKey(url: string, seed: Uint8Array, tls: { tls?: ReturnType<typeof pinnedTls> }): Promise<void> {
  const end = Date.now() + KEY_CHECK_MS;
  for (;;) {
    try {
      const connection = await connect({ servers: url, authenticator: nkeyAuthenticator(seed), timeout: 2_000, ...tls });
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > end) throw new JoinError(`the hub accepted this machine, but its key cannot connect: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
