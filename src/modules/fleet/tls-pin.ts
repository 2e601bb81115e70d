// The hub's certificate, pinned. An invite names its SHA-256; `svc fleet join` reads the certificate the hub
// presents and refuses any other, then keeps it, so every later connection of the machine (and the hub's own)
// accepts exactly that certificate, whoever issued it. NATS upgrades to TLS after its INFO line, so the probe
// reads that line over TCP first.
import { X509Certificate } from 'node:crypto';
import { connect as tcpConnect, isIP } from 'node:net';
import { connect as tlsConnect, rootCertificates, type PeerCertificate } from 'node:tls';
import { sameFingerprint } from '../../core/tls.ts';
import { onInfo } from './nats-info.ts';

const PROBE_MS = 10_000;

/** The certificate the NATS server at `url` presents: its PEM and SHA-256 fingerprint. */
export function probeCertificate(url: string): Promise<{ pem: string; fingerprint: string }> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port: Number(port || 4222) });
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`no TLS handshake with ${host}:${port} within ${PROBE_MS / 1000} s`)), PROBE_MS);
    socket.once('error', fail);
    onInfo(socket, (info) => {
      if (info?.tls_required !== true) return fail(new Error(`${host}:${port} does not serve NATS over TLS`));
      const secure = tlsConnect({ socket, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) }, () => {
        clearTimeout(timer);
        const raw = secure.getPeerCertificate(true).raw;
        secure.destroy();
        const certificate = new X509Certificate(raw);
        resolve({ pem: certificate.toString(), fingerprint: certificate.fingerprint256 });
      });
      secure.once('error', fail);
    });
  });
}

/**
 * TLS options of a NATS connection that accept only the certificate with this fingerprint: the certificate
 * itself is a trust anchor (so a self-signed one verifies), the system's roots too (so a CA-issued one does),
 * and the identity check is the fingerprint instead of the host name.
 */
export function pinnedTls(pem: string, fingerprint: string) {
  return {
    ca: [pem, ...rootCertificates].join('\n'),
    checkServerIdentity: (_host: string, cert: PeerCertificate) =>
      sameFingerprint(cert.fingerprint256 ?? '', fingerprint) ? undefined : new Error(`the hub's certificate changed (SHA-256 ${cert.fingerprint256}, pinned ${fingerprint})`),
  };
}
