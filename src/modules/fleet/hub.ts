// The hub of a fleet (svc dashboard serve --fleet): its nats-server, the invites, the joins, and the machines
// it hears from. Machines connect out to it; the hub never needs to reach them.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { connect, credsAuthenticator, errors, nkeyAuthenticator, type NatsConnection, type Msg } from '@nats-io/transport-node';
import { fromPublic } from '@nats-io/nkeys';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { HeartbeatSchema, JoinRequestSchema, MachineAnswerSchema, type WorkItem, type FleetStatus, type Invite, type JoinAnswer, type Machine, type NATS_STATES } from '../../protocol/fleet.ts';
import type { FleetMachineChange } from './events.ts';
import { joinProof, machineIdOf } from './creds.ts';
import { FleetRepo, type MachineRow } from './fleet.repo.ts';
import { inviteCodeHash, newInviteCode, normalizeInviteCode } from './invite-code.ts';
import { loadOrCreateUserKey } from './keys.ts';
import { exposedWithoutTls, isWildcardHost, reachableHost, renderNatsConfig } from './nats-config.ts';
import { NatsServerProcess } from './nats-server.ts';
import { FailureWindow } from './rate-limit.ts';
import { pinnedTls } from './tls-pin.ts';
import { ALL_HEARTBEATS, ALL_TUNNELS_TO_HUB, JOIN_SUBJECT, machineOfSubject, requestSubject, tunnelOfSubject, tunnelToMachine } from './subjects.ts';
import { failedConnection, TunnelTable } from './tunnel.ts';
import { EventRelay } from './event-relay.ts';
import { WorkQueue } from './work-queue.ts';
import type { WorkRepo } from './work.repo.ts';

export const INVITE_TTL_MS = 10 * 60_000;
/** How often a machine says it is there; three missed in a row and it is offline. */
export const HEARTBEAT_MS = 5_000;
const MISSED_BEATS = 3;
/** The JetStream store's bound on disk. */
const MAX_STORE_BYTES = 1024 ** 3;
const JOIN_FAILURES_PER_MINUTE = 10;
/** How long the hub waits for a machine to answer a request (a tunnel's open, its credentials). */
const MACHINE_ANSWER_MS = 10_000;

export interface FleetHubOptions {
  /** The hub's files: its config, key, JetStream store and nats-server's log (`<manager home>/fleet`). */
  dir: string;
  repo: FleetRepo;
  workRepo: WorkRepo;
  /**
   * The nats-server the hub runs (`binary`, on `host`:`port`), or a NATS an operator runs, reached at `url` with a
   * credentials file (`creds`, its text): then the operator owns its accounts and users, and the hub adds none.
   */
  nats: { binary: string; host: string; port: number } | { url: string; creds: string };
  /** The dashboard's certificate: the hub serves NATS over TLS with it. */
  tls?: { certFile: string; keyFile: string; pem: string; fingerprint: string };
  heartbeatMs?: number;
  inviteTtlMs?: number;
  onMachine: (machine: Machine, change: FleetMachineChange) => void;
  /** A work item changed (queued, claimed, ended, requeued). */
  onWork: (item: WorkItem) => void;
  /** How long a machine may go silent on an item before another machine gets it (default 30 s). */
  workAckWaitMs?: number;
  /** Every heartbeat of a machine (with whether it just came online): its instances may have changed. */
  onHeartbeat?: (machine: Machine, cameOnline: boolean) => void;
  onNats: (state: (typeof NATS_STATES)[number], reason?: string) => void;
  now?: () => number;
}

export class FleetHub {
  /** The nats-server the hub supervises; none when it uses an operator's NATS. */
  private readonly nats?: NatsServerProcess;
  /** The operator's NATS, when the hub uses one: where, with which credentials, and the hub's connection to it. */
  private readonly external?: { url: string; creds: string; state: (typeof NATS_STATES)[number] };
  private readonly hubKey;
  private connection?: NatsConnection;
  private readonly online = new Map<string, boolean>();
  private readonly joinFailures = new FailureWindow(JOIN_FAILURES_PER_MINUTE, 60_000);
  private sweep?: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly heartbeatMs: number;
  private lastReason?: string;
  private readonly logFile: string;
  private readonly serverName: string;
  /** Tunnels to machines' instances, by `<machine>/<tunnel>`. */
  private tunnels?: TunnelTable;
  readonly work: WorkQueue;
  /** The machines' instances' events, kept in JetStream for the dashboard's event bridge. */
  readonly events = new EventRelay();

