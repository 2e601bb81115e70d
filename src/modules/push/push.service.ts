// Web Push notifications to the devices that turned them on. A tool call held for a person becomes a
// notification on each device, with Allow and Deny: each action carries a decision token of its own
// (random, 256 bits, kept only as a hash), bound to that request, that decision and that device, and
// expiring with the request. POST /api/permissions/:id/decide-by-token takes it without the bearer
// token: the token is the capability, good once, and refused once the request is decided by anyone or
// expired. When anyone decides, each device's notification is replaced by the outcome (same tag; the
// same RFC 8030 Topic replaces the request still held for an offline device). Runs done, goals done and
// workers that need attention notify too, by setting. A subscription its push service answers 404 or
// 410 is gone for good and is removed.
import { randomBytes } from 'node:crypto';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { EventBus } from '../../events/bus.ts';
import type { AuditSink } from '../security-audit/index.ts';
import type { Decider, DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import type { PushPayload, PushSubscriptionBody, PushSubscriptionInfo } from '../../protocol/push.ts';
import { checkEndpoint, checkKeys } from './endpoint.ts';
import { encodePayload, goalDonePayload, permissionPayload, resolvedPayload, runDonePayload, testPayload, topicOf, WORKER_EVENTS, workerPayload } from './payload.ts';
import type { PushRepo, StoredSubscription } from './push.repo.ts';
import type { PushOptions, PushSender } from './sender.ts';
import type { PushSettings } from './settings.ts';

/**
 * What the push module needs of whoever holds the requests: an instance's PermissionsService, or the hub's
 * view of its instances' requests (modules/dashboard/hub-push.ts), which asks the instance that holds one.
 */
export interface PermissionDecider {
  get(id: string): PermissionRequest | undefined | Promise<PermissionRequest | undefined>;
  decide(id: string, body: DecisionBody, by: Decider, actor: string): PermissionRequest | Promise<PermissionRequest>;
}

export interface PushDeps {
  repo: PushRepo;
  bus: EventBus;
  audit: AuditSink;
  permissions: PermissionDecider;
  settings(): PushSettings;
  /** The public half of the server's VAPID key pair (made on first use). */
  vapidPublicKey(): string;
  send: PushSender;
  /** The chat session a run (its trace id) answered, for the notification's link. */
  sessionOfRun?(traceId: string): string | undefined;
  /** What a chat's goal was, for the goal-done notification. */
  goalObjective?(sessionId: string): string | undefined;
  now?(): number;
}

/** How many devices may be subscribed: each is sent every notification. */
export const MAX_SUBSCRIPTIONS = 50;
/** How long the push service keeps the other notifications for a device that is offline. */
const TTL_OTHER_SEC = 3600;
/** A decided request's tokens are kept this long after they expired (refused meanwhile), then dropped. */
const KEEP_EXPIRED_MS = 24 * 3600_000;

/** The request's notification went out: what its resolution notice needs. */
interface Pushed {
  request: Pick<PermissionRequest, 'id' | 'sessionId' | 'summary' | 'expiresAt'>;
  subscriptions: Set<string>;
  /** Settles once each device's request push has an answer: its outcome is sent after, never before. */
  delivered: Promise<unknown>;
}

/** A device's browser in a few words, from its User-Agent: "Chrome on Android", "Safari on iOS". */
export function deviceLabel(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Mac OS X|Macintosh/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /CrOS/.test(ua) ? 'ChromeOS' : /Linux/.test(ua) ? 'Linux' : '';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\/|FxiOS/.test(ua) ? 'Firefox' : /SamsungBrowser/.test(ua) ? 'Samsung Internet' : /Chrome\/|CriOS|Chromium/.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : '';
  if (!browser && !os) return 'a browser';
  return browser && os ? `${browser} on ${os}` : browser || `a browser on ${os}`;
}

const info = ({ keys: _keys, ...rest }: StoredSubscription): PushSubscriptionInfo => rest;

export class PushService {
  private readonly pushed = new Map<string, Pushed>();
  private readonly inflight = new Set<Promise<unknown>>();
  private unsubscribe?: () => void;

  constructor(private readonly deps: PushDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  vapidPublicKey(): string {
    return this.deps.vapidPublicKey();
  }

  /** Follows the events that notify (permission requests and their resolutions, runs, goals, workers). */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((event) => {
      const settings = this.deps.settings();
      const p = event.payload as Record<string, unknown>;
      if (event.name === 'permission_request' && settings.onPermission) this.track(this.notifyPermission(p as unknown as PermissionRequest));
      else if (event.name === 'permission_resolved') this.track(this.notifyResolved(String(p.id), p.decision as 'allow' | 'deny', p.by as Decider));
      else if (event.name === 'agent_done' && settings.onRunDone) {
        const run = p as unknown as Parameters<typeof runDonePayload>[0];
        this.track(this.broadcast(runDonePayload(run, this.deps.sessionOfRun?.(run.traceId)), { ttl: TTL_OTHER_SEC, urgency: 'normal' }));
      } else if (event.name === 'goal_done' && settings.onGoalDone) {
        const goal = p as { goalId: string; sessionId: string };
        this.track(this.broadcast(goalDonePayload(goal, this.deps.goalObjective?.(goal.sessionId)), { ttl: TTL_OTHER_SEC, urgency: 'normal' }));
      } else if (WORKER_EVENTS.includes(event.name) && settings.onWorkerAttention) {
        this.track(this.broadcast(workerPayload(event.name, p as { runId: string; sessionId: string; reason: string }), { ttl: TTL_OTHER_SEC, urgency: 'normal' }));
      }
    });
  }

  /** Stops following events and waits for the pushes under way (each bounded by the sender's timeout). */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.idle();
    this.pushed.clear();
  }

  /** Resolves once every push started so far has an answer (tests, and close). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  subscribe(body: PushSubscriptionBody, userAgent: string | undefined, actor: string): PushSubscriptionInfo {
    checkEndpoint(body.endpoint);
    checkKeys(body.keys);
    const known = this.deps.repo.list().some((s) => s.endpoint === body.endpoint);
    if (!known && this.deps.repo.count() >= MAX_SUBSCRIPTIONS) {
      throw badRequest('INVALID_REQUEST', `At most ${MAX_SUBSCRIPTIONS} devices get notifications: remove one first (Settings › Notifications).`);
    }
    const subscription = this.deps.repo.upsert(newId('push'), body.endpoint, body.keys, deviceLabel(userAgent), this.now());
    this.deps.audit.record({ actor, action: 'push.subscribe', target: subscription.id, outcome: 'ok', details: { service: subscription.service, label: subscription.label, renewed: known } });
    return info(subscription);
  }

  list(): PushSubscriptionInfo[] {
    return this.deps.repo.list().map(info);
  }

  remove(id: string, actor: string): void {
    if (!this.deps.repo.remove(id)) throw notFound('Push subscription', id);
    this.deps.audit.record({ actor, action: 'push.unsubscribe', target: id, outcome: 'ok' });
  }

  /** A test notification to one device: what its push service answered. */
  async test(id: string): Promise<{ status: number; removed: boolean }> {
    const subscription = this.deps.repo.get(id);
    if (!subscription) throw notFound('Push subscription', id);
    return this.deliver(subscription, testPayload(), { ttl: 60, urgency: 'normal' }, true);
  }

  /**
   * A decision from a notification's action: the token must be one svc gave for this request, unused and
   * unexpired (403 DECISION_TOKEN_INVALID otherwise, whatever else is wrong: a refusal tells a guesser
   * nothing), and the request still pending (409 once anyone decided). Decides as `push`, once.
   */
  async decideByToken(requestId: string, token: string, actor: string): Promise<PermissionRequest> {
    const now = this.now();
    const row = this.deps.repo.token(token);
    const refuse = (why: string) => {
      this.deps.audit.recordLimited(`push-token:${actor}`, { actor, action: 'permission.decide', target: requestId, outcome: 'refused', details: { by: 'push', why } });
      return forbidden('DECISION_TOKEN_INVALID', 'This decision link is not valid any more (used, expired, or not this request\'s). Decide in svc instead.');
    };
    if (!row || row.request_id !== requestId) throw refuse('unknown');
    if (row.used_at !== null) throw refuse('used');
    if (row.expires_at <= now) throw refuse('expired');
    const request = await this.deps.permissions.get(requestId);
    if (!request) throw refuse('unknown');
    if (request.status !== 'pending') {
      throw conflict('ALREADY_DECIDED', `This request was already ${request.status} (by ${request.decidedBy ?? 'svc'}); a decision cannot be changed.`, {
        status: request.status,
        ...(request.decidedBy ? { decidedBy: request.decidedBy } : {}),
      });
    }
    if (!this.deps.repo.use(token, now)) throw refuse('used');
    return await this.deps.permissions.decide(requestId, { decision: row.decision }, 'push', `push:${row.subscription_id} (${actor})`);
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((err: unknown) => console.error('svc: a push notification failed:', err)).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private async notifyPermission(request: PermissionRequest): Promise<void> {
    const now = this.now();
    const ttl = Math.max(0, Math.floor((request.expiresAt - now) / 1000));
    if (ttl === 0) return;
    this.deps.repo.dropExpired(now - KEEP_EXPIRED_MS);
    const subscriptions = this.deps.repo.list();
    if (!subscriptions.length) return;
    const deliveries = subscriptions.map((subscription) => {
      const tokens = { allow: randomBytes(32).toString('base64url'), deny: randomBytes(32).toString('base64url') };
      this.deps.repo.addToken(tokens.allow, request.id, 'allow', subscription.id, request.expiresAt);
      this.deps.repo.addToken(tokens.deny, request.id, 'deny', subscription.id, request.expiresAt);
      return this.deliver(subscription, permissionPayload(request, tokens), { ttl, urgency: 'high', topic: topicOf(request.id) });
    });
    const delivered = Promise.all(deliveries);
    this.pushed.set(request.id, {
      request: { id: request.id, sessionId: request.sessionId, summary: request.summary, expiresAt: request.expiresAt },
      subscriptions: new Set(subscriptions.map((s) => s.id)),
      delivered,
    });
    await delivered;
  }

  /** The devices that were shown the request get its outcome in its place. */
  private async notifyResolved(id: string, decision: 'allow' | 'deny', by: Decider): Promise<void> {
    const pushed = this.pushed.get(id);
    if (!pushed) return;
    this.pushed.delete(id);
    await pushed.delivered;
    const ttl = Math.max(60, Math.floor((pushed.request.expiresAt - this.now()) / 1000));
    const payload = resolvedPayload(pushed.request, decision, by);
    const subscriptions = this.deps.repo.list().filter((s) => pushed.subscriptions.has(s.id));
    await Promise.all(subscriptions.map((subscription) => this.deliver(subscription, payload, { ttl, urgency: 'normal', topic: topicOf(id) })));
  }

  private async broadcast(payload: PushPayload, options: PushOptions): Promise<void> {
    await Promise.all(this.deps.repo.list().map((subscription) => this.deliver(subscription, payload, options)));
  }

  /** Sends one push; a 404/410 removes the subscription, another failure is noted on it. */
  private async deliver(subscription: StoredSubscription, payload: PushPayload, options: PushOptions, rethrow = false): Promise<{ status: number; removed: boolean }> {
    let status: number;
    try {
      const answer = await this.deps.send({ endpoint: subscription.endpoint, keys: subscription.keys }, encodePayload(payload), options);
      status = answer.status;
      if (status >= 200 && status < 300) {
        this.deps.repo.sent(subscription.id, this.now());
        return { status, removed: false };
      }
      if (status === 404 || status === 410) {
        this.deps.repo.remove(subscription.id);
        this.deps.audit.record({ actor: 'svc', action: 'push.unsubscribe', target: subscription.id, outcome: 'ok', details: { reason: `the push service answered ${status}: the subscription is gone` } });
        return { status, removed: true };
      }
      this.deps.repo.failed(subscription.id, `${status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ''}`);
      return { status, removed: false };
    } catch (err) {
      const message = (err as Error).message;
      this.deps.repo.failed(subscription.id, message);
      if (rethrow) throw new AppError(502, 'UPSTREAM_ERROR', `The push service at ${subscription.service} could not be reached: ${message}`);
      return { status: 0, removed: false };
    }
  }
}
