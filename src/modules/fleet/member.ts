// A joined machine's side of the fleet, in `svc serve`: one outward connection to the hub (reconnected by the
// NATS client, with no inbound port), a heartbeat with this instance's state, and answers to the hub's requests:
// its status, its token, and tunnels (tunnel.ts) that carry the hub's HTTP connections to it.
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Server as TlsServer } from 'node:tls';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import { CredentialsRequestSchema, TunnelOpenSchema, type Heartbeat, type MachineAnswer, type MachineInstance, type MEMBER_STATES, type MemberStatus } from '../../protocol/fleet.ts';
import { HEARTBEAT_MS } from './hub.ts';
import { machineAuthenticator, type Membership } from './membership.ts';
import { pinnedTls } from './tls-pin.ts';
import { EventOutbox } from './event-outbox.ts';
import { heartbeatSubject, instanceEventsSubject, machineInboxPrefix, requestSubject, tunnelOfSubject, tunnelToHub } from './subjects.ts';
import { TunnelTable } from './tunnel.ts';
import { WorkRunner, type WorkRunnerOptions } from './work-runner.ts';

export type MemberState = (typeof MEMBER_STATES)[number];

/** How long a stopping svc serve waits for its last events to reach the hub. */
const DRAIN_MS = 2_000;

const noInstance = (instance: string) => `no instance ${instance} on this machine`;

/** An instance's key on its machine: from its home, so it is the same after a restart or a port change. */
export const instanceKey = (home: string) => createHash('sha256').update(home).digest('hex').slice(0, 12);

/**
 * Gives a tunnel to svc serve's HTTP server as a connection of its own. On an HTTPS server it joins after the TLS
 * layer (the `secureConnection` an accepted TLS socket makes): the NATS link is the transport's security here.
 */
export function handToServer(server: Server, connection: Duplex): void {
  server.emit(server instanceof TlsServer ? 'secureConnection' : 'connection', connection);
}

export interface FleetMemberOptions {
  home: string;
  membership: Membership;
  version: string;
  /** This machine's instances, as the heartbeat tells the hub (local-instances.ts: the svc serve it runs in, and the others here). */
  instances: () => MachineInstance[];
  /** An instance's token (by its key), given to the hub only, when it asks. */
  token: (key: string) => string | undefined;
  /** Hands a tunnel to an instance's HTTP server (one `token` knows) as a new connection. */
  accept: (key: string, connection: Duplex) => void;
  /**
   * Sends an instance's public events into its outbox, from the oldest event it still has (so what happened before the
   * hub was reached goes too); returns how to stop. The outbox takes them into the hub's JetStream.
   */
  events?: (key: string, outbox: EventOutbox) => () => void;
  heartbeatMs?: number;
  /** How this machine runs work from the fleet's queue. */
  work?: Omit<WorkRunnerOptions, 'connection' | 'machineId'>;
  onState?: (state: MemberState, detail?: string) => void;
}

export class FleetMember {
  private connection?: NatsConnection;
  private timer?: NodeJS.Timeout;
  private tunnels?: TunnelTable;
  private work?: WorkRunner;
  /** Each listed instance's outbox of events, made when it is first listed and closed when it is no longer. */
  private readonly outboxes = new Map<string, { outbox: EventOutbox; stop: () => void }>();
  private js?: JetStreamClient;
  state: MemberState = 'connecting';

  constructor(private readonly o: FleetMemberOptions) {}

  async start(): Promise<void> {
    const { membership } = this.o;
    const connection = await connect({
      servers: membership.url,
      authenticator: machineAuthenticator(this.o.home),
      inboxPrefix: machineInboxPrefix(membership.machineId),
      name: `svc-machine-${membership.machineId}`,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      ...(membership.hubCertificate ? { tls: pinnedTls(membership.hubCertificate.pem, membership.hubCertificate.fingerprint) } : {}),
    });
    // closed while it waited for the hub (svc serve stopping before the hub was ever reached)
    if (this.state === 'closed') return void (await connection.close());
    this.connection = connection;
    this.setState('connected');
    void this.watch(this.connection);
    const id = membership.machineId;
    this.connection.subscribe(requestSubject(id, 'status'), { callback: (err, msg) => void (err || msg.respond(JSON.stringify(this.heartbeat()))) });
    this.connection.subscribe(requestSubject(id, 'credentials'), { callback: (err, msg) => void (err || this.answer(msg, CredentialsRequestSchema, ({ instance }) => this.credentials(instance))) });
    // a tunnel's open comes before its first frame (NATS keeps the hub's messages in order), so the frame finds it
    const tunnels = new TunnelTable((tunnel, frame) => connection.publish(tunnelToHub(id, tunnel), frame));
    this.tunnels = tunnels;
    this.connection.subscribe(requestSubject(id, 'open'), { callback: (err, msg) => void (err || this.answer(msg, TunnelOpenSchema, (open) => this.open(tunnels, open))) });
    this.connection.subscribe(requestSubject(id, 't.*'), { callback: (err, msg) => void (err || tunnels.dispatch(tunnelOfSubject(msg.subject), msg.data)) });
    if (this.o.events) this.js = jetstream(connection);
    if (this.o.work) {
      this.work = new WorkRunner({ ...this.o.work, connection, machineId: id });
      this.work.start();
    }
    this.beat();
    this.timer = setInterval(() => this.beat(), this.o.heartbeatMs ?? HEARTBEAT_MS);
    this.timer.unref();
  }

