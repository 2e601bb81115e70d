// Notifications on this device, in the chat UI: the service worker (registered at load, so the app installs
// to a home screen), turning Web Push on or off for this instance (web/ui/push.ts), and opening the chat a
// notification was about.
import { pushDevice } from '../ui/push.ts';
import { del, get, post } from './api.ts';
import { BASE } from './base.ts';

/** Under the manager's /i/<instanceId>/ proxy: the worker and the decisions belong to the instance's own origin. */
const proxied = () => new URL(`${BASE}/`).pathname !== '/';

export const chatPush = pushDevice({ get, post, del }, () =>
  proxied() ? 'Notifications of this instance are turned on in its own chat UI (its own address), or for every instance in the dashboard\'s Settings.' : undefined,
);

/** Registers the service worker at load; quietly does nothing where there can be none. */
export const registerServiceWorker = chatPush.register;

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

