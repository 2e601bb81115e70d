// The chat UI's service worker: it shows svc's push notifications and answers a permission request's
// Allow or Deny from the notification. It has no fetch handler and opens no cache, so nothing that
// holds a token or a message is ever kept by it: the page always talks to the server itself. The
// decision goes to POST api/permissions/:id/decide-by-token with the single-use token the push carried
// for that action (no bearer token: the worker has none, and needs none).
import type { PushPayload } from '../../src/protocol/push.ts';

// The worker's globals, declared here: the web tsconfig types the page (DOM), not a worker.
interface NotificationLike {
  data: unknown;
  tag: string;
  close(): void;
}
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  data: { json(): unknown } | null;
}
interface NotificationEvent extends ExtendableEvent {
  action: string;
  notification: NotificationLike;
}
interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}
interface WorkerScope {
  registration: { scope: string; showNotification(title: string, options: Record<string, unknown>): Promise<void>; getNotifications(filter: { tag: string }): Promise<NotificationLike[]> };
  clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>; openWindow(url: string): Promise<unknown>; claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: never) => void): void;
}
declare const self: WorkerScope;

/** What a notification keeps to act on a click (the tokens stay with the notification, nowhere else). */
interface NotificationData {
  sessionId?: string;
  requestId?: string;
  actions?: PushPayload['actions'];
}

const scopeUrl = (path: string) => new URL(path, self.registration.scope).href;

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event: ExtendableEvent) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event: PushEvent) => {
  let payload: PushPayload;
  try {
    payload = event.data?.json() as PushPayload;
  } catch {
    return;
  }
  if (!payload || payload.v !== 1) return;
  const data: NotificationData = { sessionId: payload.sessionId, requestId: payload.requestId, actions: payload.actions };
  event.waitUntil(
    self.registration.showNotification(payload.title, {
      body: payload.body,
      tag: payload.tag,
      // a resolution replaces the request's notification quietly; a new request rings again
      renotify: payload.kind === 'permission',
      requireInteraction: payload.kind === 'permission',
      icon: scopeUrl('icons/icon-192.png'),
      badge: scopeUrl('icons/icon-192.png'),
      data,
      actions: (payload.actions ?? []).map(({ action, title }) => ({ action, title })),
    }),
  );
});

/** Posts the action's token; the outcome replaces the notification (same tag). */
async function decide(notification: NotificationLike, data: NotificationData, action: 'allow' | 'deny'): Promise<void> {
  const token = data.actions?.find((a) => a.action === action)?.token;
  if (!token || !data.requestId) return;
  let message: string;
  try {
    const answer = await fetch(scopeUrl(`api/permissions/${encodeURIComponent(data.requestId)}/decide-by-token`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      credentials: 'omit',
      cache: 'no-store',
    });
    const body = (await answer.json().catch(() => ({}))) as { message?: string };
    message = answer.ok ? (action === 'allow' ? 'Allowed from this notification.' : 'Denied from this notification.') : (body.message ?? `svc answered ${answer.status}.`);
  } catch {
    message = 'svc could not be reached: decide in svc instead.';
  }
  await self.registration.showNotification('svc', { body: message, tag: notification.tag, data: { sessionId: data.sessionId } });
}

/** Focuses a window of the chat UI at the notification's chat (web/src/push.ts follows the message), or opens one. */
async function openChat(sessionId: string | undefined): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows[0];
  if (open) {
    await open.focus();
    if (sessionId) open.postMessage({ type: 'svc-open-session', sessionId });
    return;
  }
  await self.clients.openWindow(scopeUrl(sessionId ? `./?session=${encodeURIComponent(sessionId)}` : './'));
}

self.addEventListener('notificationclick', (event: NotificationEvent) => {
  const data = (event.notification.data ?? {}) as NotificationData;
  event.notification.close();
  if (event.action === 'allow' || event.action === 'deny') event.waitUntil(decide(event.notification, data, event.action));
  else event.waitUntil(openChat(data.sessionId));
});
