// The hub's nats-server configuration, rendered from what the hub knows (pure). nats-server reads JSON as
// its own format; the file is rewritten and the server told to reload it (SIGHUP) when a machine joins or is
// revoked, so the list of users is always the list of machines.
import { JOIN_INBOX_PREFIX, JOIN_SUBJECT, JOIN_USER, machineInboxPrefix, machineSubjects, requestSubject, workConsumer, workConsumerApi } from './subjects.ts';

export interface NatsConfigInput {
  /** Its INFO line names it: how the hub tells its own server from another one holding the port. */
  serverName: string;
  host: string;
  port: number;
  /** The dashboard's certificate and key files: required by the hub when `host` is not loopback-only. */
  tls?: { certFile: string; keyFile: string };
  /** The hub's own user: its NKey's public key (the hub may use every subject). */
  hubPublicKey: string;
  machines: readonly { id: string; publicKey: string }[];
  /** JetStream's directory and its bound on disk. */
  storeDir: string;
  maxStoreBytes: number;
}

/**
 * What one machine's user may do: its own subjects, and answer the hub's requests; never ask itself. Of JetStream,
 * only pull and acknowledge work from the queue's shared consumer and its own.
 */
export function machinePermissions(machineId: string) {
  return {
    publish: { allow: [machineSubjects(machineId), ...workConsumerApi(workConsumer('any')), ...workConsumerApi(workConsumer(machineId))], deny: [requestSubject(machineId, '>')] },
    subscribe: { allow: [machineSubjects(machineId), `${machineInboxPrefix(machineId)}.>`] },
    allow_responses: true,
  };
}

/**
 * The same, as the permissions of the user an operator makes for a machine on a NATS it runs (a user JWT's
 * `pub`, `sub` and `resp`; `svc fleet permissions` prints them): what the hub's own nats-server gives a machine,
 * and the join subject, which a machine there uses with its own credentials (the hub's nats-server has a join user
 * for it instead).
 */
export function operatorUserPermissions(machineId: string) {
  const own = machinePermissions(machineId);
  return {
    pub: { allow: [...own.publish.allow, JOIN_SUBJECT], deny: own.publish.deny },
    sub: { allow: own.subscribe.allow },
    resp: { max: 1 },
  };
}

export function renderNatsConfig(c: NatsConfigInput): string {
  const users = [
    { nkey: c.hubPublicKey },
    { user: JOIN_USER.user, password: JOIN_USER.pass, permissions: { publish: { allow: [JOIN_SUBJECT] }, subscribe: { allow: [`${JOIN_INBOX_PREFIX}.>`] } } },
    ...c.machines.map((m) => ({ nkey: m.publicKey, permissions: machinePermissions(m.id) })),
  ];
  const config = {
    server_name: c.serverName,
    host: c.host,
    port: c.port,
    ...(c.tls ? { tls: { cert_file: c.tls.certFile, key_file: c.tls.keyFile, timeout: 5 } } : {}),
    authorization: { users },
    jetstream: { store_dir: c.storeDir, max_file_store: c.maxStoreBytes, max_memory_store: 64 * 1024 * 1024 },
    // its log goes to stderr, which the hub keeps in a rotated file of its own (nats-server.ts); the file adds the time
    logtime: false,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** A NATS server's address as a fleet gives it: `nats://host:port` or `tls://host:port`. */
export const isNatsUrl = (url: string): boolean => /^(nats|tls):\/\/[^/\s]+$/.test(url);

/** Loopback-only addresses: the only ones the hub may listen on without TLS. */
export const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Every interface: the hub's machine reaches such a listener on loopback. */
export const isWildcardHost = (host: string) => host === '0.0.0.0' || host === '::';

/** Where this machine reaches a server listening on `host`. */
export const reachableHost = (host: string) => (isWildcardHost(host) ? '127.0.0.1' : host);

/** Why the hub may not listen on `host` (a network address without TLS), or undefined. */
export function exposedWithoutTls(host: string, tls: boolean): string | undefined {
  if (tls || isLoopbackHost(host)) return undefined;
  return `the fleet's NATS port on ${host} would be open to the network without TLS: give --tls-cert and --tls-key, or leave --nats-host out (127.0.0.1)`;
}
