// Web Push on this device, for either page that has it: the chat UI (its instance's notifications) and the
// dashboard (the hub's: every instance's held tool calls). The service worker is registered from the page's
// directory, the permission asked, a PushSubscription made with the server's VAPID key and given to
// POST /api/push/subscriptions. Push needs a secure context: HTTPS, or localhost; a page over plain HTTP on
// a LAN address has no service worker and cannot subscribe.

/** The page's calls to its own server (each app has its own: the chat's carries its token). */
export interface PushApi {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  del(path: string): Promise<unknown>;
}

export interface PushDevice {
  /** Why this page cannot get notifications, or undefined when it can. */
  unavailable(): string | undefined;
  /** Registers the service worker; quietly does nothing where there can be none. */
  register(): Promise<ServiceWorkerRegistration | undefined>;
  /** Whether this device gets notifications: subscribed in the browser and known to the server. */
  isOn(): Promise<boolean>;
  /** Asks for permission, subscribes with the server's key and registers the subscription with the server. */
  enable(): Promise<void>;
  disable(): Promise<void>;
  test(): Promise<{ status: number; removed: boolean }>;
}

/** The id the server gave this device's subscription (kept to remove it again), per origin. */
const ID_KEY = 'svc.push.subscriptionId';

/** `elsewhere`: why this page never has notifications of its own (the chat UI under the dashboard's proxy). */
export function pushDevice(api: PushApi, elsewhere: () => string | undefined = () => undefined): PushDevice {
  const unavailable = (): string | undefined => {
    const other = elsewhere();
    if (other) return other;
    if (!window.isSecureContext) return 'This page is not a secure context (plain HTTP on a network address), so the browser allows no notifications. Open svc over HTTPS (--tls-cert/--tls-key, see the README), or on localhost.';
    if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'This browser has no Web Push. On an iPhone, add svc to the home screen first (Share › Add to Home Screen) and open it from there.';
    return undefined;
  };
  const register = (): Promise<ServiceWorkerRegistration | undefined> => {
    if (elsewhere() || !window.isSecureContext || !('serviceWorker' in navigator)) return Promise.resolve(undefined);
    return navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => undefined);
  };
  return {
    unavailable,
    register,
    async isOn() {
      const registration = await register();
      const subscription = await registration?.pushManager.getSubscription();
      return Boolean(subscription && localStorage.getItem(ID_KEY));
    },
    async enable() {
      const why = unavailable();
      if (why) throw new Error(why);
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') throw new Error('Notifications are blocked for this site: allow them in the browser\'s site settings, then try again.');
      const registration = await register();
      if (!registration) throw new Error('The service worker could not be registered.');
      await navigator.serviceWorker.ready;
      const { publicKey } = await api.get<{ publicKey: string }>('/api/push/vapid-public-key');
      let subscription = await registration.pushManager.getSubscription();
      // a subscription made with another key (the server's key file was replaced) is useless
      const key = subscription?.options.applicationServerKey;
      if (subscription && key && base64url(key) !== publicKey) {
        await subscription.unsubscribe();
        subscription = null;
      }
      subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64url(publicKey) });
      const { id } = await api.post<{ id: string }>('/api/push/subscriptions', subscription.toJSON());
      localStorage.setItem(ID_KEY, id);
    },
    async disable() {
      const registration = await register();
      await (await registration?.pushManager.getSubscription())?.unsubscribe();
      const id = localStorage.getItem(ID_KEY);
      localStorage.removeItem(ID_KEY);
      if (id) await api.del(`/api/push/subscriptions/${encodeURIComponent(id)}`).catch(() => undefined);
    },
    test() {
      const id = localStorage.getItem(ID_KEY);
      if (!id) return Promise.reject(new Error('This device has no subscription.'));
      return api.post(`/api/push/subscriptions/${encodeURIComponent(id)}/test`);
    },
  };
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64url(buffer: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