  constructor(private readonly o: FleetHubOptions) {
    const exposed = 'binary' in o.nats ? exposedWithoutTls(o.nats.host, Boolean(o.tls)) : undefined;
    if (exposed) throw new Error(exposed);
    mkdirSync(o.dir, { recursive: true, mode: 0o700 });
    this.hubKey = loadOrCreateUserKey(join(o.dir, 'hub.nk'));
    this.logFile = join(o.dir, 'nats-server.log');
    this.serverName = `svc-fleet-hub-${randomBytes(4).toString('hex')}`;
    this.now = o.now ?? Date.now;
    this.heartbeatMs = o.heartbeatMs ?? HEARTBEAT_MS;
    this.work = new WorkQueue({
      repo: o.workRepo,
      isMachine: (id) => this.o.repo.machine(id) !== undefined,
      ...(o.workAckWaitMs !== undefined ? { ackWaitMs: o.workAckWaitMs } : {}),
      onChange: o.onWork,
      now: this.now,
    });
    if (!('binary' in o.nats)) {
      this.external = { url: o.nats.url, creds: o.nats.creds, state: 'stopped' };
      return;
    }
    this.nats = new NatsServerProcess({
      binary: o.nats.binary,
      configFile: join(o.dir, 'nats-server.conf'),
      logFile: this.logFile,
      serverName: this.serverName,
      host: o.nats.host,
      port: o.nats.port,
      onState: (state, reason) => this.natsState(state, reason),
    });
  }

  private natsState(state: (typeof NATS_STATES)[number], reason?: string): void {
    this.lastReason = reason;
    if (this.external) this.external.state = state;
    this.o.onNats(state, reason);
  }

  /** The URL a machine joins: the operator's NATS, or this host's name when the hub listens on every interface. */
  get url(): string {
    if (!('binary' in this.o.nats)) return this.o.nats.url;
    const host = isWildcardHost(this.o.nats.host) ? hostname() : this.o.nats.host;
    return `${this.o.tls ? 'tls' : 'nats'}://${host.includes(':') ? `[${host}]` : host}:${this.o.nats.port}`;
  }

  /** Whether the hub uses an operator's NATS, whose users are the operator's to make and revoke. */
  get operatorOwned(): boolean {
    return this.external !== undefined;
  }

  async start(): Promise<void> {
    if (this.nats) await this.nats.start(this.config());
    else this.natsState('starting');
    const target = 'binary' in this.o.nats ? { servers: `${reachableHost(this.o.nats.host)}:${this.o.nats.port}` } : { servers: this.o.nats.url };
    this.connection = await connect({
      ...target,
      authenticator: this.external ? credsAuthenticator(new TextEncoder().encode(this.external.creds)) : nkeyAuthenticator(this.hubKey.getSeed()),
      name: 'svc-fleet-hub',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      ...(this.o.tls && this.nats ? { tls: pinnedTls(this.o.tls.pem, this.o.tls.fingerprint) } : {}),
    });
    if (this.external) this.natsState('running');
    this.connection.subscribe(JOIN_SUBJECT, { callback: (err, msg) => void (err || this.onJoin(msg).catch(() => this.answer(msg, { ok: false, error: 'the hub could not add this machine: try again' }))) });
    this.connection.subscribe(ALL_HEARTBEATS, { callback: (err, msg) => void (err || this.onHeartbeat(msg)) });
    const connection = this.connection;
    const tunnels = new TunnelTable((key, frame) => {
      const [machineId, tunnel] = key.split('/') as [string, string];
      connection.publish(tunnelToMachine(machineId, tunnel), frame);
    });
    this.tunnels = tunnels;
    // a machine publishes only under its own prefix, so the subject's machine is the sender: it reaches its own tunnels only
    connection.subscribe(ALL_TUNNELS_TO_HUB, { callback: (err, msg) => void (err || tunnels.dispatch(`${machineOfSubject(msg.subject)}/${tunnelOfSubject(msg.subject)}`, msg.data)) });
    void this.watchConnection(connection, tunnels);
    await this.work.start(connection, this.o.repo.machines().map((m) => m.id));
    await this.events.start(connection);
    for (const m of this.o.repo.machines()) this.online.set(m.id, this.isOnline(m));
    this.sweep = setInterval(() => this.sweepOffline(), this.heartbeatMs);
    this.sweep.unref();
  }

  /** The pid of the nats-server the hub supervises, while it runs. */
  get natsPid(): number | undefined {
    return this.nats?.pid;
  }

  status(): FleetStatus {
    return {
      enabled: true,
      nats: this.state,
      ...(this.state !== 'running' && this.lastReason ? { reason: this.lastReason } : {}),
      url: this.url,
      fingerprint: this.o.tls?.fingerprint ?? null,
    };
  }

