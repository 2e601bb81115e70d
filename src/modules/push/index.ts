// Web Push: notifications to the phones and browsers that turned them on (VAPID keys in the home,
// RFC 8291 payloads through web-push), permission requests answered from the notification with
// single-use decision tokens, and the `push` settings section.
export { PushService, deviceLabel, MAX_SUBSCRIPTIONS, type PushDeps, type PermissionDecider } from './push.service.ts';
export { PushRepo } from './push.repo.ts';
export { pushRoutes, type PushRouteDeps } from './push.routes.ts';
export { pushSender, type PushSender, type PushOptions, type PushTarget } from './sender.ts';
export { pushSettings, DEFAULT_CONTACT, type PushSettings } from './settings.ts';
export { loadOrCreateVapidKeys, type VapidKeys } from './vapid.ts';
export { checkEndpoint } from './endpoint.ts';
