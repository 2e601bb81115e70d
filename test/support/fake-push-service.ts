// A push service on loopback, for the Web Push tests: it holds a browser's side of a subscription (a
// P-256 key pair and a 16-byte auth secret, made here), checks each push's VAPID JWT (RFC 8292: ES256
// over `Authorization: vapid t=…, k=…`, aud the endpoint's origin, exp within 24 h, a sub) and decrypts
// its aes128gcm body (RFC 8291 over RFC 8188) the way a browser would. A push that fails a check is
// answered 400/401/403 and recorded with the reason; `gone` makes a subscription answer 410.
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPush {
  path: string;
  ttl: number;
  urgency?: string;
  topic?: string;
  /** The VAPID public key the push was signed with (k=). */
  vapidKey: string;
  /** The JWT's claims, once verified. */
  claims: { aud: string; exp: number; sub: string };
  /** The decrypted payload, parsed as JSON. */
  payload: any;
}

export interface FakeBrowser {
  /** The PushSubscription JSON a browser gives the page. */
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
}

export interface FakePushService {
  url: string;
  received: ReceivedPush[];
  refused: { path: string; status: number; why: string }[];
  /** A new subscription on this service: the browser's keys stay here. */
  subscribe(): FakeBrowser;
  /** From now on the subscription answers 410 Gone. */
  gone(browser: FakeBrowser): void;
  /** Resolves once `count` pushes were received. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

class Refused extends Error {
  constructor(readonly status: number, why: string) {
    super(why);
  }
}

/** RFC 8292 §2, §3: the JWT and the key of an Authorization header, checked; its claims. */
function checkVapid(header: string | undefined, endpointOrigin: string): { key: string; claims: ReceivedPush['claims'] } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? '');
  if (!match) throw new Refused(401, `no vapid Authorization header: ${header ?? '(none)'}`);
  const [, jwt, key] = match as unknown as [string, string, string];
  const [head, body, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Refused(401, 'k is not an uncompressed P-256 point');
  const publicKey = createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) } });
  // ES256 (RFC 7518 §3.4): the signature is r || s, 64 bytes
  const valid = verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!valid) throw new Refused(403, 'the JWT signature does not verify with k');
  const header_ = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  if (header_.alg !== 'ES256') throw new Refused(403, `JWT alg ${header_.alg}`);
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ReceivedPush['claims'];
  if (claims.aud !== endpointOrigin) throw new Refused(403, `aud ${claims.aud} is not ${endpointOrigin}`);
  const now = Math.floor(Date.now() / 1000);
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Refused(403, `exp ${claims.exp} is not within the next 24 h`);
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) throw new Refused(403, `sub ${claims.sub} is not a mailto: or https: URI`);
  return { key, claims };
}

/** RFC 8291 §3.4 + RFC 8188 §2: the aes128gcm body, decrypted with the browser's key and secret. */
function decrypt(body: Buffer, browser: { ecdh: ECDH; auth: Buffer }): Buffer {
  // the header: salt (16), record size (4), key id length (1), key id = the sender's public key
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const records = body.subarray(21 + idLength);
  if (idLength !== 65) throw new Refused(400, `key id of ${idLength} bytes, not a P-256 point`);
  if (records.length > recordSize) throw new Refused(400, 'more than one record: a push message is one');
  const shared = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  // one record, sequence number 0: the nonce as derived; the tag is the record's last 16 bytes
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  } catch {
    throw new Refused(400, 'the record does not decrypt (wrong keys or a tampered body)');
  }
  // padding: the last record's delimiter 0x02, then zeros
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Refused(400, 'no last-record padding delimiter');
  return plain.subarray(0, end);
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startFakePushService(): Promise<FakePushService> {
  const browsers = new Map<string, { ecdh: ECDH; auth: Buffer; gone: boolean }>();
  const received: ReceivedPush[] = [];
  const refused: FakePushService['refused'] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = req.url ?? '/';
      try {
        const browser = browsers.get(path);
        if (!browser) throw new Refused(404, 'no such subscription');
        if (browser.gone) throw new Refused(410, 'unsubscribed');
        if (req.method !== 'POST') throw new Refused(405, req.method ?? '');
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Refused(400, `Content-Encoding ${req.headers['content-encoding']}`);
        const ttl = Number(req.headers.ttl);
        if (!Number.isInteger(ttl) || ttl < 0) throw new Refused(400, `TTL ${req.headers.ttl}`);
        const { key, claims } = checkVapid(req.headers.authorization, `http://${req.headers.host}`);
        const payload = JSON.parse(decrypt(body, browser).toString('utf8'));
        received.push({ path, ttl, urgency: req.headers.urgency as string | undefined, topic: req.headers.topic as string | undefined, vapidKey: key, claims, payload });
        for (const wake of waiters) wake();
        res.writeHead(201, { location: `${path}/messages/${received.length}` }).end();
      } catch (err) {
        const status = err instanceof Refused ? err.status : 500;
        refused.push({ path, status, why: (err as Error).message });
        res.writeHead(status, { 'content-type': 'text/plain' }).end((err as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    refused,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${randomBytes(12).toString('hex')}`;
      browsers.set(path, { ecdh, auth, gone: false });
      return { subscription: { endpoint: `${url}${path}`, expirationTime: null, keys: { p256dh: b64(ecdh.getPublicKey()), auth: b64(auth) } } };
    },
    gone(browser) {
      browsers.get(new URL(browser.subscription.endpoint).pathname)!.gone = true;
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${received.length} of ${count} pushes arrived; refused: ${JSON.stringify(refused)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