  /**
   * A connection to one of a machine's instances, through a tunnel over NATS (tunnel.ts): a Duplex that node:http
   * and ws use as their socket. It fails at once, saying why, when the machine is offline or does not answer.
   */
  openTunnel(machineId: string, instance: string): Duplex {
    const row = this.o.repo.machine(machineId);
    if (!this.tunnels || !this.connection) return failedConnection('the fleet is not running');
    if (!row) return failedConnection(`machine ${machineId} is not in the fleet (revoked?)`);
    if (!this.online.get(machineId)) return failedConnection(`its machine ${row.name} is offline${row.lastSeen ? ` (last heard ${new Date(row.lastSeen).toISOString()})` : ''}`);
    const tunnel = randomBytes(8).toString('hex');
    const stream = this.tunnels.create(`${machineId}/${tunnel}`);
    // the frames the caller writes next follow the open in order: the machine has the tunnel before its first frame
    this.ask(machineId, 'open', { tunnel, instance }).then(
      (answer) => void (answer.ok || stream.destroy(new Error(`${row.name} refused the connection: ${answer.error}`))),
      (err: Error) => stream.destroy(err),
    );
    return stream;
  }

  /** The token of one of a machine's instances, which the machine gives the hub alone (only it may ask). */
  async credentials(machineId: string, instance: string): Promise<string> {
    const answer = await this.ask(machineId, 'credentials', { instance });
    if (!answer.ok || answer.token === undefined) throw new Error(answer.ok ? 'the machine gave no token' : answer.error);
    return answer.token;
  }

  private async ask(machineId: string, what: string, payload: unknown) {
    const name = this.o.repo.machine(machineId)?.name ?? machineId;
    if (!this.connection) throw new Error('the fleet is not running');
    let reply: Msg;
    try {
      reply = await this.connection.request(requestSubject(machineId, what), JSON.stringify(payload), { timeout: MACHINE_ANSWER_MS });
    } catch (err) {
      // a request's failure is a RequestError whose cause says which
      const cause = err instanceof errors.RequestError ? err.cause : err;
      if (cause instanceof errors.NoRespondersError) throw new Error(`its machine ${name} is not connected to the hub`);
      if (cause instanceof errors.TimeoutError) throw new Error(`its machine ${name} did not answer within ${MACHINE_ANSWER_MS / 1000} s`);
      throw err;
    }
    const answer = MachineAnswerSchema.safeParse(JSON.parse(reply.string()));
    if (!answer.success) throw new Error(`its machine ${name} gave a malformed answer`);
    return answer.data;
  }

  private get state(): (typeof NATS_STATES)[number] {
    return this.nats?.state ?? this.external!.state;
  }

