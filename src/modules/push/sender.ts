// One push, sent: web-push makes the request (the payload encrypted to the subscription's keys with
// RFC 8291 aes128gcm, the VAPID JWT of RFC 8292 signed with svc's key, TTL, Urgency, Topic) and svc
// sends it over node:https (node:http for a loopback relay), bounded in time. web-push is loaded on the
// first push, never on the start-up path.
import type { VapidKeys } from './vapid.ts';

export interface PushOptions {
  /** Seconds the push service keeps the message for a device that is offline (0: deliver now or never). */
  ttl: number;
  urgency: 'low' | 'normal' | 'high';
  /** A later message with the same topic replaces this one while the push service holds it. */
  topic?: string;
}

export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** What the push service answered (201 accepted; 404/410 the subscription is gone). */
export interface PushAnswer {
  status: number;
  body: string;
}

export type PushSender = (target: PushTarget, payload: Buffer, options: PushOptions) => Promise<PushAnswer>;

const TIMEOUT_MS = 15_000;

export function pushSender(vapid: () => VapidKeys, subject: () => string): PushSender {
  return async (target, payload, options) => {
    const { default: webpush } = await import('web-push');
    const details = webpush.generateRequestDetails(target, payload, {
      TTL: Math.max(0, Math.floor(options.ttl)),
      urgency: options.urgency,
      ...(options.topic ? { topic: options.topic } : {}),
      contentEncoding: 'aes128gcm',
      vapidDetails: { subject: subject(), ...vapid() },
    });
    const url = new URL(details.endpoint);
    // node:https (and with it node:tls) loads with the first notification, not with every start
    const { request: send } = url.protocol === 'http:' ? await import('node:http') : await import('node:https');
    return new Promise<PushAnswer>((resolve, reject) => {
      const req = send(url, { method: 'POST', headers: details.headers, timeout: TIMEOUT_MS }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < 2000) body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.slice(0, 2000) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end(details.body ?? undefined);
    });
  };
}
