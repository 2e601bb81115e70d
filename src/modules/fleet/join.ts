// `svc fleet join <url> --code <code>`: this machine's new NKey, its public key presented with the invite's code
// as the hub's public join user (which may do nothing else), and, once the hub has said yes, a first connection
// with the key to prove the membership works before it is kept.
import { connect, nkeyAuthenticator, usernamePasswordAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { createUser } from '@nats-io/nkeys';
import { JoinAnswerSchema } from '../../protocol/fleet.ts';
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

export async function joinFleet(o: { url: string; code: string; name: string; home: string }): Promise<Membership> {
  const key = createUser();
  const asJoiner = await reach(o.url, { authenticator: usernamePasswordAuthenticator(JOIN_USER.user, JOIN_USER.pass), inboxPrefix: JOIN_INBOX_PREFIX, name: 'svc-fleet-join' });
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
  await checkKey(o.url, key.getSeed());
  const membership: Membership = { url: o.url, machineId: answer.machineId, name: answer.name, joinedAt: Date.now() };
  writeMembership(o.home, membership, key.getSeed());
  return membership;
}

async function checkKey(url: string, seed: Uint8Array): Promise<void> {
  const end = Date.now() + KEY_CHECK_MS;
  for (;;) {
    try {
      const connection = await connect({ servers: url, authenticator: nkeyAuthenticator(seed), timeout: 2_000 });
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > end) throw new JoinError(`the hub accepted this machine, but its key cannot connect: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
