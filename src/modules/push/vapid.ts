// The server's VAPID key pair (RFC 8292): made once, kept in <home>/push-vapid.json (mode 0600). The
// public key is what a browser subscribes with (applicationServerKey); every push is signed with the
// private one, so a push service accepts pushes to svc's subscriptions from svc only. A new key pair
// (the file deleted) makes every existing subscription useless: browsers subscribe again.
import { createECDH } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export interface VapidKeys {
  /** The uncompressed P-256 point (65 bytes), URL-safe base64 without padding. */
  publicKey: string;
  /** The private scalar (32 bytes), URL-safe base64 without padding. */
  privateKey: string;
}

const valid = (keys: Partial<VapidKeys>): keys is VapidKeys => {
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') return false;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(keys.privateKey, 'base64url'));
    // the public key must be the private key's
    return ecdh.getPublicKey('base64url') === keys.publicKey;
  } catch {
    return false;
  }
};

/** Reads the key pair, making it on first use (or when the file is not a valid pair). */
export function loadOrCreateVapidKeys(path: string): VapidKeys {
  try {
    const keys = JSON.parse(readFileSync(path, 'utf8')) as Partial<VapidKeys>;
    if (valid(keys)) {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return { publicKey: keys.publicKey, privateKey: keys.privateKey };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
  }
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  // a scalar with leading zero bytes comes out shorter: VAPID wants exactly 32 bytes
  const keys: VapidKeys = { publicKey: ecdh.getPublicKey('base64url'), privateKey: Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]).toString('base64url') };
  writeFileSync(path, `${JSON.stringify({ ...keys, createdAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return keys;
}
