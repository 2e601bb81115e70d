// Notifications on this device: the service worker (registered at load, so the app installs to a home
// screen), and turning Web Push on or off (Notification permission, a PushSubscription made with the
// server's VAPID key, given to POST /api/push/subscriptions). Push needs a secure context: HTTPS, or
// localhost; a page over plain HTTP on a LAN address has no service worker and cannot subscribe.
import { del, get, post } from './api.ts';
import { BASE } from './base.ts';

/** Under the manager's /i/<instanceId>/ proxy: the worker and the decisions belong to the instance's own origin. */
const proxied = () => new URL(`${BASE}/`).pathname !== '/';

/** Why this page cannot get notifications, or undefined when it can. */
export function pushUnavailable(): string | undefined {
  if (proxied()) return 'Notifications are turned on in the instance\'s own chat UI (its own address), not through the dashboard.';
  if (!window.isSecureContext) return 'This page is not a secure context (plain HTTP on a network address), so the browser allows no notifications. Open svc over HTTPS (svc serve --tls-cert/--tls-key, see the README), or on localhost.';
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'This browser has no Web Push. On an iPhone, add svc to the home screen first (Share › Add to Home Screen) and open it from there.';
  return undefined;
}

/** Registers the service worker; quietly does nothing where there can be none. */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (proxied() || !window.isSecureContext || !('serviceWorker' in navigator)) return Promise.resolve(undefined);
  return navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => undefined);
}

/**
 * Opens the chat a notification was about: the service worker's message to an open window, or the
 * `?session=` of the window it opened (taken off the address once read).
 */
export function followNotificationClicks(open: (sessionId: string) => void): void {
  const wanted = new URLSearchParams(location.search).get('session');
  if (wanted) {
    history.replaceState(null, '', location.pathname + location.hash);
    open(wanted);
  }
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<{ type?: string; sessionId?: unknown }>) => {
    if (event.data?.type === 'svc-open-session' && typeof event.data.sessionId === 'string') open(event.data.sessionId);
  });
}

/** The id svc gave this device's subscription (kept to remove it again), per origin. */
const ID_KEY = 'svc.push.subscriptionId';

/** Whether this device gets notifications: subscribed in the browser and known to svc. */
export async function pushIsOn(): Promise<boolean> {
  const registration = await registerServiceWorker();
  const subscription = await registration?.pushManager.getSubscription();
  return Boolean(subscription && localStorage.getItem(ID_KEY));
}

/** Asks for permission, subscribes with the server's key and registers the subscription with svc. */
export async function enablePush(): Promise<void> {
  const why = pushUnavailable();
  if (why) throw new Error(why);
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site: allow them in the browser\'s site settings, then try again.');
  const registration = await registerServiceWorker();
  if (!registration) throw new Error('The service worker could not be registered.');
  await navigator.serviceWorker.ready;
  const { publicKey } = await get<{ publicKey: string }>('/api/push/vapid-public-key');
  let subscription = await registration.pushManager.getSubscription();
  // a subscription made with another key (the server's key file was replaced) is useless
  const key = subscription?.options.applicationServerKey;
  if (subscription && key && base64url(key) !== publicKey) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64url(publicKey) });
  const { id } = await post<{ id: string }>('/api/push/subscriptions', subscription.toJSON());
  localStorage.setItem(ID_KEY, id);
}

export async function disablePush(): Promise<void> {
  const registration = await registerServiceWorker();
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
  const id = localStorage.getItem(ID_KEY);
  localStorage.removeItem(ID_KEY);
  if (id) await del(`/api/push/subscriptions/${encodeURIComponent(id)}`).catch(() => undefined);
}

export const pushTest = (): Promise<{ status: number; removed: boolean }> => {
  const id = localStorage.getItem(ID_KEY);
  if (!id) return Promise.reject(new Error('This device has no subscription.'));
  return post(`/api/push/subscriptions/${encodeURIComponent(id)}/test`);
};

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64url(buffer: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
