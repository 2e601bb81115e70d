// The hub's own push notifications: a tool call held for a person in any instance of the dashboard (one
// it started, one it found, or one on a machine of the fleet) is pushed, with Allow and Deny, to the
// devices that turned notifications on in the dashboard. The push module does the pushing, the tokens and
// their checks, exactly as an instance's does; this is what it sees of the requests: each instance's
// permission events, relayed by the event bridge, under an id of the hub's, and a decision handed to
// the instance that holds the request (its POST /api/permissions/:id, first decision wins there).
//
// The hub's id is a hash of the instance's id and the request's, so it is the same after the hub
// restarts: a notification sent before can still decide, the request found again by asking the instances.
import { createHash } from 'node:crypto';
import { notFound } from '../../core/errors.ts';
import { EventBus } from '../../events/bus.ts';
import type { EventPayload } from '../../protocol/events.ts';
import type { DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import type { InstancesService } from './instances.service.ts';
import { decideOn, pendingAcross } from './permissions.ts';

/** The hub's id of an instance's request: `hp_` and 22 characters of base64url (132 bits of SHA-256). */
export const hubRequestId = (instanceId: string, requestId: string): string =>
  `hp_${createHash('sha256').update(`${instanceId}\0${requestId}`).digest('base64url').slice(0, 22)}`;

type Resolved = EventPayload<'permission_resolved'>;

interface Held {
  instanceId: string;
  /** The request as its instance reported it (its own id). */
  request: PermissionRequest;
}

/**
 * A request as the hub's devices see it: the hub's id, and the instance named first in its title (the
 * device may get requests from many instances). The chat link stays the instance's session.
 */
export function asHubRequest(instanceId: string, instanceLabel: string, request: PermissionRequest): PermissionRequest {
  return { ...request, id: hubRequestId(instanceId, request.id), summary: { ...request.summary, title: `${instanceLabel}: ${request.summary.title}` } };
}

export class HubPermissions {
  /** What the hub's PushService follows: its instances' permission events, under the hub's ids. */
  readonly events = new EventBus((err) => console.error('svc dashboard: a push listener failed:', err));
  private readonly held = new Map<string, Held>();
  private unsubscribe?: () => void;

  constructor(
    private readonly instances: InstancesService,
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows the relayed events (the manager's `instance_event`) of every instance. */
  start(bus: EventBus): void {
    this.unsubscribe = bus.subscribe((event) => {
      if (event.name !== 'instance_event') return;
      const { instanceId, name, data } = event.payload as { instanceId: string; name: string; data: Record<string, unknown> };
      if (name === 'permission_request') this.hold(instanceId, data as unknown as PermissionRequest, true);
      else if (name === 'permission_resolved') this.release(instanceId, data as Resolved);
    });
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.held.clear();
  }

  /**
   * The request a hub id names (pending, or decided: then its notification's other action is told so);
   * asks the instances when this hub has not seen it.
   */
  async get(id: string): Promise<PermissionRequest | undefined> {
    if (!this.held.has(id)) await this.refresh();
    const held = this.held.get(id);
    return held ? this.view(held) : undefined;
  }

  /** A decision from a notification, made on the instance that holds the request. */
  async decide(id: string, body: DecisionBody): Promise<PermissionRequest> {
    const held = this.held.get(id) ?? (await this.refresh(), this.held.get(id));
    if (!held) throw notFound('Permission request', id);
    const decided = await decideOn(this.instances.target(held.instanceId), held.request.id, body);
    this.held.set(id, { instanceId: held.instanceId, request: decided });
    return this.view({ instanceId: held.instanceId, request: decided });
  }

  private view(held: Held): PermissionRequest {
    return asHubRequest(held.instanceId, this.label(held.instanceId), held.request);
  }

  private label(instanceId: string): string {
    try {
      return this.instances.get(instanceId).label;
    } catch {
      return instanceId;
    }
  }

  /** Kept until it expires, decided or not (a decided request is what answers a late token with 409). */
  private hold(instanceId: string, request: PermissionRequest, announce: boolean): void {
    const now = this.now();
    for (const [id, held] of this.held) if (held.request.expiresAt <= now) this.held.delete(id);
    if (request.status !== 'pending' || request.expiresAt <= now) return;
    const id = hubRequestId(instanceId, request.id);
    const known = this.held.has(id);
    this.held.set(id, { instanceId, request });
    if (announce && !known) this.events.publish('permission_request', this.view({ instanceId, request }));
  }

  private release(instanceId: string, resolved: Resolved): void {
    const id = hubRequestId(instanceId, resolved.id);
    const held = this.held.get(id);
    if (held) {
      const { request } = held;
      const status = resolved.decision === 'allow' ? 'allowed' : 'denied';
      this.held.set(id, { instanceId, request: { ...request, status, decidedBy: resolved.by, decidedAt: request.decidedAt ?? this.now() } });
    }
    this.events.publish('permission_resolved', { ...resolved, id });
  }

  /**
   * Every instance's pending requests (the hub restarted, or missed an event while an instance was away). All are
   * asked, not only those known online: right after the hub starts none is known yet, and one that is down fails
   * at once (refused, or its machine offline).
   */
  private async refresh(): Promise<void> {
    const all = this.instances.list().map((row) => ({ row, target: this.instances.target(row.id) }));
    const { requests } = await pendingAcross(all);
    for (const { instanceId, instanceLabel: _label, ...request } of requests) this.hold(instanceId, request as PermissionRequest, false);
  }
}
