// Web Push (RFC 8030, 8291, 8292): the subscription a browser gives svc, what svc lists of each one,
// and the payload its service worker (web/src/sw.ts) receives. Shared by the server and the web UI
// (types only there).
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

const base64url = lazySchema(() => z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, 'URL-safe base64'));

/** A browser's PushSubscription as `subscription.toJSON()` gives it. */
export const PushSubscriptionBodySchema = lazySchema(() => z.object({
  /** Where svc sends the device's pushes: https, or a loopback address (a local push relay). */
  endpoint: z.string().min(10).max(2048),
  /** Ignored: push services that expire a subscription answer 404/410, and svc removes it then. */
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** The browser's P-256 public key (uncompressed point, 65 bytes). */
    p256dh: base64url.max(200),
    /** The browser's authentication secret (16 bytes). */
    auth: base64url.max(100),
  }),
}));
export type PushSubscriptionBody = z.infer<typeof PushSubscriptionBodySchema>;

/** One device that gets svc's notifications (its keys are never given out again). */
export const PushSubscriptionInfoSchema = lazySchema(() => z.object({
  id: z.string(),
  endpoint: z.string(),
  /** The push service's origin, e.g. https://fcm.googleapis.com. */
  service: z.string(),
  /** The browser that subscribed, from its User-Agent (e.g. "Chrome on Android"). */
  label: z.string(),
  createdAt: z.number(),
  /** The last push the push service accepted. */
  lastSentAt: z.number().optional(),
  /** Why the last push failed, if it did. */
  lastError: z.string().optional(),
}));
export type PushSubscriptionInfo = z.infer<typeof PushSubscriptionInfoSchema>;

export const PUSH_KINDS = ['permission', 'permission_resolved', 'run_done', 'goal_done', 'worker_attention', 'test'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** An action button of a permission notification, with the single-use decision token it posts. */
export interface PushAction {
  action: 'allow' | 'deny';
  title: string;
  token: string;
}

/**
 * What the service worker receives (decrypted by the browser). `tag` groups a request's notifications: its
 * resolution replaces it. A permission's tokens go to POST api/permissions/:id/decide-by-token.
 */
export interface PushPayload {
  v: 1;
  kind: PushKind;
  tag: string;
  title: string;
  body: string;
  /** The chat session it is about, opened on a plain click. */
  sessionId?: string;
  /** permission, permission_resolved: the request. */
  requestId?: string;
  /** permission: when the request is denied by itself (and its tokens expire). */
  expiresAt?: number;
  /** permission: Allow and Deny. */
  actions?: PushAction[];
}

/** The body of POST /api/permissions/:id/decide-by-token. */
export const DecideByTokenBodySchema = lazySchema(() => z.strictObject({
  /** The decision token a permission notification carried for one action. */
  token: z.string().min(20).max(200),
}));
