// `--tls-cert <file> --tls-key <file>` (or SVC_TLS_CERT / SVC_TLS_KEY) of `svc serve` and `svc dashboard
// serve`: read and checked before the server opens its home, so a wrong file is one line naming it and
// what is wrong (exit 1), never a server that starts and then fails every handshake. Start-up options and
// not settings: the server needs them before it listens, and a settings route that names files for the
// server to read and serve would be one more thing a token holder could point elsewhere.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServerTls } from '../core/tls.ts';
import { unreadable } from './local-file.ts';

/** What is wrong with the TLS files; its message is the whole line after `svc: `. */
export class TlsFilesError extends Error {}

export interface TlsFileOptions {
  tlsCert?: string;
  tlsKey?: string;
}

const nonEmpty = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** The certificate and key to serve HTTPS with, or undefined for plain HTTP; throws TlsFilesError. */
export function loadServerTls(options: TlsFileOptions, env: NodeJS.ProcessEnv = process.env): ServerTls | undefined {
  const certFile = nonEmpty(options.tlsCert) ?? nonEmpty(env.SVC_TLS_CERT);
  const keyFile = nonEmpty(options.tlsKey) ?? nonEmpty(env.SVC_TLS_KEY);
  if (!certFile && !keyFile) return undefined;
  if (!keyFile) throw new TlsFilesError(`the certificate ${certFile} needs its private key too: give --tls-key <file> (or SVC_TLS_KEY)`);
  if (!certFile) throw new TlsFilesError(`the private key ${keyFile} needs its certificate too: give --tls-cert <file> (or SVC_TLS_CERT)`);
  const cert = read(certFile);
  const key = read(keyFile);
  let x509: X509Certificate;
  try {
    if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsFilesError(`${certFile} is not a PEM certificate (--tls-cert); give the certificate file, e.g. mkcert's <name>.pem`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE' ? 'an encrypted private key; svc needs it unencrypted' : 'not a PEM private key';
    throw new TlsFilesError(`${keyFile} is ${why} (--tls-key)`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new TlsFilesError(`the private key ${keyFile} does not match the certificate ${certFile}; give the key made with that certificate`);
  // absolute: the manager hands these paths to the instances it starts, whatever their working directory
  return { certFile: resolve(certFile), keyFile: resolve(keyFile), cert, key, fingerprint: x509.fingerprint256 };
}

function read(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new TlsFilesError(unreadable(path, err as NodeJS.ErrnoException).message);
  }
}
