// Self-signed certificates for the HTTPS tests, made with the openssl binary: a certificate no CA
// vouches for, which is exactly what svc's own clients must accept by pin and nothing else by default.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServerTls } from '../../src/cli/tls-files.ts';
import type { ServerTls } from '../../src/core/tls.ts';

/** A fresh P-256 certificate for 127.0.0.1 and localhost (valid a day) and its key, in a new directory. */
export function makeCertificate(name = 'svc-test'): ServerTls {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return loadServerTls({ tlsCert: certFile, tlsKey: keyFile }, {})!;
}
