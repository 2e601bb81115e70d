// A joined machine's side of the fleet, in `svc serve`: one outward connection to the hub (reconnected by the
// NATS client, with no inbound port), a heartbeat with this instance's state, and answers to the hub's requests.
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import type { Heartbeat, MachineInstance, MEMBER_STATES, MemberStatus } from '../../protocol/fleet.ts';
import { HEARTBEAT_MS } from './hub.ts';
import { readMachineSeed, type Membership } from './membership.ts';
import { pinnedTls } from './tls-pin.ts';
import { heartbeatSubject, machineInboxPrefix, requestSubject } from './subjects.ts';

export type MemberState = (typeof MEMBER_STATES)[number];

export interface FleetMemberOptions {
  home: string;
  membership: Membership;
  version: string;
  /** This machine's instances, as the heartbeat tells the hub (today: the svc serve it runs in). */
  instances: () => MachineInstance[];
  heartbeatMs?: number;
  onState?: (state: MemberState, detail?: string) => void;
}

export class FleetMember {
  private connection?: NatsConnection;
  private timer?: NodeJS.Timeout;
  state: MemberState = 'connecting';

  constructor(private readonly o: FleetMemberOptions) {}

  async start(): Promise<void> {
    const { membership } = this.o;
    const connection = await connect({
      servers: membership.url,
      authenticator: nkeyAuthenticator(readMachineSeed(this.o.home)),
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
    this.connection.subscribe(requestSubject(membership.machineId, 'status'), { callback: (err, msg) => void (err || msg.respond(JSON.stringify(this.heartbeat()))) });
    this.beat();
    this.timer = setInterval(() => this.beat(), this.o.heartbeatMs ?? HEARTBEAT_MS);
    this.timer.unref();
  }

  status(): MemberStatus {
    const { url, machineId, name } = this.o.membership;
    return { hub: url, machineId, name, state: this.state };
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearInterval(this.timer);
    await this.connection?.close().catch(() => undefined);
  }

  private heartbeat(): Heartbeat {
    return { name: this.o.membership.name, version: this.o.version, instances: this.o.instances() };
  }

  private beat(): void {
    if (this.state !== 'connected') return;
    this.connection?.publish(heartbeatSubject(this.o.membership.machineId), JSON.stringify(this.heartbeat()));
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
      if (status.type === 'disconnect') this.setState('reconnecting');
      else if (status.type === 'reconnect') {
        this.setState('connected');
        this.beat();
      } else if (status.type === 'error' && /authorization/i.test(String((status as { error?: unknown }).error))) {
        this.setState('revoked', 'the hub no longer accepts this machine: join again with a new invite (svc fleet join)');
      }
    }
    const closedBy = await connection.closed();
    if (this.state !== 'closed' && this.state !== 'revoked') this.setState('closed', closedBy instanceof Error ? closedBy.message : undefined);
  }
}
