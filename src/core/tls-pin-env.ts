// Apart from src/core/tls.ts, which loads node:tls and node:crypto: a client command reads this name
// at every start, and needs TLS only when it talks to an https server.
/**
 * The fingerprint of the certificate of the server SVC_URL names, given by the server to the processes it
 * starts (provider CLIs, workers, the browser server) so that their `svc …` commands can reach it.
 */
export const TLS_PIN_ENV = 'SVC_TLS_FINGERPRINT';