  /**
   * When the hub's own connection drops, what it sent meanwhile is lost: every tunnel ends (the callers retry). An
   * operator's NATS has no process the hub watches: its state is the connection's.
   */
  private async watchConnection(connection: NatsConnection, tunnels: TunnelTable): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        tunnels.abort('the hub lost its connection to its nats-server');
        if (this.external) this.natsState('restarting', `the connection to ${this.external.url} dropped: reconnecting`);
      } else if (status.type === 'reconnect' && this.external) this.natsState('running');
    }
  }

  createInvite(): Invite {
    const code = newInviteCode();
    const id = newId('inv');
    const now = this.now();
    const expiresAt = now + (this.o.inviteTtlMs ?? INVITE_TTL_MS);
    this.o.repo.addInvite(id, inviteCodeHash(normalizeInviteCode(code)!), now, expiresAt);
    // the dashboard's certificate is the NATS's only when the hub runs it; on an operator's NATS the machine joins
    // with the user the operator made for it
    const pin = this.o.tls && this.nats ? ` --fingerprint ${this.o.tls.fingerprint}` : '';
    const creds = this.external ? ' --creds <the machine\'s .creds file>' : '';
    return { id, code, expiresAt, command: `svc fleet join ${this.url} --code ${code}${pin}${creds}` };
  }

  machines(): Machine[] {
    return this.o.repo.machines().map((m) => this.view(m));
  }

  machine(id: string): Machine | undefined {
    const row = this.o.repo.machine(id);
    return row && this.view(row);
  }

  /**
   * Forgets a machine: its key is no longer a user of the hub's NATS, which closes its connection. On an operator's
   * NATS the user is the operator's to revoke: the hub forgets the machine and ignores what it sends from then on.
   */
  async revoke(id: string): Promise<Machine> {
    const row = this.o.repo.machine(id);
    if (!row || !this.o.repo.revoke(id, this.now())) throw notFound('machine', id);
    const keys = this.view(row).instances.map((i) => i.key);
    this.online.delete(id);
    this.tunnels?.abort(`machine ${row.name} was revoked`, (key) => key.startsWith(`${id}/`));
    await this.nats?.reload(this.config());
    await this.work.revokeMachine(id);
    await this.events.forgetMachine(id, keys);
    const machine = { ...this.view(row), online: false };
    this.o.onMachine(machine, 'revoked');
    return machine;
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await this.connection?.close().catch(() => undefined);
    if (this.nats) await this.nats.stop();
    else this.natsState('stopped');
  }

  private config(): string {
    const nats = this.o.nats as { host: string; port: number };
    return renderNatsConfig({
      serverName: this.serverName,
      host: nats.host,
      port: nats.port,
      ...(this.o.tls ? { tls: { certFile: this.o.tls.certFile, keyFile: this.o.tls.keyFile } } : {}),
      hubPublicKey: this.hubKey.getPublicKey(),
      machines: this.o.repo.machines().map((m) => ({ id: m.id, publicKey: m.publicKey })),
      storeDir: join(this.o.dir, 'jetstream'),
      maxStoreBytes: MAX_STORE_BYTES,
    });
  }

  private isOnline(m: MachineRow): boolean {
    return m.lastSeen !== null && this.now() - m.lastSeen < MISSED_BEATS * this.heartbeatMs;
  }

  private view(m: MachineRow): Machine {
    return {
      id: m.id,
      name: m.name,
      online: this.isOnline(m),
      lastSeen: m.lastSeen,
      joinedAt: m.joinedAt,
      version: m.info.version ?? null,
      instances: m.info.instances ?? [],
    };
  }

  private answer(msg: Msg, answer: JoinAnswer): void {
    msg.respond(JSON.stringify(answer));
  }

  private async onJoin(msg: Msg): Promise<void> {
    const now = this.now();
    if (!this.joinFailures.open(now)) {
      const wait = Math.ceil(this.joinFailures.retryAfterMs(now) / 1000);
      return this.answer(msg, { ok: false, error: `too many wrong codes: try again in ${wait} s` });
    }
    const fail = (error: string) => {
      this.joinFailures.fail(now);
      this.answer(msg, { ok: false, error });
    };
    let parsed;
    try {
      parsed = JoinRequestSchema.safeParse(JSON.parse(msg.string()));
    } catch {
      return fail('the join request is not JSON');
    }
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return fail(`the join request is malformed (${issue.path.join('.') || 'the request'}: ${issue.message})`);
    }
    const { code, publicKey, name, signature } = parsed.data;
    let key;
    try {
      if (!publicKey.startsWith('U')) throw new Error('not a user key');
      key = fromPublic(publicKey);
    } catch {
      return fail('the public key is not an NKey of a user');
    }
    // the machine signs its code with the key it presents: a join cannot name someone else's key
    if (!verifies(key, joinProof(code), signature)) return fail('the join is not signed by the key it presents');
    const normalized = normalizeInviteCode(code);
    const invite = normalized ? this.o.repo.inviteByHash(inviteCodeHash(normalized)) : undefined;
    if (!invite) return fail('unknown invite code: check it, or make a new invite on the dashboard');
    if (invite.usedAt !== null) return fail('this invite code was used already: make a new invite on the dashboard');
    if (invite.expiresAt <= now) return fail('this invite code has expired: make a new invite on the dashboard');
    const machine = { id: machineIdOf(publicKey), name, publicKey };
    const before = this.o.repo.everJoined(machine.id);
    if (before === 'member') return fail('this key has joined already: a machine joins with a key of its own');
    if (before === 'revoked') return fail('this key was revoked on this hub: a revoked machine joins again with a new key (a new user from the NATS operator)');
    if (!this.o.repo.join(invite.id, machine, now)) return fail('this invite code was used already: make a new invite on the dashboard');
    await this.nats?.reload(this.config());
    await this.work.addConsumer(machine.id);
    this.answer(msg, { ok: true, machineId: machine.id, name });
    this.o.onMachine(this.view(this.o.repo.machine(machine.id)!), 'joined');
  }

  private onHeartbeat(msg: Msg): void {
    const id = machineOfSubject(msg.subject);
    if (!id) return;
    let beat;
    try {
      beat = HeartbeatSchema.safeParse(JSON.parse(msg.string()));
    } catch {
      return;
    }
    if (!beat.success) return;
    this.o.repo.seen(id, this.now(), beat.data);
    const row = this.o.repo.machine(id);
    if (!row) return;
    const cameOnline = !this.online.get(id);
    if (cameOnline) {
      this.online.set(id, true);
      this.o.onMachine(this.view(row), 'online');
    }
    this.o.onHeartbeat?.(this.view(row), cameOnline);
  }

  private sweepOffline(): void {
    for (const m of this.o.repo.machines()) {
      if (this.online.get(m.id) && !this.isOnline(m)) {
        this.online.set(m.id, false);
        this.tunnels?.abort(`machine ${m.name} went offline`, (key) => key.startsWith(`${m.id}/`));
        this.o.onMachine(this.view(m), 'offline');
      }
    }
  }
}

/** Whether `signature` (base64url) is `key`'s signature of `data`. */
function verifies(key: ReturnType<typeof fromPublic>, data: Uint8Array, signature: string): boolean {
  try {
    return key.verify(data, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