  status(): MemberStatus {
    const { url, machineId, name } = this.o.membership;
    return { hub: url, machineId, name, state: this.state };
  }

  /** svc serve is stopping: the items under way go back to the queue now, before their runs are cut. */
  stopWork(): void {
    this.work?.close();
  }

  /** Once the runs have ended: what the outboxes hold (their final events) goes out, for a moment at most, then the connection closes. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.work?.close();
    this.tunnels?.abort('the machine\'s svc serve is stopping');
    if (this.state === 'connected') await Promise.all([...this.outboxes.values()].map(({ outbox }) => outbox.drain(DRAIN_MS)));
    this.state = 'closed';
    for (const { outbox, stop } of this.outboxes.values()) {
      stop();
      outbox.close();
    }
    this.outboxes.clear();
    await this.connection?.close().catch(() => undefined);
  }

  /** Answers one of the hub's requests: its payload read with `schema`, a malformed one refused with the reason. */
  private answer<S extends z.ZodType>(msg: Msg, schema: S, handle: (input: z.output<S>) => MachineAnswer): void {
    let parsed;
    try {
      parsed = schema.safeParse(JSON.parse(msg.string()));
    } catch {
      return void msg.respond(JSON.stringify({ ok: false, error: 'the request is not JSON' }));
    }
    msg.respond(JSON.stringify(parsed.success ? handle(parsed.data) : { ok: false, error: `the request is malformed: ${parsed.error.issues[0]?.message}` }));
  }

  private credentials(instance: string): MachineAnswer {
    const token = this.o.token(instance);
    return token === undefined ? { ok: false, error: noInstance(instance) } : { ok: true, token };
  }

  private open(tunnels: TunnelTable, { tunnel, instance }: z.output<typeof TunnelOpenSchema>): MachineAnswer {
    const stream = tunnels.create(tunnel);
    if (this.o.token(instance) === undefined) {
      // the abort reaches the hub before this answer and ends its side with the reason
      const error = noInstance(instance);
      stream.on('error', () => undefined).destroy(new Error(error));
      return { ok: false, error };
    }
    this.o.accept(instance, stream);
    return { ok: true };
  }

  private heartbeat(): Heartbeat {
    return { name: this.o.membership.name, version: this.o.version, instances: this.o.instances() };
  }

  /** Outboxes follow the list of instances (kept filling while the hub is away). */
  private followEvents(instances: readonly MachineInstance[]): void {
    const { events } = this.o;
    const js = this.js;
    if (!events || !js || this.state === 'closed') return;
    const listed = new Set(instances.map((i) => i.key));
    for (const key of listed) {
      if (this.outboxes.has(key)) continue;
      const outbox = new EventOutbox({ js, subject: instanceEventsSubject(this.o.membership.machineId, key), connected: () => this.state === 'connected' });
      this.outboxes.set(key, { outbox, stop: events(key, outbox) });
    }
    for (const [key, { outbox, stop }] of this.outboxes) {
      if (listed.has(key)) continue;
      stop();
      outbox.close();
      this.outboxes.delete(key);
    }
  }

  private beat(): void {
    const heartbeat = this.heartbeat();
    this.followEvents(heartbeat.instances);
    if (this.state !== 'connected') return;
    this.connection?.publish(heartbeatSubject(this.o.membership.machineId), JSON.stringify(heartbeat));
  }

  private setState(state: MemberState, detail?: string): void {
    if (this.state === state) return;
    this.state = state;
    this.o.onState?.(state, detail);
  }

  /** Follows the connection: a refused key means the hub revoked this machine. */
  private async watch(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (this.state === 'revoked' || this.state === 'closed') continue;
      if (status.type === 'disconnect') {
        this.setState('reconnecting');
        // what the hub sent meanwhile is lost: its connections through the tunnels end (their aborts go out on reconnect)
        this.tunnels?.abort('the machine lost its connection to the hub');
      } else if (status.type === 'reconnect') {
        this.setState('connected');
        this.beat();
        for (const { outbox } of this.outboxes.values()) outbox.resume();
      } else if (status.type === 'error' && /authorization/i.test(String((status as { error?: unknown }).error))) {
        this.setState('revoked', 'the hub no longer accepts this machine: join again with a new invite (svc fleet join)');
      }
    }
    const closedBy = await connection.closed();
    if (this.state !== 'closed' && this.state !== 'revoked') this.setState('closed', closedBy instanceof Error ? closedBy.message : undefined);
  }
}
